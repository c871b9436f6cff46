// Reads a whole request body into memory for the small uploads that need it (fonts, sprites),
// refusing it with 413 as soon as it passes the limit, whether or not Content-Length was declared.
import { PayloadTooLarge } from "../errors";

export async function readBodyLimited(request: Request, limit: number, what: string): Promise<Uint8Array> {
  const tooLarge = () => new PayloadTooLarge(`${what} may be at most ${Math.round(limit / 1024 / 1024)} MiB`);
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  if (!request.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
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
