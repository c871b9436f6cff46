// GET /styles/v1/{owner}/{style}[@{version}]: published style JSON (CONTRACT.md), public or for viewers
// who may read the private style. The answer comes from src/read/styles.ts.
import { Elysia, t } from "elysia";
import type { Services } from "../../services";
import { styleViewer } from "../../read/styles";
import { sendAnswer } from "./answer";
import { ErrorEnvelope, PublicStyleParams, StyleDocument } from "./styles.model";
import { withRouteFacts } from "../../http/route-facts";

export function publicStylesModule(services: Services) {
  const { auth, styleReads } = services;
  return withRouteFacts({ cors: "public", group: "styles" }, new Elysia({ name: "public-styles" }).get(
    "/styles/v1/:owner/:style",
    ({ params, request, set }) => sendAnswer(set, styleReads.style(params, request, styleViewer(auth, request))),
    {
      params: PublicStyleParams,
      response: { 200: StyleDocument, 304: t.Any({ description: "Not modified (If-None-Match matched the ETag)" }), 400: ErrorEnvelope, 404: ErrorEnvelope },
      detail: {
        tags: ["Styles"],
        summary: "Published style JSON: {style} is the current published version (stable URL), {style}@{version} one immutable version",
        description:
          "404 STYLE_NOT_FOUND for an unknown owner, slug or version, an unpublished style, or a private style without a member session or a key with maps:read. Stable: Cache-Control public, max-age=60 with ETag (If-None-Match gives 304); versioned: immutable for a year.",
      },
    },
  ));
}
