// The font catalog: the `fonts` table (built-ins inserted idempotently, uploads added by the fonts
// service) read into memory once and re-read when the change bus says fonts changed, in this process
// or in another one such as `mapstead fonts add` (through the bus's watcher).
import { join } from "node:path";
import type { AppContext } from "../../context";
import { BUILTIN_FONTS } from "./builtin";
import type { ChangeBus } from "../changes/bus";

export interface FontEntry {
  id: number;
  name: string;
  builtin: boolean;
  /** absolute path of the font file (embedded for built-ins) */
  path: string;
  createdAt: number;
}

export class FontCatalog {
  private entries = new Map<string, FontEntry>();
  private nameSet = new Set<string>();
  private gen = 0;

  constructor(
    private readonly ctx: AppContext,
    changes: ChangeBus,
  ) {
    const insert = ctx.sqlite.query<unknown, [string, number]>("INSERT INTO fonts (name, file_path, builtin, created_at) VALUES (?, NULL, 1, ?) ON CONFLICT (name) DO NOTHING");
    ctx.sqlite.transaction(() => {
      for (const f of BUILTIN_FONTS) insert.run(f.name, Date.now());
    })();
    this.load();
    changes.on((change) => {
      if (change.kind === "fonts") this.load();
    });
  }

  private load(): void {
    const rows = this.ctx.sqlite
      .query<{ id: number; name: string; file_path: string | null; builtin: number; created_at: number }, []>("SELECT id, name, file_path, builtin, created_at FROM fonts ORDER BY name")
      .all();
    const builtinPaths = new Map(BUILTIN_FONTS.map((f) => [f.name, f.path]));
    const entries = new Map<string, FontEntry>();
    for (const r of rows) {
      const path = r.file_path ? join(this.ctx.config.dataDir, r.file_path) : builtinPaths.get(r.name);
      // A built-in row left by a binary that embedded other fonts has nothing to serve: skip it.
      if (!path) continue;
      entries.set(r.name, { id: r.id, name: r.name, builtin: r.builtin === 1, path, createdAt: r.created_at });
    }
    this.entries = entries;
    this.nameSet = new Set(entries.keys());
    this.gen++;
  }

  /** Bumps whenever the set of fonts changes; part of every cache key derived from the catalog. */
  get generation(): number {
    return this.gen;
  }

  get(name: string): FontEntry | undefined {
    return this.entries.get(name);
  }

  names(): Set<string> {
    return this.nameSet;
  }

  list(): FontEntry[] {
    return [...this.entries.values()];
  }
}
