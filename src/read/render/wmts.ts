// OGC WMTS 1.0.0 capabilities (RESTful binding) of a style's raster tiles, for the desktop GIS that speak
// WMTS rather than XYZ or TileJSON (QGIS, ArcGIS Pro, OpenLayers' WMTS source). One layer in the
// well-known GoogleMapsCompatible tile matrix set (EPSG:3857, 256 px tiles at the standard 0.28 mm
// pixel), or its 512 px twin for 512 px tiles, whose tile at a matrix z covers what a 256 px tile at z
// covers, with twice the pixels. TileServer GL offers the same document at /styles/{id}/wmts.xml.

/** Metres of EPSG:3857 from the centre to the edge of the world. */
const HALF_WORLD_M = 20037508.342789244;
/** The OGC standard rendering pixel, in metres (WMTS 1.0.0, 6.1). */
const STANDARD_PIXEL_M = 0.00028;
/** The latitude where EPSG:3857 ends. */
const MAX_LATITUDE = 85.0511287798066;

export interface WmtsLayer {
  /** the layer's title (the style's name) */
  title: string;
  /** the layer's identifier (the style as its URL names it) */
  identifier: string;
  /** the tile URL with {TileMatrix}, {TileCol} and {TileRow} */
  tileTemplate: string;
  tileSize: 256 | 512;
  maxZoom: number;
  /** the URL of this document, for ServiceMetadataURL */
  selfUrl: string;
  attribution?: string;
}

/** The capabilities XML of one layer. */
export function wmtsCapabilities(layer: WmtsLayer): string {
  const matrixSet = layer.tileSize === 256 ? "GoogleMapsCompatible" : "GoogleMapsCompatible512";
  const matrices: string[] = [];
  for (let z = 0; z <= layer.maxZoom; z++) {
    const tiles = 2 ** z;
    const metresPerPixel = (2 * HALF_WORLD_M) / (tiles * layer.tileSize);
    matrices.push(
      `      <TileMatrix>
        <ows:Identifier>${z}</ows:Identifier>
        <ScaleDenominator>${metresPerPixel / STANDARD_PIXEL_M}</ScaleDenominator>
        <TopLeftCorner>${-HALF_WORLD_M} ${HALF_WORLD_M}</TopLeftCorner>
        <TileWidth>${layer.tileSize}</TileWidth>
        <TileHeight>${layer.tileSize}</TileHeight>
        <MatrixWidth>${tiles}</MatrixWidth>
        <MatrixHeight>${tiles}</MatrixHeight>
      </TileMatrix>`,
    );
  }
  // The well-known scale set names the 256 px scales; the 512 px set has its own scales and no such name.
  const wellKnown = layer.tileSize === 256 ? "\n      <WellKnownScaleSet>urn:ogc:def:wkss:OGC:1.0:GoogleMapsCompatible</WellKnownScaleSet>" : "";
  const abstract = layer.attribution ? `\n      <ows:Abstract>${xml(layer.attribution)}</ows:Abstract>` : "";
  return `<?xml version="1.0" encoding="UTF-8"?>
<Capabilities xmlns="http://www.opengis.net/wmts/1.0" xmlns:ows="http://www.opengis.net/ows/1.1" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.opengis.net/wmts/1.0 http://schemas.opengis.net/wmts/1.0/wmtsGetCapabilities_response.xsd" version="1.0.0">
  <ows:ServiceIdentification>
    <ows:Title>${xml(layer.title)}</ows:Title>
    <ows:ServiceType>OGC WMTS</ows:ServiceType>
    <ows:ServiceTypeVersion>1.0.0</ows:ServiceTypeVersion>
  </ows:ServiceIdentification>
  <Contents>
    <Layer>
      <ows:Title>${xml(layer.title)}</ows:Title>${abstract}
      <ows:WGS84BoundingBox crs="urn:ogc:def:crs:OGC:2:84">
        <ows:LowerCorner>-180 ${-MAX_LATITUDE}</ows:LowerCorner>
        <ows:UpperCorner>180 ${MAX_LATITUDE}</ows:UpperCorner>
      </ows:WGS84BoundingBox>
      <ows:Identifier>${xml(layer.identifier)}</ows:Identifier>
      <Style isDefault="true">
        <ows:Identifier>default</ows:Identifier>
      </Style>
      <Format>image/png</Format>
      <TileMatrixSetLink>
        <TileMatrixSet>${matrixSet}</TileMatrixSet>
      </TileMatrixSetLink>
      <ResourceURL format="image/png" resourceType="tile" template="${xml(layer.tileTemplate)}"/>
    </Layer>
    <TileMatrixSet>
      <ows:Identifier>${matrixSet}</ows:Identifier>
      <ows:SupportedCRS>urn:ogc:def:crs:EPSG::3857</ows:SupportedCRS>${wellKnown}
${matrices.join("\n")}
    </TileMatrixSet>
  </Contents>
  <ServiceMetadataURL xlink:href="${xml(layer.selfUrl)}"/>
</Capabilities>
`;
}

/** Text and attribute values escaped for XML. */
function xml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!);
}
