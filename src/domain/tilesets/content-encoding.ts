// Request bodies sent with Content-Encoding (RFC 9110 section 8.4). gzip (x-gzip) and deflate are decoded
// as the body streams, so whoever reads it counts decoded bytes and its size limit holds for them (a small
// gzip bomb meets MAX_UPLOAD_MB like any large upload); a body that does not decode is a 400 naming the
// coding, and any other coding (br, zstd, compress, ...) a 415 naming it and the ones read here, instead
// of bytes read as if the header were absent and misdiagnosed later. No header, or `identity`: the body
// as sent.
import { BadRequest, UnsupportedMediaType } from "../../errors";

const DECODERS: Record<string, CompressionFormat> = { gzip: "gzip", "x-gzip": "gzip", deflate: "deflate" };

export interface DecodedBody {
  body: ReadableStream<Uint8Array>;
  /** the codings decoded, as the header names them ("gzip"); null when the body came as it is */
  coding: string | null;
}

/** The codings to undo, in the order they were applied; throws 415 at the first one not read here. */
function codingsOf(header: string | null): string[] {
  if (!header) return [];
  const codings = header
    .split(",")
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== "" && c !== "identity");
  for (const c of codings)
    if (!DECODERS[c]) throw new UnsupportedMediaType(`Content-Encoding ${c.slice(0, 40)} is not supported; send the body uncompressed or with Content-Encoding gzip or deflate`);
  return codings;
}

/** `stream` with a decoding failure turned into a 400 that names the coding (client errors stay client errors). */
function refusingUndecodable(stream: ReadableStream<Uint8Array>, coding: string): ReadableStream<Uint8Array> {
  const reader = stream.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (err) {
        controller.error(new BadRequest(`The upload body does not decode as Content-Encoding: ${coding} (${(err as Error).message}); send it compressed as the header says, or without the header`));
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/**
 * The request body with its Content-Encoding undone, streaming; null when there is no body. Throws 415
 * for a coding not read here before any byte is read.
 */
export function decodedBody(request: Request): DecodedBody | null {
  const codings = codingsOf(request.headers.get("content-encoding"));
  if (!request.body) return null;
  if (!codings.length) return { body: request.body, coding: null };
  // Applied first is listed first (RFC 9110): undone last.
  let body: ReadableStream<Uint8Array> = request.body;
  for (const c of [...codings].reverse()) body = body.pipeThrough(new DecompressionStream(DECODERS[c]!) as unknown as ReadableWritablePair<Uint8Array, Uint8Array>);
  const coding = codings.join(", ");
  return { body: refusingUndecodable(body, coding), coding };
}
