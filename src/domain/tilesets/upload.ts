// Receives an upload body straight to a temp file under DATA_DIR/uploads, counting bytes: over
// MAX_UPLOAD_MB the file is removed and the answer is 413. Raw bodies (curl --data-binary) and
// multipart/form-data (a file part plus optional recipe fields) are both accepted.
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { BadRequest, PayloadTooLarge } from "../../errors";
import { boundaryOf, readMultipart } from "./multipart";

export interface ReceivedUpload {
  /** absolute path of the temp file */
  path: string;
  /** relative to DATA_DIR */
  relativePath: string;
  bytes: number;
  filename: string | null;
  contentType: string | null;
  /** text fields of a multipart body */
  fields: Record<string, string>;
}

export async function receiveUpload(request: Request, dataDir: string, maxUploadMb: number): Promise<ReceivedUpload> {
  const limit = maxUploadMb * 1024 * 1024;
  const dir = join(dataDir, "uploads");
  mkdirSync(dir, { recursive: true });
  const name = `${crypto.randomUUID()}.upload`;
  const path = join(dir, name);
  const tooLarge = () => new PayloadTooLarge(`Upload is over MAX_UPLOAD_MB (${maxUploadMb} MiB)`);
  const contentType = request.headers.get("content-type");
  const fields: Record<string, string> = {};
  let filename: string | null = null;
  let partType: string | null = null;
  let bytes = 0;
  const writer = Bun.file(path).writer({ highWaterMark: 1024 * 1024 });
  let closed = false;
  const close = async () => {
    if (!closed) {
      closed = true;
      await writer.end();
    }
  };
  try {
    if (!request.body) throw new BadRequest("The upload body is empty: send the file as the request body or as a multipart 'file' part");
    if (contentType?.toLowerCase().startsWith("multipart/form-data")) {
      const boundary = boundaryOf(contentType);
      if (!boundary) throw new BadRequest("Content-Type multipart/form-data needs a boundary parameter");
      let files = 0;
      await readMultipart(
        request.body,
        boundary,
        {
          file(_field, fn, ct) {
            if (++files > 1) throw new BadRequest("Send one file per upload");
            filename = fn || null;
            partType = ct;
            return {
              write(chunk) {
                bytes += chunk.length;
                writer.write(chunk);
              },
            };
          },
          field(n, v) {
            fields[n] = v;
          },
        },
        (total) => {
          if (total > limit) throw tooLarge();
        },
      );
      if (!files) throw new BadRequest("The multipart body has no file part; add the data as a part with a filename (curl -F file=@data.geojson)");
    } else {
      const reader = request.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.length;
        if (bytes > limit) {
          await reader.cancel().catch(() => {});
          throw tooLarge();
        }
        writer.write(value);
      }
      const disposition = request.headers.get("content-disposition");
      filename = disposition ? (/filename="?([^";]+)"?/i.exec(disposition)?.[1] ?? null) : null;
    }
    await close();
    if (bytes === 0) throw new BadRequest("The upload body is empty: send the file as the request body or as a multipart 'file' part");
    return { path, relativePath: join("uploads", name), bytes, filename, contentType: partType ?? contentType, fields };
  } catch (err) {
    await close().catch(() => {});
    rmSync(path, { force: true });
    throw err;
  }
}

/** The first bytes of a file, for format detection. */
export async function headOf(path: string, n = 64 * 1024): Promise<Uint8Array> {
  return new Uint8Array(await Bun.file(path).slice(0, n).arrayBuffer());
}
