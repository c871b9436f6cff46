// GET /styles/v1/{owner}/{style}[@{version}]: published style JSON (CONTRACT.md), public or for viewers
// who may read the private style. The cached, resolved document comes from the styles service.
import { Elysia } from "elysia";
import type { Services } from "../../services";
import { styleNotFound } from "../../domain/styles/service";
import { ifNoneMatchHits } from "../../http/conditional";
import { mayRead, viewerOf } from "../../read/style-access";
import { ErrorEnvelope, PublicStyleParams, StyleDocument } from "./styles.model";

const IMMUTABLE = "public, max-age=31536000, immutable";

export function publicStylesModule(services: Services) {
  const { auth, styles } = services;
  return new Elysia({ name: "public-styles" }).get(
    "/styles/v1/:owner/:style",
    ({ params, request, set }) => {
      const viewer = viewerOf(auth, request);
      const resolved = styles.resolvePublic(params.owner, params.style);
      if (!mayRead(resolved, viewer)) throw styleNotFound();
      set.headers["content-type"] = "application/json; charset=utf-8";
      set.headers["cache-control"] = resolved.visibility === "private" ? "private" : resolved.stable ? "public, max-age=60" : IMMUTABLE;
      set.headers.etag = resolved.etag;
      if (ifNoneMatchHits(request, resolved.etag)) {
        set.status = 304;
        return "";
      }
      return resolved.body;
    },
    {
      params: PublicStyleParams,
      response: { 200: StyleDocument, 404: ErrorEnvelope },
      detail: {
        tags: ["Styles"],
        summary: "Published style JSON: {style} is the current published version (stable URL), {style}@{version} one immutable version",
        description:
          "404 STYLE_NOT_FOUND for an unknown owner, slug or version, an unpublished style, or a private style without a member session or a key with maps:read. Stable: Cache-Control public, max-age=60 with ETag (If-None-Match gives 304); versioned: immutable for a year.",
      },
    },
  );
}
