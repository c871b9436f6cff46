// Every change to something published that a cache may hold. Plain data: it is stored as JSON in
// change_log and read back by other processes' watchers.

export type Change =
  /** published, unpublished, version ready or deleted, visibility/attribution/settings edited, deleted */
  | {
      kind: "tileset";
      owner: string;
      slug: string;
      /** set by a publish (the version) or an unpublish (null), so the server can log it, whoever did it */
      published?: number | null;
    }
  /** draft saved, sprite changed, published, unpublished, settings edited, deleted */
  | { kind: "style"; owner: string; slug: string }
  /** a font was installed or removed */
  | { kind: "fonts" }
  /** an API key was revoked, edited or deleted */
  | { kind: "key"; keyId: number }
  /** a user was disabled, enabled, deleted, given a new password, granted or denied instance admin, or had sessions ended */
  | { kind: "user"; userId: number }
  /** an import changed the embedded gazetteer (DATA_DIR/gazetteer.sqlite) */
  | { kind: "gazetteer" }
  /** an admin chose (or cleared) the DEM tileset of embedded elevation in the console */
  | { kind: "elevation" };

export type ChangeListener = (change: Change) => void;

/** What a write needs of the bus: record the change with the write and tell the listeners. */
export interface ChangePublisher {
  /** the write and its change in one transaction */
  commit<T>(change: Change, write: () => T): T;
  /** the change alone, inside a transaction the caller holds */
  publish(change: Change): void;
}
