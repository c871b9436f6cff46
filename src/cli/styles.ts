// `mapstead styles create|list|update|draft|publish|unpublish|export|delete`: styles from the machine itself (same
// rules as the API).
import { readFileSync, readdirSync, statSync } from "node:fs";
import { parseJsonText } from "../json-text";
import { inputFileProblem } from "./input-file";
import { unknownOrgWords } from "./unknown-org";
import { basename, join } from "node:path";
import type { CliCommand } from "./command";
import { UsageError, settingsHelp } from "./args";
import { bold, dim, green, print, printErr, red, visibilityNote } from "./output";
import { parse } from "./args";
import { withContext } from "./runtime";
import { AppError } from "../errors";
import type { OrgRef } from "../domain/styles/service";
import { isVersion } from "../domain/orgs/versioned-slug";
import { buildSprite, iconName, SpriteInputError, type SpriteSet } from "../sprites/build";
import { svgIconsFromZip } from "../sprites/unzip";

const HELP = `Usage:
  mapstead styles create --org ORG --slug SLUG [--name NAME] [--private] [--sprite ICONS] [STYLE.json|-] [settings]
  mapstead styles list --org ORG [--json] [settings]
  mapstead styles update --org ORG --slug SLUG [--private|--public] [--name NAME] [--json] [settings]
  mapstead styles draft --org ORG --slug SLUG STYLE.json|- [settings]
  mapstead styles publish --org ORG --slug SLUG [--version N] [settings]
  mapstead styles unpublish --org ORG --slug SLUG [settings]
  mapstead styles export --org ORG --slug SLUG [--version N] [settings]
  mapstead styles delete --org ORG --slug SLUG [settings]

create   Creates a style whose draft is STYLE.json (or stdin with -; an empty style without it).
         --sprite builds the style's sprite first from a zip of SVG icons, one .svg file or a folder of
         .svg files, so the style may use "sprite": "mapstead://sprites/ORG/SLUG".
         The style is validated like the API does: MapLibre style spec and every mapstead:// reference.
list     Lists the organization's styles with their published version.
update   Renames the style (--name) or changes its visibility: --private (its URLs answer only to the
         organization's sessions and keys) or --public. Same rules as the API's PATCH; a running server
         sees the change within a second. --json prints the style's name and visibility.
draft    Replaces the style's draft with STYLE.json (or stdin with -), validated as on create; what
         clients load changes only when you publish.
publish  Publishes the draft as a new immutable version (pinning the tileset versions published now),
         or with --version points the stable URL back at an existing version.
unpublish  Removes the stable URL (404 afterwards); versioned URLs keep working.
export   Prints the published style JSON as GET /styles/v1/ORG/SLUG[@N] serves it (absolute URLs under
         PUBLIC_URL, so set --public-url to the address clients use).
delete   Deletes the style with every version and sprite: its URLs answer 404 at once.

Settings:
${settingsHelp()}`;

function readSprite(path: string): Promise<SpriteSet> {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) throw new UsageError(`--sprite: ${path} does not exist`);
  if (stat.isDirectory()) {
    const files = readdirSync(path).filter((f) => /\.svg$/i.test(f));
    return buildSprite(files.map((f) => ({ name: iconName(f), bytes: new Uint8Array(readFileSync(join(path, f))) })));
  }
  const bytes = new Uint8Array(readFileSync(path));
  if (/\.svg$/i.test(path)) return buildSprite([{ name: iconName(basename(path)), bytes }]);
  return buildSprite(svgIconsFromZip(bytes));
}

function readStyle(path: string): unknown {
  const problem = path === "-" ? null : inputFileProblem(path);
  if (problem) throw new UsageError(problem);
  const text = path === "-" ? readFileSync(0, "utf8") : readFileSync(path, "utf8");
  return parseJsonText(text, path === "-" ? "stdin" : path);
}

/** The error's message already names the first problem; list the others, one per line. */
function printProblems(err: unknown): void {
  if (err instanceof AppError && err.code === "INVALID_STYLE" && Array.isArray(err.details))
    for (const d of (err.details as { path: string; message: string; layer?: string }[]).slice(1))
      printErr(`  ${d.path || "(style)"}${d.layer !== undefined ? ` (layer ${JSON.stringify(d.layer)})` : ""}: ${d.message}`);
}

const SUBCOMMANDS = ["create", "list", "update", "draft", "publish", "unpublish", "export", "delete"];
/** The subcommands each optional flag belongs to. */
const FLAG_USERS: Record<"version" | "sprite" | "name" | "private" | "public" | "json", readonly string[]> = {
  version: ["publish", "export"],
  sprite: ["create"],
  name: ["create", "update"],
  private: ["create", "update"],
  public: ["update"],
  json: ["list", "update"],
};

export const stylesCommand: CliCommand = {
  name: "styles",
  summary: "Create, edit, publish, export and delete map styles",
  help: HELP,
  async run(args, overrides) {
    const { values, positionals } = parse(args, {
      org: { type: "string" },
      slug: { type: "string" },
      name: { type: "string" },
      private: { type: "boolean" },
      public: { type: "boolean" },
      sprite: { type: "string" },
      version: { type: "string" },
      json: { type: "boolean" },
    });
    const [sub, ...rest] = positionals;
    if (!sub || !SUBCOMMANDS.includes(sub)) throw new UsageError(`expected \`styles ${SUBCOMMANDS.join("|")}\` (see --help)`);
    if (!values.org) throw new UsageError("--org is required");
    if (sub !== "list" && !values.slug) throw new UsageError("--slug is required");
    if (rest.length > (sub === "create" || sub === "draft" ? 1 : 0)) throw new UsageError(`unexpected argument '${rest[rest.length - 1]}'`);
    if (sub === "draft" && !rest[0]) throw new UsageError("styles draft needs the style: a STYLE.json file, or - for stdin");
    // A flag another subcommand takes would otherwise be ignored without a word (`draft --sprite icons.zip`).
    const misplaced = (["version", "sprite", "name", "private", "public", "json"] as const).find((f) => values[f] !== undefined && !FLAG_USERS[f].includes(sub));
    if (misplaced) throw new UsageError(`--${misplaced} is for ${FLAG_USERS[misplaced].join(" and ")}, not ${sub}`);
    let patch: { name?: string; visibility?: "public" | "private" } = {};
    if (sub === "update") {
      if (values.private && values.public) throw new UsageError("--private and --public contradict each other; give one");
      // The PATCH route's limits (UpdateStyleBody): a name of 1-200 characters.
      if (values.name !== undefined && (values.name.trim() === "" || values.name.length > 200)) throw new UsageError("--name must be 1-200 characters, not blank");
      if (values.name !== undefined) patch.name = values.name;
      if (values.private) patch.visibility = "private";
      if (values.public) patch.visibility = "public";
      if (!Object.keys(patch).length) throw new UsageError("update needs something to change: --private or --public, or --name");
    }
    let version: number | undefined;
    if (values.version !== undefined) {
      if (!isVersion(values.version)) throw new UsageError("--version must be a positive integer");
      version = Number(values.version);
    }
    const styleInput = (sub === "create" || sub === "draft") && rest[0] ? readStyle(rest[0]) : undefined;
    let sprite: SpriteSet | undefined;
    if (sub === "create" && values.sprite) {
      try {
        sprite = await readSprite(values.sprite);
      } catch (err) {
        if (err instanceof SpriteInputError) {
          printErr(red(`mapstead styles: sprite refused: ${err.message}`));
          return 1;
        }
        throw err;
      }
    }

    return withContext(overrides, "styles", async (ctx, { styles }) => {
      const org: OrgRef | null = styles.orgBySlug(values.org!);
      if (!org) {
        printErr(red(`mapstead styles: ${unknownOrgWords(ctx.db, values.org!)}`));
        return 1;
      }
      const slug = values.slug!;
      try {
        switch (sub) {
          case "list": {
            const rows = styles.list(org);
            if (values.json)
              print(JSON.stringify(rows.map((r) => ({ slug: r.slug, name: r.name, visibility: r.visibility, published_version: r.publishedVersion, has_sprite: r.draftSpritePath !== null, urls: styles.urls(org, r) })), null, 2));
            else if (!rows.length) print(`No styles in ${org.slug} yet. Create one with: mapstead styles create --org ${org.slug} --slug my-style style.json`);
            else
              for (const r of rows)
                print(`${bold(r.slug)}  ${r.name}  ${r.visibility}  ${r.publishedVersion === null ? dim("unpublished") : green(`v${r.publishedVersion}`)}${r.draftSpritePath ? dim("  sprite") : ""}`);
            return 0;
          }
          case "create": {
            if (!sprite) {
              styles.create(org, { slug, name: values.name, visibility: values.private ? "private" : "public", style: styleInput as Record<string, unknown> | undefined });
            } else {
              // The sprite must exist before a draft may reference it: create empty, attach, then save the draft.
              styles.create(org, { slug, name: values.name, visibility: values.private ? "private" : "public" });
              try {
                styles.setSprite(org, slug, sprite);
                if (styleInput !== undefined) styles.saveDraft(org, slug, styleInput);
              } catch (err) {
                styles.remove(org, slug);
                throw err;
              }
            }
            print(`Created style ${bold(`${org.slug}/${slug}`)}${sprite ? ` with ${Object.keys(sprite["1x"].index).length} sprite icons` : ""}. Publish it with: mapstead styles publish --org ${org.slug} --slug ${slug}`);
            return 0;
          }
          case "update": {
            const before = styles.get(org, slug);
            const changed = (Object.keys(patch) as (keyof typeof patch)[]).filter((k) => (k === "name" ? patch.name!.trim() : patch[k]) !== before[k]);
            const after = changed.length ? styles.update(org, slug, patch) : before;
            if (values.json) print(JSON.stringify({ slug: after.slug, name: after.name, visibility: after.visibility, published_version: after.publishedVersion, urls: styles.urls(org, after) }, null, 2));
            else if (!changed.length) print(`${org.slug}/${slug} has these values already; nothing changed`);
            else print(`Updated style ${bold(`${org.slug}/${slug}`)}: ${changed.map((k) => `${k} ${JSON.stringify(before[k])} -> ${JSON.stringify(after[k])}`).join(", ")}${visibilityNote(patch, after.visibility)}`);
            return 0;
          }
          case "draft": {
            styles.saveDraft(org, slug, styleInput);
            print(`Saved the draft of ${bold(`${org.slug}/${slug}`)}. Clients see it once you publish: mapstead styles publish --org ${org.slug} --slug ${slug}`);
            return 0;
          }
          case "unpublish": {
            if (styles.get(org, slug).publishedVersion === null) {
              print(`${org.slug}/${slug} is not published; nothing changed`);
              return 0;
            }
            styles.unpublish(org, slug);
            print(`Unpublished ${bold(`${org.slug}/${slug}`)}: ${styles.base}/styles/v1/${org.slug}/${slug} answers 404 now; versioned URLs keep working`);
            return 0;
          }
          case "delete": {
            styles.remove(org, slug);
            print(`Deleted style ${bold(`${org.slug}/${slug}`)} with its versions and sprites`);
            return 0;
          }
          case "publish": {
            const result = styles.publish(org, slug, { version });
            print(`${result.created ? "Published" : "Re-published"} ${bold(`${org.slug}/${slug}`)} version ${result.version}`);
            print(`  stable:    ${styles.base}/styles/v1/${org.slug}/${slug}`);
            print(`  versioned: ${styles.base}/styles/v1/${org.slug}/${slug}@${result.version}`);
            return 0;
          }
          default: {
            print(JSON.stringify(styles.exportPublished(org, slug, version), null, 2));
            return 0;
          }
        }
      } catch (err) {
        if (err instanceof AppError) {
          // The API's message points at its `details` field; here the others are the lines below it.
          printErr(red(`mapstead styles: ${err.message.replace(/ more in details\)$/, " more, listed below)")}`));
          printProblems(err);
          return 1;
        }
        throw err;
      }
    }, { existing: sub === "list" || sub === "export" ? "show" : "change" });
  },
};
