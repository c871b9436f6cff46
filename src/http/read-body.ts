// Reads a whole request body into memory for the small uploads that need it (fonts, sprites),
// refusing it with 413 as soon as it passes the limit, whether or not Content-Length was declared.
// A Content-Encoding is undone as it streams (content-encoding.ts): the limit holds for decoded bytes.
import { PayloadTooLarge } from "../errors";
import { decodedBody } from "../domain/tilesets/content-encoding";

export async function readBodyLimited(request: Request, limit: number, what: string): Promise<Uint8Array> {
  const decoded = decodedBody(request);
  const tooLarge = () => new PayloadTooLarge(`${what} may be at most ${Math.round(limit / 1024 / 1024)} MiB${decoded?.coding ? ` once decoded from Content-Encoding ${decoded.coding}` : ""}`);
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  if (!decoded) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = decoded.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}
