// Font administration: the admin upload and listing under /api/v1/fonts (the public font routes are
// in routes/public/fonts.ts).
import { Elysia } from "elysia";
import type { Services } from "../../services";
import { BadRequest, Forbidden, PayloadTooLarge } from "../../errors";
import type { AuthPlugin } from "../../http/auth";
import { ErrorEnvelope, FontList, InstalledFont, UploadQuery } from "./fonts.model";
import { installFont, listFonts, MAX_FONT_BYTES } from "../../domain/fonts/service";
import { readBodyLimited } from "../../http/read-body";
import { withRouteFacts } from "../../http/route-facts";

const tags = ["Fonts"];

/** The font bytes and requested name of a raw or multipart upload. */
async function readUpload(request: Request, queryName: string | undefined): Promise<{ bytes: Uint8Array; name?: string }> {
  const type = (request.headers.get("content-type") ?? "").toLowerCase();
  if (!type.startsWith("multipart/form-data")) return { bytes: await readBodyLimited(request, MAX_FONT_BYTES, "A font upload"), name: queryName };
  const raw = await readBodyLimited(request, MAX_FONT_BYTES + 1024 * 1024, "A font upload");
  let form: FormData;
  try {
    form = await new Response(raw as BodyInit, { headers: { "content-type": request.headers.get("content-type")! } }).formData();
  } catch {
    throw new BadRequest("The multipart body could not be parsed");
  }
  const file = form.get("file");
  if (!(file instanceof Blob)) throw new BadRequest("file: the multipart body needs the font in a field named 'file'");
  if (file.size > MAX_FONT_BYTES) throw new PayloadTooLarge(`A font upload may be at most ${MAX_FONT_BYTES / 1024 / 1024} MiB`);
  const formName = form.get("name");
  return { bytes: new Uint8Array(await file.arrayBuffer()), name: typeof formName === "string" && formName !== "" ? formName : queryName };
}

export function fontsModule(services: Services, authPlugin: AuthPlugin) {
  const { ctx, fonts: catalog, changes } = services;
  return withRouteFacts({ cors: "none", group: "management" }, new Elysia({ name: "fonts" })
    .use(authPlugin)
    .get("/api/v1/fonts", () => ({ fonts: listFonts(catalog) }), {
      session: true,
      response: { 200: FontList, 401: ErrorEnvelope },
      detail: { tags, summary: "Installed fonts with details (console session)" },
    })
    .post(
      "/api/v1/fonts",
      async ({ caller, request, query, set }) => {
        if (caller.kind !== "session" || !caller.isAdmin) throw new Forbidden("Only administrators can install fonts");
        const upload = await readUpload(request, query.name);
        const font = installFont(ctx, catalog, changes, upload.bytes, { name: upload.name });
        set.status = 201;
        return font;
      },
      {
        session: true,
        parse: "none",
        query: UploadQuery,
        response: { 201: InstalledFont, 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 409: ErrorEnvelope, 413: ErrorEnvelope, 415: ErrorEnvelope, 422: ErrorEnvelope },
        detail: {
          tags,
          summary: "Install a TTF/OTF font (admin session)",
          requestBody: {
            required: true,
            content: {
              "application/octet-stream": { schema: { type: "string", format: "binary", description: "the font file itself, any Content-Type" } },
              "multipart/form-data": {
                schema: { type: "object", required: ["file"], properties: { file: { type: "string", format: "binary" }, name: { type: "string", description: "the font's name (default: its family and subfamily)" } } },
              },
            },
          },
          description:
            "Body: the font file itself (any content type), or multipart/form-data with the font in 'file' and optionally 'name'. At most 50 MiB. The name defaults to the font's \"Family Subfamily\" and may not contain commas or slashes. 415 for files that are not TrueType/OpenType, 422 INVALID_SOURCE_DATA for fonts that cannot be read, 409 for a name already installed, except for the same file as that font when its file is missing from DATA_DIR: then the file is put back (restored: true).",
        },
      },
    ));
}
