// GET /styles/v1/{owner}/{style}[@{version}]/{file}: the sprite of a published style version, readable
// by whoever may read the style.
import { Elysia } from "elysia";
import type { Services } from "../../services";
import { styleViewer } from "../../read/styles";
import { sendAnswer } from "./answer";
import { ErrorEnvelope, PublicSpriteParams } from "./styles.model";

export function publicSpritesModule(services: Services) {
  const { auth, styleReads } = services;
  return new Elysia({ name: "public-sprites" }).get(
    "/styles/v1/:owner/:style/:file",
    ({ params, request, set }) => sendAnswer(set, styleReads.sprite(params, request, styleViewer(auth, request))),
    {
      params: PublicSpriteParams,
      response: { 404: ErrorEnvelope },
      detail: {
        tags: ["Styles"],
        summary: "Sprite of the published style ({style}) or of one version ({style}@{version}): sprite.json, sprite.png, sprite@2x.json, sprite@2x.png",
      },
    },
  );
}
