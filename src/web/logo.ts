// The Mapstead mark (a map pin over a folded map) and the favicon made from it. The icon is drawn once,
// on first request, with the resvg already in the binary, and wrapped in an ICO container (an ICO may hold
// a PNG), so /favicon.ico works for every browser without a separate asset file.
import { encodePng } from "../sprites/png";
import { rasterize, resvgReady } from "../sprites/rasterize";

export const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32">
<path d="M3 8l8-3 10 3 8-3v19l-8 3-10-3-8 3z" fill="#dbe9f6" stroke="#0969da" stroke-width="1.5" stroke-linejoin="round"/>
<path d="M16 4a7 7 0 0 0-7 7c0 5 7 13 7 13s7-8 7-13a7 7 0 0 0-7-7z" fill="#0969da"/>
<circle cx="16" cy="11" r="2.6" fill="#fff"/>
</svg>`;

/** An ICO file holding one 32x32 PNG. */
function icoOf(png: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(6 + 16 + png.length);
  const view = new DataView(out.buffer);
  view.setUint16(2, 1, true); // type: icon
  view.setUint16(4, 1, true); // one image
  out[6] = 32; // width
  out[7] = 32; // height
  view.setUint16(10, 1, true); // colour planes
  view.setUint16(12, 32, true); // bits per pixel
  view.setUint32(14, png.length, true);
  view.setUint32(18, 22, true); // offset of the image
  out.set(png, 22);
  return out;
}

let favicon: Promise<Uint8Array<ArrayBuffer>> | null = null;

export function faviconIco(): Promise<Uint8Array<ArrayBuffer>> {
  favicon ??= resvgReady().then(() => icoOf(encodePng(rasterize(LOGO_SVG, 1))));
  return favicon;
}
