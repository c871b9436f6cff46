import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../../support/app";
import { pinSvg, squareSvg } from "../../../sprites/fixtures";
import { runCli } from "../../../support/cli";

let dir: string;
const cli = (...args: string[]) => runCli(join(dir, "data"), ...args);

beforeAll(() => {
  dir = tempDir("mapstead-styles-cli-");
  mkdirSync(join(dir, "icons"));
  writeFileSync(join(dir, "icons", "pin.svg"), pinSvg);
  writeFileSync(join(dir, "icons", "dot.svg"), squareSvg("#333", 6));
  const style = {
    version: 8,
    glyphs: "mapstead://fonts/{fontstack}/{range}.pbf",
    sprite: "mapstead://sprites/acme/city",
    sources: { pts: { type: "geojson", data: { type: "FeatureCollection", features: [] } } },
    layers: [
      { id: "bg", type: "background", paint: { "background-color": "#eee" } },
      { id: "p", type: "symbol", source: "pts", layout: { "icon-image": "pin", "text-field": "x", "text-font": ["Noto Sans Bold"] } },
    ],
  };
  writeFileSync(join(dir, "style.json"), JSON.stringify(style));
  writeFileSync(join(dir, "bad.json"), JSON.stringify({ ...style, layers: [{ id: "bg", type: "background", paint: { "background-color": 5 } }] }));
  expect(cli("orgs", "create", "--slug", "acme").code).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("mapstead styles", () => {
  test("create with a sprite folder, list, publish, export the resolved style", () => {
    const created = cli("styles", "create", "--org", "acme", "--slug", "city", "--name", "City", "--sprite", join(dir, "icons"), join(dir, "style.json"));
    expect(created.err).toBe("");
    expect(created.code).toBe(0);
    expect(created.out).toContain("with 2 sprite icons");

    const list = cli("styles", "list", "--org", "acme", "--json");
    expect(JSON.parse(list.out)).toEqual([
      { slug: "city", name: "City", visibility: "public", published_version: null, has_sprite: true, urls: { stable: null, published: null } },
    ]);
    // Not published yet: export says so and fails.
    const early = cli("styles", "export", "--org", "acme", "--slug", "city");
    expect(early.code).toBe(1);
    expect(early.err).toContain("not published");

    const pub = cli("styles", "publish", "--org", "acme", "--slug", "city");
    expect(pub.code).toBe(0);
    expect(pub.out).toContain("version 1");
    expect(pub.out).toContain("https://maps.example.com/styles/v1/acme/city@1");

    const exported = JSON.parse(cli("styles", "export", "--org", "acme", "--slug", "city").out);
    expect(exported.sprite).toBe("https://maps.example.com/styles/v1/acme/city/sprite");
    expect(exported.glyphs).toBe("https://maps.example.com/fonts/v1/{fontstack}/{range}.pbf");
    const v1 = JSON.parse(cli("styles", "export", "--org", "acme", "--slug", "city", "--version", "1").out);
    expect(v1.sprite).toBe("https://maps.example.com/styles/v1/acme/city@1/sprite");
  });

  test("invalid styles and bad arguments fail with the reason, creating nothing", () => {
    const bad = cli("styles", "create", "--org", "acme", "--slug", "broken", join(dir, "bad.json"));
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("layers[0].paint.background-color");
    // Each problem once: the message names the first, the lines below it the others.
    expect(bad.err.split("layers[0].paint.background-color")).toHaveLength(2);
    writeFileSync(join(dir, "worse.json"), JSON.stringify({ version: 8, sources: {}, layers: [{ id: "a", type: "fill", source: "nope" }, { id: "b", type: "line", source: "gone" }] }));
    const worse = cli("styles", "create", "--org", "acme", "--slug", "worse", join(dir, "worse.json"));
    expect(worse.err.trim().split("\n")).toEqual(['mapstead styles: The style is invalid: layers[0] (layer "a"): source "nope" not found (and 1 more, listed below)', '  layers[1] (layer "b"): source "gone" not found']);
    const noSprite = cli("styles", "create", "--org", "acme", "--slug", "nosprite", join(dir, "style.json"));
    expect(noSprite.code).toBe(1);
    expect(noSprite.err).toContain("only use its own sprite");
    expect(JSON.parse(cli("styles", "list", "--org", "acme", "--json").out).map((s: { slug: string }) => s.slug)).toEqual(["city"]);
    expect(cli("styles", "list", "--org", "nobody").code).toBe(1);
    expect(cli("styles", "publish", "--org", "acme").code).toBe(2);
    expect(cli("styles", "publish", "--org", "acme", "--slug", "city", "--version", "x").code).toBe(2);
    expect(cli("styles", "frobnicate", "--org", "acme").code).toBe(2);
  });

  test("draft, unpublish and delete: an operator edits and retires a style without the API", () => {
    writeFileSync(join(dir, "plain.json"), JSON.stringify({ version: 8, sources: {}, layers: [{ id: "bg", type: "background", paint: { "background-color": "#123456" } }] }));
    expect(cli("styles", "create", "--org", "acme", "--slug", "plain", join(dir, "plain.json")).code).toBe(0);
    expect(cli("styles", "publish", "--org", "acme", "--slug", "plain").code).toBe(0);

    // A new draft changes nothing clients load until it is published.
    writeFileSync(join(dir, "plain2.json"), JSON.stringify({ version: 8, sources: {}, layers: [{ id: "bg", type: "background", paint: { "background-color": "#abcdef" } }] }));
    const drafted = cli("styles", "draft", "--org", "acme", "--slug", "plain", join(dir, "plain2.json"));
    expect(drafted.err).toBe("");
    expect(drafted.out).toContain("Clients see it once you publish: mapstead styles publish --org acme --slug plain");
    const color = (version?: string) => JSON.parse(cli("styles", "export", "--org", "acme", "--slug", "plain", ...(version ? ["--version", version] : [])).out).layers[0].paint["background-color"];
    expect(color()).toBe("#123456");
    expect(cli("styles", "publish", "--org", "acme", "--slug", "plain").out).toContain("version 2");
    expect(color()).toBe("#abcdef");
    // An invalid draft is refused with the reason and leaves the draft as it was.
    const bad = cli("styles", "draft", "--org", "acme", "--slug", "plain", join(dir, "bad.json"));
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("layers[0].paint.background-color");
    expect(cli("styles", "draft", "--org", "acme", "--slug", "plain").code).toBe(2);
    expect(cli("styles", "draft", "--org", "acme", "--slug", "plain", "--version", "1", join(dir, "plain2.json")).code).toBe(2);

    const unpublished = cli("styles", "unpublish", "--org", "acme", "--slug", "plain");
    expect(unpublished.code).toBe(0);
    expect(unpublished.out).toContain("https://maps.example.com/styles/v1/acme/plain answers 404 now");
    expect(cli("styles", "export", "--org", "acme", "--slug", "plain").code).toBe(1);
    expect(color("1")).toBe("#123456");
    const again = cli("styles", "unpublish", "--org", "acme", "--slug", "plain");
    expect(again.code).toBe(0);
    expect(again.out).toContain("acme/plain is not published; nothing changed");
    // A flag of another subcommand is refused, not ignored.
    const misplaced = cli("styles", "draft", "--org", "acme", "--slug", "plain", "--sprite", join(dir, "icons"), join(dir, "plain2.json"));
    expect(misplaced.code).toBe(2);
    expect(misplaced.err).toContain("--sprite is for create, not draft");

    expect(cli("styles", "delete", "--org", "acme", "--slug", "plain").code).toBe(0);
    expect(JSON.parse(cli("styles", "list", "--org", "acme", "--json").out).map((s: { slug: string }) => s.slug)).not.toContain("plain");
    const gone = cli("styles", "delete", "--org", "acme", "--slug", "plain");
    expect(gone.code).toBe(1);
    expect(gone.err).toContain("does not exist");
  });
});
