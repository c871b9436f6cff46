// Turns a sprite upload into a sprite set. Accepted bodies (PUT .../styles/{st}/sprite):
//   application/zip                 a zip of SVG icons (icon name = file name without .svg)
//   image/svg+xml ?name=icon        one SVG icon
//   multipart/form-data             SVG files, or one zip, or a ready pair sprite.json + sprite.png
//                                   (optionally sprite@2x.json + sprite@2x.png)
import { UnsupportedMediaType, BadRequest } from "../errors";
import { buildSprite, iconName, SpriteInputError, type SpriteSet, type SvgIcon } from "../sprites/build";
import { svgIconsFromZip } from "../sprites/unzip";
import { checkReadySheet } from "../sprites/ready-pair";
import { readBodyLimited } from "./read-body";

export const MAX_SPRITE_UPLOAD_BYTES = 64 * 1024 * 1024;

const isZip = (b: Uint8Array) => b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 3 && b[3] === 4;

export async function spriteFromUpload(request: Request, query: { name?: string }): Promise<{ set: SpriteSet; source: "svg" | "ready" }> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  const body = await readBodyLimited(request, MAX_SPRITE_UPLOAD_BYTES, "A sprite upload");
  if (body.length === 0) throw new BadRequest("The upload is empty: send a zip of SVG icons, one SVG, or sprite.json + sprite.png as multipart/form-data");
  try {
    if (type === "application/zip" || type === "application/x-zip-compressed" || (type === "application/octet-stream" && isZip(body)))
      return { set: await buildSprite(svgIconsFromZip(body)), source: "svg" };
    if (type === "image/svg+xml") {
      if (!query.name) throw new BadRequest("Query parameter 'name' is required for a single SVG upload (the icon name)");
      return { set: await buildSprite([{ name: iconName(query.name, true), bytes: body }]), source: "svg" };
    }
    if (type === "multipart/form-data") return await fromMultipart(request.headers.get("content-type")!, body);
  } catch (err) {
    if (err instanceof SpriteInputError) throw new BadRequest(`Sprite upload refused: ${err.message}`);
    throw err;
  }
  throw new UnsupportedMediaType(
    `Content-Type '${type || "(none)"}' is not a sprite upload: send application/zip, image/svg+xml (with ?name=) or multipart/form-data`,
  );
}

/**
 * A ready sprite sheet among the files: `NAME.json` + `NAME.png`, and/or `NAME@2x.json` + `NAME@2x.png`,
 * one NAME for all (sprite.json, icons.json, whatever the tool that made it called it). Null when no
 * file is a .json or .png; a refusal naming the problem when they do not make one sheet.
 */
function readySheetFiles(names: string[]): { base: string; byKey: Map<string, string> } | null {
  const sheet = names.filter((n) => /\.(json|png)$/i.test(n));
  if (!sheet.length) return null;
  const bases = [...new Set(sheet.map((n) => n.replace(/(@2x)?\.(json|png)$/i, "")))];
  if (bases.length > 1) throw new SpriteInputError(`send one sprite sheet: its .json and .png (and @2x pair) share one name, but these name ${bases.length}: ${bases.map((b) => `'${b}'`).join(", ")}`);
  const base = bases[0]!;
  const extra = names.find((n) => !sheet.includes(n));
  if (extra) throw new SpriteInputError(`unexpected file '${extra}' next to ${base}.json/${base}.png`);
  return { base, byKey: new Map(sheet.map((n) => [n.slice(base.length).toLowerCase(), n])) };
}

async function fromMultipart(contentType: string, body: Uint8Array): Promise<{ set: SpriteSet; source: "svg" | "ready" }> {
  let form: FormData;
  try {
    form = await new Response(body as Uint8Array<ArrayBuffer>, { headers: { "content-type": contentType } }).formData();
  } catch {
    throw new BadRequest("The multipart body could not be parsed");
  }
  const files = new Map<string, Uint8Array>();
  for (const [field, entry] of form.entries()) {
    if (typeof entry === "string") continue;
    const value = entry as unknown as File;
    const name = (value.name || field).split(/[\\/]/).pop()!;
    if (files.has(name)) throw new SpriteInputError(`file '${name}' was sent twice`);
    files.set(name, new Uint8Array(await value.arrayBuffer()));
  }
  if (files.size === 0) throw new SpriteInputError("the multipart body holds no files");
  const names = [...files.keys()];
  if (names.some((n) => n.toLowerCase().endsWith(".zip"))) {
    if (files.size !== 1) throw new SpriteInputError("send one zip, or SVG files, not both");
    return { set: await buildSprite(svgIconsFromZip(files.values().next().value!)), source: "svg" };
  }
  const sheet = readySheetFiles(names);
  if (sheet) {
    const file = (suffix: string) => (sheet.byKey.has(suffix) ? files.get(sheet.byKey.get(suffix)!)! : null);
    const [json1, png1, json2, png2] = [file(".json"), file(".png"), file("@2x.json"), file("@2x.png")];
    const b = sheet.base;
    if (!json1 !== !png1) throw new SpriteInputError(`a ready sprite needs both ${b}.json and ${b}.png`);
    if (!json2 !== !png2) throw new SpriteInputError(`send ${b}@2x.json and ${b}@2x.png together, or neither`);
    const one = json1 && png1 ? checkReadySheet(b, json1, png1) : null;
    const two = json2 && png2 ? checkReadySheet(`${b}@2x`, json2, png2) : null;
    // With one pair only, it serves both: its pixelRatio tells MapLibre how to scale it.
    return { set: { "1x": (one ?? two)!, "2x": (two ?? one)! }, source: "ready" };
  }
  const icons: SvgIcon[] = [];
  for (const [name, bytes] of files) {
    if (!/\.svg$/i.test(name)) throw new SpriteInputError(`file '${name}' is not an .svg, a .zip or a ready sheet's .json/.png`);
    icons.push({ name: iconName(name), bytes });
  }
  return { set: await buildSprite(icons), source: "svg" };
}
