// GET /styles/v1/{owner}/{style}[@{version}]/{file}: the sprite of a published style version, readable
// by whoever may read the style.
import { Elysia } from "elysia";
import type { Services } from "../../services";
import { styleViewer } from "../../read/styles";
import { sendAnswer } from "./answer";
import { ErrorEnvelope, PublicSpriteParams } from "./styles.model";
import { withRouteFacts } from "../../http/route-facts";
import { openApiResponses } from "../../http/openapi-responses";

export function publicSpritesModule(services: Services) {
  const { auth, styleReads } = services;
  return withRouteFacts({ cors: "public", group: "styles" }, new Elysia({ name: "public-sprites" }).get(
    "/styles/v1/:owner/:style/:file",
    ({ params, request, set }) => sendAnswer(set, styleReads.sprite(params, request, styleViewer(auth, request))),
    {
      params: PublicSpriteParams,
      detail: {
        responses: openApiResponses({
          200: [["application/json", "image/png"], "sprite.json / sprite@2x.json (application/json) or sprite.png / sprite@2x.png (image/png)"],
          304: "Not modified (If-None-Match matched the ETag)",
          400: ErrorEnvelope,
          404: ErrorEnvelope,
          503: ErrorEnvelope,
        }),
        tags: ["Styles"],
        summary: "Sprite of the published style ({style}) or of one version ({style}@{version}): sprite.json, sprite.png, sprite@2x.json, sprite@2x.png",
        description: "503 STORAGE_UNAVAILABLE when the style has a sprite but its files are missing on this server (the server's log names the directory and the fix).",
      },
    },
  ));
}
