// Small SVG icons and zips for sprite tests.
import { zipSync } from "fflate";

export const enc = (s: string) => new TextEncoder().encode(s);

export const squareSvg = (color: string, size = 16) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${size} ${size}"><rect width="${size}" height="${size}" fill="${color}"/></svg>`;

export const pinSvg = `<svg xmlns="http://www.w3.org/2000/svg" width="20" height="24" viewBox="0 0 20 24"><path d="M10 0C4.5 0 0 4.4 0 9.8 0 17.2 10 24 10 24s10-6.8 10-14.2C20 4.4 15.5 0 10 0z" fill="#e0218a"/><circle cx="10" cy="10" r="4" fill="#fff"/></svg>`;

export function zipOf(files: Record<string, string | Uint8Array>): Uint8Array {
  const entries: Record<string, Uint8Array> = {};
  for (const [name, content] of Object.entries(files)) entries[name] = typeof content === "string" ? enc(content) : content;
  return zipSync(entries);
}
