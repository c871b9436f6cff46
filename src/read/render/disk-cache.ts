// Rendered images of versioned styles on disk (DATA_DIR/render-cache/), so immutable raster tiles and
// static images survive restarts and are drawn once. Files are named by a SHA-256 of everything that
// decides the pixels, written to a temp name and renamed (a reader never sees half a file), and the
// oldest are deleted once the directory grows past its budget.
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export class DiskImageCache {
  private bytes: number | null = null;

  constructor(
    private readonly dir: string,
    private readonly maxBytes: number,
    private readonly onError: (message: string) => void = () => {},
  ) {}

  private pathOf(key: string): string {
    const hash = createHash("sha256").update(key).digest("hex");
    return join(this.dir, hash.slice(0, 2), `${hash.slice(2)}.img`);
  }

  async get(key: string): Promise<Uint8Array | null> {
    const file = Bun.file(this.pathOf(key));
    try {
      return (await file.exists()) ? await file.bytes() : null;
    } catch {
      return null;
    }
  }

  set(key: string, bytes: Uint8Array): void {
    const path = this.pathOf(key);
    const tmp = `${path}.tmp-${randomBytes(4).toString("hex")}`;
    try {
      mkdirSync(join(path, ".."), { recursive: true });
      writeFileSync(tmp, bytes);
      renameSync(tmp, path);
    } catch (err) {
      // A full or read-only disk costs the cache, never the answer.
      rmSync(tmp, { force: true });
      this.onError(`render cache write failed: ${(err as Error).message}`);
      return;
    }
    this.bytes = (this.bytes ?? this.scan().reduce((n, f) => n + f.size, 0)) + bytes.length;
    if (this.bytes > this.maxBytes) this.trim();
  }

  private scan(): { path: string; size: number; mtime: number }[] {
    const files: { path: string; size: number; mtime: number }[] = [];
    let dirs: string[] = [];
    try {
      dirs = readdirSync(this.dir);
    } catch {
      return files;
    }
    for (const d of dirs)
      for (const name of readdirSync(join(this.dir, d))) {
        const path = join(this.dir, d, name);
        const s = statSync(path, { throwIfNoEntry: false });
        if (s?.isFile()) files.push({ path, size: s.size, mtime: s.mtimeMs });
      }
    return files;
  }

  /** Deletes the oldest files until the cache is at three quarters of its budget. */
  private trim(): void {
    const files = this.scan().sort((a, b) => a.mtime - b.mtime);
    let total = files.reduce((n, f) => n + f.size, 0);
    for (const f of files) {
      if (total <= this.maxBytes * 0.75) break;
      rmSync(f.path, { force: true });
      total -= f.size;
    }
    this.bytes = total;
  }
}
