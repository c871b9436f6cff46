// The public font routes MapLibre GL uses: GET /fonts/v1 (installed font names) and the glyph ranges
// GET /fonts/v1/{fontstack}/{range}.pbf, built and cached by the glyph store (src/read/glyphs.ts).
import { Elysia, t } from "elysia";
import type { Services } from "../../services";
import { glyphAnswer } from "../../read/glyph-answers";
import { sendAnswer } from "./answer";
import { ErrorEnvelope, FontNames, GlyphParams } from "./fonts.model";
import { openApiResponses } from "../../http/openapi-responses";
import { withRouteFacts } from "../../http/route-facts";

const tags = ["Fonts"];

export function publicFontsModule(services: Services) {
  const { fonts: catalog, glyphs } = services;
  let namesJson = { generation: -1, body: "" };
  const fontNamesJson = () => {
    const names = catalog.names();
    if (namesJson.generation !== catalog.generation) namesJson = { generation: catalog.generation, body: JSON.stringify([...names].sort()) };
    return namesJson.body;
  };

  return withRouteFacts({ cors: "public", group: "fonts" }, new Elysia({ name: "public-fonts" })
    .get(
      "/fonts/v1",
      () => new Response(fontNamesJson(), { headers: { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=60" } }),
      {
        response: { 200: FontNames },
        detail: { tags, summary: "Installed font names (usable in text-font and in glyph fontstacks)" },
      },
    )
    .get(
      "/fonts/v1/:fontstack/:range",
      async ({ params, request, set }) => sendAnswer(set, await glyphAnswer(glyphs, params, request)),
      {
        params: GlyphParams,
        detail: {
          responses: openApiResponses({
            200: ["application/x-protobuf", "The glyphs message (font stacks with SDF glyphs)"],
            304: "Not modified (If-None-Match matched the ETag)",
            400: ErrorEnvelope,
            404: ErrorEnvelope,
            503: ErrorEnvelope,
          }),
          tags,
          summary: "Glyph range (SDF glyphs PBF for MapLibre GL)",
          description:
            "Signed distance field glyphs (24 px, 3 px buffer) of a 256-codepoint range. The fontstack is comma-separated font names (URL-encoded); each glyph comes from the first font of the stack that has it. Gzipped (Content-Encoding: gzip, Vary: Accept-Encoding) for clients that accept it. 404 FONT_NOT_FOUND when no font of the stack is installed; 503 STORAGE_UNAVAILABLE when an installed font's file is missing on this server (the server's log names the path and the fix); an installed font without glyphs in the range gives an empty, valid PBF. Strong ETag, If-None-Match answers 304.",
        },
      },
    ));
}
