// The whole database in one place. Times are Unix epoch milliseconds (integers) unless named *_day.
// After changing this file run `bun run db:generate`: it rewrites drizzle/ and the embedded migration list.
import { sqliteTable, text, integer, real, primaryKey, uniqueIndex, index } from "drizzle-orm/sqlite-core";

const now = () => Date.now();

/** Small key/value facts about this installation (setup token hash, instance id ...). */
export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: integer("updated_at").notNull().$defaultFn(now),
});

export const users = sqliteTable("users", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  email: text("email").notNull().unique(),
  passwordHash: text("password_hash").notNull(),
  isAdmin: integer("is_admin", { mode: "boolean" }).notNull().default(false),
  createdAt: integer("created_at").notNull().$defaultFn(now),
  /** set while an instance admin has locked the account out: no login, no session */
  disabledAt: integer("disabled_at"),
});

export const orgs = sqliteTable("orgs", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  slug: text("slug").notNull().unique(),
  name: text("name").notNull(),
  createdAt: integer("created_at").notNull().$defaultFn(now),
});

export const memberships = sqliteTable(
  "memberships",
  {
    userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    orgId: integer("org_id").notNull().references(() => orgs.id, { onDelete: "cascade" }),
    role: text("role", { enum: ["owner", "admin", "member"] }).notNull(),
    createdAt: integer("created_at").notNull().$defaultFn(now),
  },
  (t) => [primaryKey({ columns: [t.userId, t.orgId] }), index("memberships_org_idx").on(t.orgId)],
);

export const sessions = sqliteTable(
  "sessions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    tokenHash: text("token_hash").notNull().unique(),
    csrfToken: text("csrf_token").notNull(),
    userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    createdAt: integer("created_at").notNull().$defaultFn(now),
    lastSeenAt: integer("last_seen_at").notNull().$defaultFn(now),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("sessions_user_idx").on(t.userId)],
);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    orgId: integer("org_id").notNull().references(() => orgs.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** first characters of the secret, shown in lists so a person can tell keys apart */
    prefix: text("prefix").notNull(),
    secretHash: text("secret_hash").notNull().unique(),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    allowedOrigins: text("allowed_origins", { mode: "json" }).$type<string[]>().notNull().default([]),
    expiresAt: integer("expires_at"),
    rateLimitPerMinute: integer("rate_limit_per_minute"),
    monthlyQuota: integer("monthly_quota"),
    createdAt: integer("created_at").notNull().$defaultFn(now),
    lastUsedAt: integer("last_used_at"),
    revokedAt: integer("revoked_at"),
  },
  (t) => [index("api_keys_org_idx").on(t.orgId)],
);

/** Billable calls per key, service group and UTC day. */
export const keyUsage = sqliteTable(
  "key_usage",
  {
    keyId: integer("key_id").notNull().references(() => apiKeys.id, { onDelete: "cascade" }),
    day: text("day").notNull(),
    service: text("service").notNull(),
    count: integer("count").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.day, t.service] })],
);

export const tilesets = sqliteTable(
  "tilesets",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    orgId: integer("org_id").notNull().references(() => orgs.id, { onDelete: "cascade" }),
    slug: text("slug").notNull(),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    attribution: text("attribution").notNull().default(""),
    visibility: text("visibility", { enum: ["public", "private"] }).notNull().default("public"),
    publishedVersion: integer("published_version"),
    /** highest version number ever given out; deleted versions' numbers are never reused */
    lastVersion: integer("last_version").notNull().default(0),
    createdAt: integer("created_at").notNull().$defaultFn(now),
    updatedAt: integer("updated_at").notNull().$defaultFn(now),
  },
  (t) => [uniqueIndex("tilesets_org_slug_idx").on(t.orgId, t.slug)],
);

export const tilesetVersions = sqliteTable(
  "tileset_versions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    tilesetId: integer("tileset_id").notNull().references(() => tilesets.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    state: text("state", { enum: ["uploading", "queued", "processing", "ready", "failed"] }).notNull(),
    progress: real("progress").notNull().default(0),
    error: text("error"),
    warnings: text("warnings", { mode: "json" }).$type<string[]>().notNull().default([]),
    /** detected input format: geojson, ndjson, csv, shapefile, flatgeobuf, geopackage, mbtiles, pmtiles, geotiff, hgt (several files: joined with +) */
    sourceFormat: text("source_format"),
    /** archive format served: mbtiles or pmtiles */
    archiveFormat: text("archive_format"),
    /** paths relative to DATA_DIR */
    sourcePath: text("source_path"),
    archivePath: text("archive_path"),
    recipe: text("recipe", { mode: "json" }).$type<Record<string, unknown>>().notNull().default({}),
    /** TileJSON-ish facts: tile format, vector_layers, bounds, center, minzoom, maxzoom */
    metadata: text("metadata", { mode: "json" }).$type<Record<string, unknown>>(),
    stats: text("stats", { mode: "json" }).$type<Record<string, unknown>>().notNull().default({}),
    /**
     * when the version was first published (epoch ms), null while it never was: until then its URLs answer
     * only to the organization (as a private tileset's do), so a version being checked before release is
     * neither public nor cached as immutable by browsers and CDNs
     */
    publishedAt: integer("published_at"),
    createdAt: integer("created_at").notNull().$defaultFn(now),
    updatedAt: integer("updated_at").notNull().$defaultFn(now),
  },
  (t) => [uniqueIndex("tileset_versions_ts_version_idx").on(t.tilesetId, t.version)],
);

/** Persistent background work; a worker claims queued rows, restarts re-queue interrupted ones. */
export const jobs = sqliteTable(
  "jobs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    kind: text("kind").notNull(),
    payload: text("payload", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    state: text("state", { enum: ["queued", "running", "done", "failed"] }).notNull().default("queued"),
    attempts: integer("attempts").notNull().default(0),
    progress: real("progress").notNull().default(0),
    error: text("error"),
    createdAt: integer("created_at").notNull().$defaultFn(now),
    startedAt: integer("started_at"),
    /** refreshed while a process works on the job; a stale one means that process died */
    heartbeatAt: integer("heartbeat_at"),
    finishedAt: integer("finished_at"),
  },
  (t) => [index("jobs_state_idx").on(t.state, t.id)],
);

/**
 * The last version number of each tileset or style that was deleted, by the URL it was served at
 * (owner = org slug). Versioned URLs are cached as immutable for a year, so a slug created again
 * goes on counting from here: `acme/roads@1` never names other data than it once did.
 */
export const retiredSlugs = sqliteTable(
  "retired_slugs",
  {
    owner: text("owner").notNull(),
    kind: text("kind", { enum: ["tileset", "style"] }).notNull(),
    slug: text("slug").notNull(),
    lastVersion: integer("last_version").notNull(),
  },
  (t) => [primaryKey({ columns: [t.owner, t.kind, t.slug] })],
);

export const styles = sqliteTable(
  "styles",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    orgId: integer("org_id").notNull().references(() => orgs.id, { onDelete: "cascade" }),
    slug: text("slug").notNull(),
    name: text("name").notNull(),
    visibility: text("visibility", { enum: ["public", "private"] }).notNull().default("public"),
    draft: text("draft", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** sprite directory of the draft, relative to DATA_DIR; null when the style has none */
    draftSpritePath: text("draft_sprite_path"),
    publishedVersion: integer("published_version"),
    /** highest version number ever given out; deleted versions' numbers are never reused */
    lastVersion: integer("last_version").notNull().default(0),
    createdAt: integer("created_at").notNull().$defaultFn(now),
    updatedAt: integer("updated_at").notNull().$defaultFn(now),
  },
  (t) => [uniqueIndex("styles_org_slug_idx").on(t.orgId, t.slug)],
);

export const styleVersions = sqliteTable(
  "style_versions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    styleId: integer("style_id").notNull().references(() => styles.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    style: text("style", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** "owner/tileset" -> tileset version published when this style version was published */
    tilesetPins: text("tileset_pins", { mode: "json" }).$type<Record<string, number>>().notNull().default({}),
    spritePath: text("sprite_path"),
    createdAt: integer("created_at").notNull().$defaultFn(now),
  },
  (t) => [uniqueIndex("style_versions_style_version_idx").on(t.styleId, t.version)],
);

export const fonts = sqliteTable("fonts", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  /** the fontstack name, e.g. "Noto Sans Regular" */
  name: text("name").notNull().unique(),
  /** relative to DATA_DIR, or null for fonts embedded in the binary */
  filePath: text("file_path"),
  builtin: integer("builtin", { mode: "boolean" }).notNull().default(false),
  createdAt: integer("created_at").notNull().$defaultFn(now),
});

/** Stored responses of idempotent batch requests, scoped to the caller, kept seven days. */
export const idempotencyRecords = sqliteTable(
  "idempotency_records",
  {
    caller: text("caller").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    state: text("state", { enum: ["in_progress", "done"] }).notNull(),
    /** the claiming process (its pid) while in progress: a cluster's supervisor frees the claims of a worker that died */
    owner: integer("owner"),
    status: integer("status"),
    responseBody: text("response_body"),
    createdAt: integer("created_at").notNull().$defaultFn(now),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.caller, t.key] }), index("idempotency_expires_idx").on(t.expiresAt)],
);

/**
 * Append-only log of changes to published things (tilesets, styles, fonts, keys), written in the same
 * transaction as the change, so other processes' caches learn of it through the data_version watcher
 * (src/domain/changes/). Rows older than an hour are pruned.
 */
export const changeLog = sqliteTable(
  "change_log",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** the writing process's bus token: a process skips its own rows (it already told its listeners) */
    origin: text("origin").notNull(),
    /** the change as JSON (src/domain/changes/types.ts) */
    change: text("change").notNull(),
    createdAt: integer("created_at").notNull().$defaultFn(now),
  },
  (t) => [index("change_log_created_idx").on(t.createdAt)],
);

/**
 * Failed logins and setup-token guesses of the last 15 minutes (src/domain/accounts/throttle.ts), one row
 * per failure and identity (an address, an account, or the pair). In SQLite rather than in memory so
 * that every HTTP worker of a cluster counts the same failures. Rows past the window are pruned.
 */
export const loginFailures = sqliteTable(
  "login_failures",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    identity: text("identity").notNull(),
    at: integer("at").notNull(),
  },
  (t) => [index("login_failures_identity_idx").on(t.identity, t.at), index("login_failures_at_idx").on(t.at)],
);
