// Fixture maps shared by the MapLibre comparison and the static-render bench: a world view
// (countries, borders, graticule, cities as circles, icons and labels) and a city view (blocks, a
// patterned park, streets with names along them, POIs), each with its style, view and tiles.
import type { StyleSpecification } from "@maplibre/maplibre-gl-style-spec";
import * as topojson from "topojson-client";
import world110 from "world-atlas/countries-110m.json";
import type { RenderView } from "../../../src/render/types";
import { encodeDemTile } from "../../../src/tiles/dem/encoding";
import { encodePng } from "../../../src/sprites/png";
import { box, line, point, type FixtureSources } from "./fixtures";

export interface Scene {
  name: string;
  view: RenderView;
  sources: FixtureSources;
  /** style layers; the source "v" is the scene's vector source, "d" its raster-dem source, "r" its raster source */
  style: StyleSpecification;
  /** colours the style draws, by class, for comparing renders pixel by pixel */
  palette: Record<string, [number, number, number][]>;
}

const FONT = ["Noto Sans Regular"];

const CITIES: [string, number, number, boolean][] = [
  ["London", -0.13, 51.5, true],
  ["Paris", 2.35, 48.86, true],
  ["Cairo", 31.24, 30.04, true],
  ["Lagos", 3.38, 6.52, false],
  ["Nairobi", 36.82, -1.29, true],
  ["Moscow", 37.62, 55.75, true],
  ["Tehran", 51.39, 35.69, true],
  ["Mumbai", 72.88, 19.08, false],
  ["New York", -74.0, 40.71, false],
  ["Sao Paulo", -46.63, -23.55, false],
  ["Cape Town", 18.42, -33.92, false],
  ["Istanbul", 28.98, 41.01, false],
  ["Madrid", -3.7, 40.42, true],
  ["Reykjavik", -21.9, 64.15, true],
  ["Kinshasa", 15.27, -4.44, true],
];

function countries(): GeoJSON.Feature[] {
  const w = world110 as unknown as { objects: { countries: never } };
  const fc = topojson.feature(w as never, w.objects.countries) as unknown as GeoJSON.FeatureCollection;
  return fc.features.map((f, i) => ({ ...f, properties: { name: (f.properties as { name?: string })?.name ?? "", group: i % 4 } }));
}

function graticule(): GeoJSON.Feature[] {
  const out: GeoJSON.Feature[] = [];
  for (let lon = -180; lon <= 180; lon += 30) out.push(line(Array.from({ length: 17 }, (_, i) => [lon, -80 + i * 10] as [number, number]), { kind: "meridian" }));
  for (let lat = -60; lat <= 60; lat += 30) out.push(line(Array.from({ length: 37 }, (_, i) => [-180 + i * 10, lat] as [number, number]), { kind: "parallel" }));
  return out;
}

export function worldScene(): Scene {
  return {
    name: "world",
    view: { center: [15, 25], zoom: 1.6, bearing: 0, width: 512, height: 512, pixelRatio: 1 },
    sources: {
      vector: {
        v: {
          maxzoom: 6,
          layers: {
            countries: countries(),
            graticule: graticule(),
            cities: CITIES.map(([name, lon, lat, capital]) => point(lon, lat, { name, capital })),
          },
        },
      },
    },
    style: {
      version: 8,
      sources: { v: { type: "vector" } },
      layers: [
        { id: "sea", type: "background", paint: { "background-color": "#a8d0f0" } },
        {
          id: "grat",
          type: "line",
          source: "v",
          "source-layer": "graticule",
          paint: { "line-color": "#7aa8d8", "line-width": 1, "line-dasharray": [4, 2] },
        },
        {
          id: "land",
          type: "fill",
          source: "v",
          "source-layer": "countries",
          paint: { "fill-color": ["match", ["get", "group"], 0, "#f2e6c8", 1, "#e0eccb", 2, "#f5d5c5", "#e6dcef"] },
        },
        {
          id: "borders",
          type: "line",
          source: "v",
          "source-layer": "countries",
          paint: { "line-color": "#806060", "line-width": ["interpolate", ["linear"], ["zoom"], 0, 0.5, 3, 1.5] },
          layout: { "line-join": "round" },
        },
        {
          id: "city-dots",
          type: "circle",
          source: "v",
          "source-layer": "cities",
          filter: ["!", ["get", "capital"]],
          paint: { "circle-radius": 4, "circle-color": "#d02020", "circle-stroke-width": 1.5, "circle-stroke-color": "#ffffff" },
        },
        {
          id: "capitals",
          type: "symbol",
          source: "v",
          "source-layer": "cities",
          filter: ["get", "capital"],
          layout: { "icon-image": "square", "icon-size": 0.5, "icon-allow-overlap": true },
        },
        {
          id: "city-labels",
          type: "symbol",
          source: "v",
          "source-layer": "cities",
          layout: {
            "text-field": ["get", "name"],
            "text-font": FONT,
            "text-size": 13,
            "text-anchor": "top",
            "text-offset": [0, 0.5],
          },
          paint: { "text-color": "#202020", "text-halo-color": "#ffffff", "text-halo-width": 1.5 },
        },
      ],
    } as StyleSpecification,
    palette: {
      background: [[0xa8, 0xd0, 0xf0]],
      fill: [[0xf2, 0xe6, 0xc8], [0xe0, 0xec, 0xcb], [0xf5, 0xd5, 0xc5], [0xe6, 0xdc, 0xef]],
      line: [[0x80, 0x60, 0x60], [0x7a, 0xa8, 0xd8]],
      circle: [[0xd0, 0x20, 0x20], [255, 0, 0]],
      label: [[0x20, 0x20, 0x20], [255, 255, 255]],
    },
  };
}

/** A made-up town near 0,0: a street grid with names, blocks, a park and POIs. */
export function cityScene(): Scene {
  const step = 0.004;
  const streets: GeoJSON.Feature[] = [];
  const blocks: GeoJSON.Feature[] = [];
  const pois: GeoJSON.Feature[] = [];
  const names = ["Elm", "Oak", "Pine", "Birch", "Cedar", "Maple", "Ash", "Willow"];
  for (let i = -4; i <= 4; i++) {
    streets.push(line([[i * step, -5 * step], [i * step, 5 * step]], { name: `${names[(i + 4) % 8]} Street`, kind: i % 2 ? "minor" : "major" }));
    streets.push(line([[-5 * step, i * step], [5 * step, i * step]], { name: `${names[(i + 6) % 8]} Avenue`, kind: i % 2 ? "minor" : "major" }));
  }
  for (let i = -4; i < 4; i++) {
    for (let j = -4; j < 4; j++) {
      const inset = step * 0.18;
      const x = i * step + inset;
      const y = j * step + inset;
      if (i === 0 && j === 0) continue;
      blocks.push(box(x, y, x + step - 2 * inset, y + step - 2 * inset, { kind: (i + j) % 3 === 0 ? "park" : "building" }));
    }
  }
  const poiNames = ["Museum", "Library", "Market", "Station", "Town Hall", "School"];
  poiNames.forEach((name, k) => pois.push(point((k - 2.5) * step * 1.3 + step / 2, ((k % 3) - 1) * step + step / 2, { name })));
  return {
    name: "city",
    view: { center: [0.002, 0.001], zoom: 15.3, bearing: 20, width: 512, height: 512, pixelRatio: 1 },
    sources: { vector: { v: { maxzoom: 14, layers: { streets, blocks, pois } } } },
    style: {
      version: 8,
      sources: { v: { type: "vector" } },
      layers: [
        { id: "ground", type: "background", paint: { "background-color": "#f4f1ea" } },
        { id: "parks", type: "fill", source: "v", "source-layer": "blocks", filter: ["==", ["get", "kind"], "park"], paint: { "fill-color": "#bde3a8" } },
        {
          id: "buildings",
          type: "fill",
          source: "v",
          "source-layer": "blocks",
          filter: ["==", ["get", "kind"], "building"],
          paint: { "fill-color": "#d9d0c9", "fill-outline-color": "#b8aca2" },
        },
        {
          id: "street-casing",
          type: "line",
          source: "v",
          "source-layer": "streets",
          layout: { "line-cap": "round", "line-join": "round" },
          paint: { "line-color": "#c0b8a8", "line-width": ["match", ["get", "kind"], "major", 14, 9] },
        },
        {
          id: "streets",
          type: "line",
          source: "v",
          "source-layer": "streets",
          layout: { "line-cap": "round", "line-join": "round" },
          paint: { "line-color": "#ffffff", "line-width": ["match", ["get", "kind"], "major", 11, 6] },
        },
        {
          id: "street-names",
          type: "symbol",
          source: "v",
          "source-layer": "streets",
          layout: { "symbol-placement": "line", "text-field": ["get", "name"], "text-font": FONT, "text-size": 12 },
          paint: { "text-color": "#505050", "text-halo-color": "#ffffff", "text-halo-width": 1 },
        },
        {
          id: "pois",
          type: "symbol",
          source: "v",
          "source-layer": "pois",
          layout: {
            "icon-image": "dot",
            "text-field": ["get", "name"],
            "text-font": FONT,
            "text-size": 13,
            "text-anchor": "left",
            "text-offset": [0.9, 0],
          },
          paint: { "text-color": "#203080", "text-halo-color": "#ffffff", "text-halo-width": 1.5 },
        },
      ],
    } as StyleSpecification,
    palette: {
      background: [[0xf4, 0xf1, 0xea]],
      fill: [[0xbd, 0xe3, 0xa8], [0xd9, 0xd0, 0xc9], [0xb8, 0xac, 0xa2]],
      line: [[0xc0, 0xb8, 0xa8], [255, 255, 255]],
      label: [[0x50, 0x50, 0x50], [0x20, 0x30, 0x80], [0, 0, 255]],
    },
  };
}

/** Two hills and a ridge between them near 7.5°E 46.5°N (metres), so every aspect and steepness occurs. */
function relief(lon: number, lat: number): number {
  const hill = (cx: number, cy: number, h: number, r: number) => h * Math.exp(-((lon - cx) ** 2 + ((lat - cy) * 1.45) ** 2) / (r * r));
  const ridge = 400 * Math.exp(-(((lat - 46.5) * 1.45 + (lon - 7.5) * 0.3) ** 2) / 0.0004);
  return 800 + hill(7.44, 46.52, 1500, 0.05) + hill(7.57, 46.47, 1100, 0.04) + ridge;
}

/** A 256-px Terrarium tile of `relief`, heights at pixel centres. */
function reliefTile(z: number, x: number, y: number): Uint8Array {
  const size = 256;
  const world = size * 2 ** z;
  const heights = new Float32Array(size * size);
  for (let j = 0; j < size; j++) {
    const lat = (Math.atan(Math.sinh(Math.PI * (1 - (2 * (y * size + j + 0.5)) / world))) * 180) / Math.PI;
    for (let i = 0; i < size; i++) heights[j * size + i] = relief(((x * size + i + 0.5) / world) * 360 - 180, lat);
  }
  return encodeDemTile(heights, size, "terrarium");
}

/** The raster-DEM source "d" of `relief`: 256-px Terrarium tiles made on demand. */
function reliefDem(): NonNullable<Scene["sources"]["dem"]> {
  const tiles = new Map<string, Uint8Array>();
  return {
    d: {
      encoding: "terrarium",
      tileSize: 256,
      maxzoom: 11,
      tile(z, x, y) {
        const key = `${z}/${x}/${y}`;
        if (!tiles.has(key)) tiles.set(key, reliefTile(z, x, y));
        return tiles.get(key)!;
      },
    },
  };
}

const RELIEF_VIEW: Scene["view"] = { center: [7.5, 46.5], zoom: 11, bearing: 20, width: 512, height: 512, pixelRatio: 1 };

/** Hillshade (MapLibre's defaults) of a raster-DEM over a grey background, turned 20° so the viewport light turns too. */
export function reliefScene(): Scene {
  return {
    name: "relief",
    view: RELIEF_VIEW,
    sources: { dem: reliefDem() },
    style: {
      version: 8,
      sources: { d: { type: "raster-dem" } },
      layers: [
        { id: "bg", type: "background", paint: { "background-color": "#a0a0a0" } },
        { id: "hills", type: "hillshade", source: "d" },
      ],
    } as StyleSpecification,
    // shades of grey, compared by level (see the comparison test)
    palette: Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`grey${i * 32}`, [[i * 32, i * 32, i * 32] as [number, number, number]]])),
  };
}

/**
 * The same relief coloured by elevation: a hypsometric ramp whose stops fall inside the view's 800-2300 m
 * (one of them translucent, and one interpolated in HCL), drawn at 0.8 opacity over a grey background.
 */
export function colorReliefScene(): Scene {
  return {
    ...reliefScene(),
    name: "color-relief",
    sources: { dem: reliefDem() },
    style: {
      version: 8,
      sources: { d: { type: "raster-dem" } },
      layers: [
        { id: "bg", type: "background", paint: { "background-color": "#a0a0a0" } },
        {
          id: "colours",
          type: "color-relief",
          source: "d",
          paint: {
            "color-relief-color": ["interpolate-hcl", ["linear"], ["elevation"], 800, "#1a9850", 1000, "#91cf60", 1300, "rgba(254, 224, 139, 0.4)", 1700, "#d73027", 2200, "#ffffff"],
            "color-relief-opacity": 0.8,
          },
        },
      ],
    } as unknown as StyleSpecification,
  };
}

/** color-relief whose colour is a step over elevation: MapLibre 6.17 reads ramp stops only from an interpolate. */
export function steppedColorReliefScene(): Scene {
  const scene = colorReliefScene();
  return {
    ...scene,
    name: "color-relief-step",
    style: {
      ...scene.style,
      layers: [
        scene.style.layers[0]!,
        { id: "colours", type: "color-relief", source: "d", paint: { "color-relief-color": ["step", ["elevation"], "#1a9850", 1300, "#d73027"] } },
      ],
    } as unknown as StyleSpecification,
  };
}

/** The relief hillshaded by another `hillshade-method`, with the layer's own paint (arrays of lights for "multidirectional"). */
export function hillshadeMethodScene(method: string, paint: Record<string, unknown> = {}): Scene {
  const scene = reliefScene();
  return {
    ...scene,
    name: `relief-${method}`,
    style: {
      ...scene.style,
      layers: [scene.style.layers[0]!, { id: "hills", type: "hillshade", source: "d", paint: { "hillshade-method": method, ...paint } }],
    } as unknown as StyleSpecification,
  };
}

/**
 * A raster source of colour gradients (256-px tiles up to zoom 3, magnified at 4.3 and turned 20°) with
 * MapLibre's colour adjustments: hue turned, colours desaturated, contrast raised, brightness squeezed.
 */
export function rasterColourScene(): Scene {
  const tiles = new Map<string, Uint8Array>();
  const tile = (z: number, x: number, y: number) => {
    const key = `${z}/${x}/${y}`;
    if (!tiles.has(key)) {
      const data = new Uint8Array(256 * 256 * 4);
      for (let py = 0; py < 256; py++)
        for (let px = 0; px < 256; px++) {
          // world-continuous gradients, so tile seams would show as steps
          const wx = (x * 256 + px) / (256 * 2 ** z);
          const wy = (y * 256 + py) / (256 * 2 ** z);
          data.set([Math.round(255 * ((wx * 4) % 1)), Math.round(255 * ((wy * 3) % 1)), Math.round(128 + 127 * Math.sin(wx * 40 + wy * 25)), 255], (py * 256 + px) * 4);
        }
      tiles.set(key, encodePng({ width: 256, height: 256, data }));
    }
    return tiles.get(key)!;
  };
  return {
    name: "raster-colour",
    view: { center: [10, 20], zoom: 4.3, bearing: 20, width: 512, height: 512, pixelRatio: 1 },
    sources: { raster: { r: { tile, tileSize: 256, maxzoom: 3 } } },
    style: {
      version: 8,
      sources: { r: { type: "raster" } },
      layers: [
        { id: "bg", type: "background", paint: { "background-color": "#a0a0a0" } },
        {
          id: "imagery",
          type: "raster",
          source: "r",
          paint: { "raster-hue-rotate": 90, "raster-saturation": -0.4, "raster-contrast": 0.3, "raster-brightness-min": 0.1, "raster-brightness-max": 0.9, "raster-opacity": 0.85 },
        },
      ],
    } as unknown as StyleSpecification,
    palette: {},
  };
}

/** A cluster of points (and a few strays) around 7.5, 46.5, each with a magnitude 0..6, made the same every time. */
function heatPoints(): GeoJSON.Feature[] {
  let seed = 12345;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const out: GeoJSON.Feature[] = [];
  for (let i = 0; i < 120; i++) {
    // a Gaussian-ish cluster: the mean of three uniforms
    const spread = i < 100 ? 0.35 : 2.5;
    const dx = (random() + random() + random() - 1.5) * spread;
    const dy = (random() + random() + random() - 1.5) * spread * 0.7;
    out.push(point(7.5 + dx, 46.5 + dy, { mag: Math.round(random() * 60) / 10 }));
  }
  return out;
}

/**
 * A heatmap as MapLibre's example styles one: weight by magnitude, radius and intensity by zoom, the
 * classic blue-to-red ramp transparent at density 0, over a dark background (where the ramp's fringe,
 * written as straight colour under premultiplied blending, shows).
 */
export function heatmapScene(): Scene {
  return {
    name: "heatmap",
    view: { center: [7.5, 46.5], zoom: 7.5, bearing: 0, width: 512, height: 384, pixelRatio: 1 },
    sources: { vector: { v: { maxzoom: 10, layers: { quakes: heatPoints() } } } },
    style: {
      version: 8,
      sources: { v: { type: "vector" } },
      layers: [
        { id: "bg", type: "background", paint: { "background-color": "#303030" } },
        {
          id: "heat",
          type: "heatmap",
          source: "v",
          "source-layer": "quakes",
          paint: {
            "heatmap-weight": ["interpolate", ["linear"], ["get", "mag"], 0, 0, 6, 1],
            "heatmap-intensity": ["interpolate", ["linear"], ["zoom"], 0, 1, 9, 3],
            "heatmap-color": ["interpolate", ["linear"], ["heatmap-density"], 0, "rgba(33,102,172,0)", 0.2, "rgb(103,169,207)", 0.4, "rgb(209,229,240)", 0.6, "rgb(253,219,199)", 0.8, "rgb(239,138,98)", 1, "rgb(178,24,43)"],
            "heatmap-radius": ["interpolate", ["linear"], ["zoom"], 0, 2, 9, 20],
            "heatmap-opacity": 0.9,
          },
        },
      ],
    } as unknown as StyleSpecification,
    palette: {},
  };
}

/**
 * A heatmap and circles over lines and polygons, which MapLibre draws at every vertex the tile holds (a
 * polygon ring's first vertex twice, as the tile closes the ring): a zigzag street and two blocks.
 */
export function vertexScene(): Scene {
  const zigzag = line(Array.from({ length: 7 }, (_, i) => [7 + i * 0.12, 46.4 + (i % 2) * 0.12] as [number, number]), { kind: "street" });
  return {
    name: "vertices",
    view: { center: [7.4, 46.5], zoom: 9, bearing: 0, width: 512, height: 384, pixelRatio: 1 },
    sources: { vector: { v: { maxzoom: 10, layers: { shapes: [zigzag, box(7.05, 46.6, 7.25, 46.72, { kind: "block" }), box(7.5, 46.55, 7.62, 46.65, { kind: "block" })] } } } },
    style: {
      version: 8,
      sources: { v: { type: "vector" } },
      layers: [
        { id: "bg", type: "background", paint: { "background-color": "#303030" } },
        {
          id: "heat",
          type: "heatmap",
          source: "v",
          "source-layer": "shapes",
          paint: {
            "heatmap-radius": 18,
            "heatmap-color": ["interpolate", ["linear"], ["heatmap-density"], 0, "rgba(33,102,172,0)", 0.3, "rgb(103,169,207)", 0.6, "rgb(253,219,199)", 1, "rgb(178,24,43)"],
          },
        },
        { id: "dots", type: "circle", source: "v", "source-layer": "shapes", filter: ["==", ["get", "kind"], "block"], paint: { "circle-radius": 4, "circle-color": "#ffffff", "circle-opacity": 0.6 } },
      ],
    } as unknown as StyleSpecification,
    palette: {},
  };
}

/**
 * Labels with sprite images inside their text (format's image sections) over white: images between
 * words, one alone, a 20-px image in 10-px text (the line grows to fit it), a missing image, and one
 * along a street. The test sprite's colours (red square, blue dot, green and yellow stripes) find them.
 */
export function inlineImageScene(): Scene {
  return {
    name: "inline-image",
    view: { center: [0, 0], zoom: 5, bearing: 0, width: 384, height: 256, pixelRatio: 1 },
    sources: {
      vector: {
        v: {
          maxzoom: 8,
          layers: {
            pts: [point(-2, 2, { name: "a" }), point(2, 2, { name: "b" }), point(-2, 0.3, { name: "c" }), point(2, 0.3, { name: "d" })],
            roads: [line([[-5, -1.9], [5, -1.3]], { name: "Main Street" })],
          },
        },
      },
    },
    style: {
      version: 8,
      sources: { v: { type: "vector" } },
      layers: [
        { id: "bg", type: "background", paint: { "background-color": "#ffffff" } },
        { id: "road", type: "line", source: "v", "source-layer": "roads", paint: { "line-color": "#d0d0d0", "line-width": 2 } },
        {
          id: "labels",
          type: "symbol",
          source: "v",
          "source-layer": "pts",
          layout: {
            "text-field": [
              "match",
              ["get", "name"],
              "a",
              ["format", "Ab ", {}, ["image", "stripes"], {}, " cd", {}],
              "b",
              ["format", ["image", "square"], {}, " A1", {}],
              "c",
              ["format", "Tall ", {}, ["image", "dot"], {}, "\nnext", {}],
              ["format", "Gone ", {}, ["image", "no-such-image"], {}, " x", {}],
            ],
            "text-font": FONT,
            "text-size": ["match", ["get", "name"], "c", 10, 16],
            "text-allow-overlap": true,
          },
          paint: { "text-color": "#000000" },
        },
        {
          id: "road-label",
          type: "symbol",
          source: "v",
          "source-layer": "roads",
          layout: {
            "symbol-placement": "line",
            "text-field": ["format", "Main ", {}, ["image", "square"], {}, " Street", {}],
            "text-font": FONT,
            "text-size": 14,
            "symbol-spacing": 1000,
          },
          paint: { "text-color": "#000000" },
        },
      ],
    } as unknown as StyleSpecification,
    palette: {},
  };
}
