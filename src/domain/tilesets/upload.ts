// Receives an upload body straight to a temp file under DATA_DIR/uploads, counting bytes: over
// MAX_UPLOAD_MB the file is removed and the answer is 413. Raw bodies (curl --data-binary) and
// multipart/form-data (file parts plus optional recipe fields) are both accepted; several file parts
// (one layer each) land in a directory of their own.
import { mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { BadRequest, PayloadTooLarge } from "../../errors";
import { boundaryOf, readMultipart } from "./multipart";
import { decodedBody } from "./content-encoding";
import { untilOverdue } from "./upload-stopping";
import { storageFacts } from "../health/storage";
import { refuseUploadWithoutRoom } from "../health/storage-errors";

/** One file of a multi-file upload, stored under the upload's directory. */
export interface UploadedFile {
  /** the name inside the upload directory */
  stored: string;
  /** the name it was sent with */
  name: string;
  contentType: string | null;
}

export const MAX_FILES = 32;

/** A file name safe to keep inside the upload directory, unique by its position. */
export const storedName = (i: number, name: string) => `${String(i).padStart(2, "0")}-${name.replace(/^.*[\\/]/, "").replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 100)}`;

export interface ReceivedUpload {
  /** absolute path of the temp file (of the directory holding `files`) */
  path: string;
  /** relative to DATA_DIR */
  relativePath: string;
  bytes: number;
  filename: string | null;
  contentType: string | null;
  /** text fields of a multipart body */
  fields: Record<string, string>;
  /** set when several files came: each one layer, stored under `path` */
  files?: UploadedFile[];
}

export async function receiveUpload(request: Request, dataDir: string, maxUploadMb: number, overdue?: AbortSignal): Promise<ReceivedUpload> {
  // Content-Encoding undone as it streams (415 for a coding not read, before anything is written): every
  // count below is of decoded bytes. A server stopping that runs out of time for it ends it with 503.
  const body = decodedBody(request);
  const decoded = body && { ...body, body: untilOverdue(body.body, overdue) };
  const limit = maxUploadMb * 1024 * 1024;
  const dir = join(dataDir, "uploads");
  mkdirSync(dir, { recursive: true });
  refuseUploadWithoutRoom(storageFacts(dataDir).freeBytes, Number(request.headers.get("content-length")));
  const name = `${crypto.randomUUID()}.upload`;
  const path = join(dir, name);
  const tooLarge = () => new PayloadTooLarge(`Upload is over MAX_UPLOAD_MB (${maxUploadMb} MiB)${decoded?.coding ? ` once decoded from Content-Encoding ${decoded.coding}` : ""}`);
  const contentType = request.headers.get("content-type");
  const fields: Record<string, string> = {};
  let filename: string | null = null;
  let partType: string | null = null;
  let bytes = 0;
  let writer = Bun.file(path).writer({ highWaterMark: 1024 * 1024 });
  let closed = false;
  const close = async () => {
    if (!closed) {
      closed = true;
      await writer.end();
    }
  };
  // Several file parts: the first one moves into a directory of its own, next to the later ones.
  const files: UploadedFile[] = [];
  const dirPath = `${path}.d`;
  const nextFile = async (name: string, contentType: string | null) => {
    if (files.length >= 1) {
      await close();
      if (files.length === 1) {
        mkdirSync(dirPath, { recursive: true });
        renameSync(path, join(dirPath, files[0]!.stored));
      }
      const stored = storedName(files.length, name);
      writer = Bun.file(join(dirPath, stored)).writer({ highWaterMark: 1024 * 1024 });
      closed = false;
    }
    files.push({ stored: storedName(files.length, name), name, contentType });
  };
  try {
    if (!decoded) throw new BadRequest("The upload body is empty: send the file as the request body or as a multipart 'file' part");
    if (contentType?.toLowerCase().startsWith("multipart/form-data")) {
      const boundary = boundaryOf(contentType);
      if (!boundary) throw new BadRequest("Content-Type multipart/form-data needs a boundary parameter");
      await readMultipart(
        decoded.body,
        boundary,
        {
          async file(_field, fn, ct) {
            if (files.length >= MAX_FILES) throw new BadRequest(`Send at most ${MAX_FILES} files per upload`);
            if (files.length && !fn) throw new BadRequest("Every file part of a multi-file upload needs a filename: it names the layer");
            await nextFile(fn || "upload", ct);
            if (files.length === 1) {
              filename = fn || null;
              partType = ct;
            }
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
      if (!files.length) throw new BadRequest("The multipart body has no file part; add the data as a part with a filename (curl -F file=@data.geojson)");
    } else {
      const reader = decoded.body.getReader();
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
    if (files.length > 1) return { path: dirPath, relativePath: join("uploads", `${name}.d`), bytes, filename: null, contentType: null, fields, files };
    return { path, relativePath: join("uploads", name), bytes, filename, contentType: partType ?? contentType, fields };
  } catch (err) {
    await close().catch(() => {});
    rmSync(path, { force: true });
    rmSync(dirPath, { recursive: true, force: true });
    throw err;
  }
}

/** The first bytes of a file, for format detection. */
export async function headOf(path: string, n = 64 * 1024): Promise<Uint8Array> {
  return new Uint8Array(await Bun.file(path).slice(0, n).arrayBuffer());
}
