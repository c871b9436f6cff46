// SVG icons come from users and are untrusted. Before one reaches the rasterizer it must be a
// self-contained SVG document: no DOCTYPE or entities (billion laughs, external entities), no <image>,
// <script> or <foreignObject>, no href or url() pointing anywhere but inside the document itself, no
// CSS @import. resvg-wasm cannot reach the file system or network anyway; refusing these up front
// turns a silently blank icon into a clear error.

export const MAX_SVG_BYTES = 1024 * 1024;

export class UnsafeSvg extends Error {}

const FORBIDDEN_ELEMENTS = ["image", "script", "foreignObject", "iframe", "embed", "object", "audio", "video"];

/** Returns the SVG text or throws UnsafeSvg with the reason. */
export function checkSvg(bytes: Uint8Array): string {
  if (bytes.length === 0) throw new UnsafeSvg("the file is empty");
  if (bytes.length > MAX_SVG_BYTES) throw new UnsafeSvg(`the file is ${bytes.length} bytes, over the ${MAX_SVG_BYTES} byte limit per SVG`);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new UnsafeSvg("the file is not UTF-8 text");
  }
  if (text.includes("\u0000")) throw new UnsafeSvg("the file contains NUL bytes");
  if (/<!DOCTYPE/i.test(text)) throw new UnsafeSvg("DOCTYPE declarations are not allowed");
  if (/<!ENTITY/i.test(text)) throw new UnsafeSvg("ENTITY declarations are not allowed");
  if (/<\?xml-stylesheet/i.test(text)) throw new UnsafeSvg("external stylesheets are not allowed");
  if (!/<svg[\s>]/i.test(text.replace(/<[a-z][\w.-]*:svg[\s>]/gi, "<svg "))) throw new UnsafeSvg("no <svg> element found");
  for (const name of FORBIDDEN_ELEMENTS) {
    if (new RegExp(`<(?:[\\w.-]+:)?${name}[\\s>/]`, "i").test(text)) throw new UnsafeSvg(`<${name}> elements are not allowed`);
  }
  // href="..." / xlink:href='...' / any-prefix:href: only same-document fragments are allowed.
  for (const m of text.matchAll(/(?:^|[\s"'])((?:[\w.-]+:)?href)\s*=\s*("([^"]*)"|'([^']*)')/gi)) {
    const value = (m[3] ?? m[4] ?? "").trim();
    if (!value.startsWith("#")) throw new UnsafeSvg(`${m[1]}="${truncate(value)}" points outside the document; only #fragment references are allowed`);
  }
  // url(...) in attributes and styles: only url(#id).
  for (const m of text.matchAll(/url\s*\(\s*(['"]?)([^)'"]*)\1\s*\)/gi)) {
    if (!m[2]!.trim().startsWith("#")) throw new UnsafeSvg(`url(${truncate(m[2]!)}) points outside the document; only url(#id) is allowed`);
  }
  if (/@import/i.test(text)) throw new UnsafeSvg("CSS @import is not allowed");
  return text;
}

const truncate = (s: string) => (s.length > 60 ? s.slice(0, 57) + "..." : s);
