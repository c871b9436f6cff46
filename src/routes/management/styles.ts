// Styles: the management API under /api/v1/orgs/{org}/styles (member session, or a key of the org with
// styles:write); the public style JSON is in routes/public/styles.ts. Sprite management lives in the
// sprites module, composed here because sprites belong to styles.
import { Elysia, t } from "elysia";
import { readFileSync } from "node:fs";
import type { Services } from "../../services";
import type { AuthPlugin } from "../../http/auth";
import { requireOrgAccess } from "../../http/auth";
import type { OrgRef, StyleRow } from "../../domain/styles/service";
import { spritesModule } from "./sprites";
import { rejectUnknownFields } from "../../http/strict-body";
import {
  CreateStyleBody,
  ErrorEnvelope,
  PublishFields,
  OrgParams,
  PublishBody,
  PublishResult,
  StyleDetail,
  StyleJson,
  StyleList,
  StyleParams,
  UpdateStyleBody,
  VersionList,
} from "./styles.model";
import { OPTIONAL_BODY, withRouteFacts } from "../../http/route-facts";
import { PageQuery, PAGING_NOTE, paged } from "./page.model";

const TAGS = ["Styles"];
// Times as ISO 8601, as every other resource of the API gives them.
const iso = (ms: number) => new Date(ms).toISOString();
const ERRORS = { 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 404: ErrorEnvelope };

export function stylesModule(services: Services, authPlugin: AuthPlugin) {
  const { ctx, styles } = services;

  const summary = (org: OrgRef, row: StyleRow) => ({
    slug: row.slug,
    name: row.name,
    visibility: row.visibility,
    published_version: row.publishedVersion,
    has_sprite: row.draftSpritePath !== null,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
    urls: styles.urls(org, row),
  });

  const detail = (org: OrgRef, row: StyleRow) => {
    let icons: string[] = [];
    if (row.draftSpritePath) {
      try {
        icons = Object.keys(JSON.parse(readFileSync(styles.sprites.path(row.draftSpritePath, "sprite.json"), "utf8"))).sort();
      } catch {
        icons = [];
      }
    }
    return { ...summary(org, row), draft: row.draft, draft_preview: styles.draftPreview(org, row), sprite_icons: icons };
  };

  const access = (orgSlug: string, caller: Parameters<typeof requireOrgAccess>[2]) => requireOrgAccess(ctx.db, orgSlug, caller, { keyScope: "styles:write" });

  return withRouteFacts({ cors: "none", group: "management" }, new Elysia({ name: "styles" })
    .use(authPlugin)
    .use(spritesModule(services, authPlugin))
    .group("/api/v1/orgs/:org/styles", (app) =>
      app
        .get(
          "",
          ({ params, caller, query }) => {
            const org = access(params.org, caller);
            return paged("styles", styles.list(org), query, (row) => row.slug, "asc", (row) => summary(org, row));
          },
          { scope: "styles:write", params: OrgParams, query: t.Object(PageQuery), response: { 200: StyleList, ...ERRORS }, detail: { tags: TAGS, summary: "List the organization's styles, by slug", description: PAGING_NOTE } },
        )
        .post(
          "",
          ({ params, body, caller, set }) => {
            const org = access(params.org, caller);
            const row = styles.create(org, body);
            set.status = 201;
            return detail(org, row);
          },
          {
            scope: "styles:write",
            params: OrgParams,
            body: CreateStyleBody,
            transform: rejectUnknownFields(CreateStyleBody),
            response: { 201: StyleDetail, 409: ErrorEnvelope, 422: ErrorEnvelope, ...ERRORS },
            detail: { tags: TAGS, summary: "Create a style (the style JSON becomes its draft; 422 INVALID_STYLE with every problem in details)" },
          },
        )
        .get(
          "/:style",
          ({ params, caller }) => {
            const org = access(params.org, caller);
            return detail(org, styles.get(org, params.style));
          },
          { scope: "styles:write", params: StyleParams, response: { 200: StyleDetail, ...ERRORS }, detail: { tags: TAGS, summary: "One style with its draft and a draft preview" } },
        )
        .patch(
          "/:style",
          ({ params, body, caller }) => {
            const org = access(params.org, caller);
            return detail(org, styles.update(org, params.style, body));
          },
          { scope: "styles:write", params: StyleParams, body: UpdateStyleBody, transform: rejectUnknownFields(UpdateStyleBody), response: { 200: StyleDetail, ...ERRORS }, detail: { tags: TAGS, summary: "Rename a style or change its visibility" } },
        )
        .delete(
          "/:style",
          ({ params, caller, set }) => {
            const org = access(params.org, caller);
            styles.remove(org, params.style);
            set.status = 204;
            return undefined;
          },
          { scope: "styles:write", params: StyleParams, response: { 204: t.Void(), ...ERRORS }, detail: { tags: TAGS, summary: "Delete a style, its versions and sprites" } },
        )
        .put(
          "/:style/draft",
          ({ params, body, caller }) => {
            const org = access(params.org, caller);
            return detail(org, styles.saveDraft(org, params.style, body));
          },
          {
            scope: "styles:write",
            params: StyleParams,
            body: StyleJson,
            response: { 200: StyleDetail, 422: ErrorEnvelope, ...ERRORS },
            detail: { tags: TAGS, summary: "Replace the draft style JSON (validated; 422 INVALID_STYLE with every problem and its path in details)" },
          },
        )
        .post(
          "/:style/publish",
          ({ params, body, caller }) => {
            const org = access(params.org, caller);
            const { version, created } = styles.publish(org, params.style, { version: body?.version });
            return { version, created, url: `${styles.base}/styles/v1/${org.slug}/${params.style}@${version}` };
          },
          {
            scope: "styles:write",
            params: StyleParams,
            body: PublishBody,
            transform: rejectUnknownFields(PublishFields),
            response: { 200: PublishResult, 422: ErrorEnvelope, ...ERRORS },
            detail: {
              tags: TAGS,
              summary: "Publish the draft as a new immutable version (pins the tileset versions published now, snapshots the sprite); with {version} re-publish an existing one",
              // No body publishes the draft.
              [OPTIONAL_BODY]: true,
            },
          },
        )
        .post(
          "/:style/unpublish",
          ({ params, caller, set }) => {
            const org = access(params.org, caller);
            styles.unpublish(org, params.style);
            set.status = 204;
            return undefined;
          },
          { scope: "styles:write", params: StyleParams, response: { 204: t.Void(), 409: ErrorEnvelope, ...ERRORS }, detail: { tags: TAGS, summary: "Remove the stable URL (versioned URLs keep working)" } },
        )
        .get(
          "/:style/versions",
          ({ params, caller }) => {
            const org = access(params.org, caller);
            const row = styles.get(org, params.style);
            return {
              versions: styles.versions(org, params.style).map((v) => ({
                version: v.version,
                published: v.version === row.publishedVersion,
                tileset_pins: v.tilesetPins,
                has_sprite: v.spritePath !== null,
                created_at: iso(v.createdAt),
                url: `${styles.base}/styles/v1/${org.slug}/${row.slug}@${v.version}`,
              })),
            };
          },
          { scope: "styles:write", params: StyleParams, response: { 200: VersionList, ...ERRORS }, detail: { tags: TAGS, summary: "Published versions, newest first" } },
        ),
    ));
}

