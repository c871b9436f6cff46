// A streaming multipart/form-data reader: the file part goes to a sink chunk by chunk (never whole in
// memory), small text fields are collected. Enough of RFC 7578 for browsers, curl -F and HTTP clients.
import { BadRequest } from "../../errors";

export interface MultipartHandlers {
  /** a file part begins; returns the sink for its bytes */
  file(name: string, filename: string, contentType: string | null): { write(chunk: Uint8Array): void | Promise<void> } | Promise<{ write(chunk: Uint8Array): void | Promise<void> }>;
  /** a text field ended */
  field(name: string, value: string): void;
}

const MAX_FIELD_BYTES = 64 * 1024;
const MAX_HEADER_BYTES = 16 * 1024;
const CRLFCRLF = Buffer.from("\r\n\r\n");

export function boundaryOf(contentType: string): string | null {
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m ? (m[1] ?? m[2] ?? null) : null;
}

function parseHeaders(block: string): { name: string; filename: string | null; contentType: string | null } {
  let name = "";
  let filename: string | null = null;
  let contentType: string | null = null;
  for (const line of block.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === "content-disposition") {
      name = /\bname="([^"]*)"/i.exec(value)?.[1] ?? /\bname=([^;\s]+)/i.exec(value)?.[1] ?? "";
      const fn = /\bfilename="([^"]*)"/i.exec(value)?.[1] ?? /\bfilename=([^;\s]+)/i.exec(value)?.[1];
      if (fn !== undefined) filename = fn;
    } else if (key === "content-type") contentType = value;
  }
  return { name, filename, contentType };
}

/** Reads the whole body; `onBytes` sees the running total (to enforce a size limit). */
export async function readMultipart(body: ReadableStream<Uint8Array>, boundary: string, handlers: MultipartHandlers, onBytes: (total: number) => void): Promise<void> {
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  // The first delimiter has no CRLF before it; pretend it had.
  let buf: Buffer = Buffer.from("\r\n");
  let phase: "preamble" | "headers" | "field" | "file" | "done" = "preamble";
  let total = 0;
  let fieldName = "";
  let fieldChunks: Buffer[] = [];
  let fieldBytes = 0;
  let sink: { write(chunk: Uint8Array): void | Promise<void> } | null = null;

  const emit = async (bytes: Buffer) => {
    if (!bytes.length) return;
    if (phase === "file") await sink!.write(bytes);
    else if (phase === "field") {
      fieldBytes += bytes.length;
      if (fieldBytes > MAX_FIELD_BYTES) throw new BadRequest(`Multipart field '${fieldName}' is over ${MAX_FIELD_BYTES / 1024} KiB`);
      fieldChunks.push(bytes);
    }
  };

  const process = async (final: boolean) => {
    for (;;) {
      if (phase === "done") return;
      if (phase === "preamble" || phase === "field" || phase === "file") {
        const at = buf.indexOf(delimiter);
        if (at < 0) {
          const keep = Math.min(buf.length, delimiter.length + 1);
          if (phase !== "preamble") await emit(buf.subarray(0, buf.length - keep));
          buf = buf.subarray(buf.length - keep);
          if (final) throw new BadRequest("The multipart body ends before its closing boundary (truncated upload?)");
          return;
        }
        if (buf.length < at + delimiter.length + 2) {
          if (final) throw new BadRequest("The multipart body ends inside a boundary (truncated upload?)");
          return;
        }
        if (phase !== "preamble") await emit(buf.subarray(0, at));
        if (phase === "field") handlers.field(fieldName, Buffer.concat(fieldChunks).toString("utf8"));
        const after = buf.subarray(at + delimiter.length, at + delimiter.length + 2).toString("latin1");
        buf = buf.subarray(at + delimiter.length + 2);
        sink = null;
        if (after === "--") {
          phase = "done";
          return;
        }
        phase = "headers";
      }
      if (phase === "headers") {
        const end = buf.indexOf(CRLFCRLF);
        if (end < 0) {
          if (buf.length > MAX_HEADER_BYTES) throw new BadRequest("A multipart part's headers are too long");
          if (final) throw new BadRequest("The multipart body ends inside part headers (truncated upload?)");
          return;
        }
        const h = parseHeaders(buf.subarray(0, end).toString("utf8"));
        buf = buf.subarray(end + 4);
        if (h.filename !== null) {
          sink = await handlers.file(h.name, h.filename, h.contentType);
          phase = "file";
        } else {
          fieldName = h.name;
          fieldChunks = [];
          fieldBytes = 0;
          phase = "field";
        }
      }
    }
  };

  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    onBytes(total);
    buf = buf.length ? Buffer.concat([buf, value]) : Buffer.from(value);
    await process(false);
  }
  await process(true);
}
