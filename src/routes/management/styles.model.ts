// TypeBox schemas of the styles API: the single source of its types and of its OpenAPI description.
import { t } from "elysia";
import { SLUG_PATTERN } from "../../domain/orgs/slug";
import { NextCursor } from "./page.model";

export { ErrorEnvelope } from "./orgs.model";

export const Visibility = t.Union([t.Literal("public"), t.Literal("private")], { description: "private styles are readable only by org members and keys with maps:read" });

export const StyleJson = t.Record(t.String(), t.Unknown(), {
  description: "MapLibre style JSON (version 8). Reference Mapstead assets with mapstead://tilesets/{owner}/{tileset}[@{version}] (source url), mapstead://fonts/{fontstack}/{range}.pbf (glyphs), mapstead://sprites/{owner}/{style} (sprite). Absolute URLs on this server (PUBLIC_URL) in those places are checked the same way: a tileset or style another organization keeps private is refused however it is written. A style with text (text-field) needs glyphs, and every font it names must be installed.",
});

export const OrgParams = t.Object({ org: t.String({ description: "organization slug" }) });
export const StyleParams = t.Object({ org: t.String({ description: "organization slug" }), style: t.String({ description: "style slug" }) });
export const DraftFileParams = t.Object({
  org: t.String(),
  style: t.String(),
  file: t.String({ description: "sprite.json, sprite.png, sprite@2x.json or sprite@2x.png" }),
});

export const CreateStyleBody = t.Object({
  slug: t.String({ pattern: SLUG_PATTERN, description: "1-63 lowercase letters, digits and inner hyphens" }),
  name: t.Optional(t.String({ maxLength: 200 })),
  visibility: t.Optional(Visibility),
  style: t.Optional(StyleJson),
});

export const UpdateStyleBody = t.Object({ name: t.Optional(t.String({ minLength: 1, maxLength: 200 })), visibility: t.Optional(Visibility) });

export const PublishFields = t.Object({
  version: t.Optional(t.Integer({ minimum: 1, description: "re-publish this existing version (rollback) instead of publishing the draft" })),
});
export const PublishBody = t.Optional(PublishFields);

export const SpriteQuery = t.Object({ name: t.Optional(t.String({ maxLength: 128, description: "icon name for a single image/svg+xml upload" })) });

const Urls = t.Object({
  stable: t.Nullable(t.String({ description: "GET /styles/v1/{owner}/{style}; null while unpublished" })),
  published: t.Nullable(t.String({ description: "versioned URL of the published version" })),
});

export const StyleSummary = t.Object({
  slug: t.String(),
  name: t.String(),
  visibility: Visibility,
  published_version: t.Nullable(t.Integer()),
  has_sprite: t.Boolean(),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
  urls: Urls,
});

export const StyleDetail = t.Composite([
  StyleSummary,
  t.Object({
    draft: StyleJson,
    draft_preview: t.Record(t.String(), t.Unknown(), { description: "the draft with absolute URLs (draft sprite served through the management API), for previews" }),
    sprite_icons: t.Array(t.String(), { description: "icon names of the draft sprite" }),
  }),
]);

export const StyleList = t.Object({ styles: t.Array(StyleSummary), next_cursor: NextCursor });

export const PublishResult = t.Object({ version: t.Integer(), created: t.Boolean({ description: "false when an existing version was re-published" }), url: t.String() });

export const VersionList = t.Object({
  versions: t.Array(
    t.Object({
      version: t.Integer(),
      published: t.Boolean({ description: "true for the version the stable URL serves" }),
      tileset_pins: t.Record(t.String(), t.Integer(), { description: "owner/tileset -> tileset version this style version uses" }),
      has_sprite: t.Boolean(),
      created_at: t.String({ format: "date-time" }),
      url: t.String(),
    }),
  ),
});

export const SpriteResult = t.Object({
  icons: t.Array(t.String()),
  source: t.Union([t.Literal("svg"), t.Literal("ready")]),
  width: t.Integer({ description: "1x sheet width in px" }),
  height: t.Integer({ description: "1x sheet height in px" }),
});
