// The pixel width of a PNG, JPEG or WebP image from its header, without decoding it: what an imported
// raster archive's TileJSON needs for `tileSize` (MapLibre assumes 512 when it is missing, so GDAL's
// 256-px tiles showed a zoom too coarse).

/** The image's width in pixels, or null when the header is not one of the three formats. */
export function imageWidth(b: Uint8Array): number | null {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  // PNG: the signature, then the IHDR chunk (width at byte 16, big-endian).
  if (b.length >= 24 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return view.getUint32(16);
  // JPEG: walk the segments to a start-of-frame (SOF0-SOF15 but DHT, JPG and DAC).
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
    let at = 2;
    while (at + 9 < b.length) {
      if (b[at] !== 0xff) return null;
      const marker = b[at + 1]!;
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return view.getUint16(at + 7);
      at += 2 + view.getUint16(at + 2);
    }
    return null;
  }
  // WebP: RIFF....WEBP, then a VP8 (lossy), VP8L (lossless) or VP8X (extended) chunk.
  if (b.length >= 30 && String.fromCharCode(...b.subarray(0, 4)) === "RIFF" && String.fromCharCode(...b.subarray(8, 12)) === "WEBP") {
    const chunk = String.fromCharCode(...b.subarray(12, 16));
    if (chunk === "VP8 ") return view.getUint16(26, true) & 0x3fff;
    if (chunk === "VP8L") return 1 + ((b[21]! | (b[22]! << 8)) & 0x3fff);
    if (chunk === "VP8X") return 1 + (b[24]! | (b[25]! << 8) | (b[26]! << 16));
  }
  return null;
}
