import { expect, test } from "bun:test";
import { isVersion, parseVersionedSlug } from "../../../src/domain/orgs/versioned-slug";

test("a slug names the stable version, slug@N one version", () => {
  expect(parseVersionedSlug("streets")).toEqual({ slug: "streets", version: null });
  expect(parseVersionedSlug("streets@1")).toEqual({ slug: "streets", version: 1 });
  expect(parseVersionedSlug("a-1@42")).toEqual({ slug: "a-1", version: 42 });
  expect(parseVersionedSlug("x@999999999")).toEqual({ slug: "x", version: 999_999_999 });
  expect(parseVersionedSlug(`${"a".repeat(63)}@7`)).toEqual({ slug: "a".repeat(63), version: 7 });
});

test("malformed names are refused", () => {
  for (const bad of [
    "",
    "@1",
    "Streets",
    "-streets",
    "streets-",
    "a".repeat(64),
    "streets@",
    "streets@0",
    "streets@01",
    "streets@-1",
    "streets@1.5",
    "streets@1e3",
    "streets@x",
    "streets@ 1",
    "streets@1@2",
    "streets@1000000000",
    "streets@1/2",
    "stre ets",
    "streets.json",
  ])
    expect([bad, parseVersionedSlug(bad)]).toEqual([bad, null]);
});

test("versions are 1 to 999999999, as URLs, the API and the CLI accept them", () => {
  expect(["1", "9", "10", "999999999"].every(isVersion)).toBe(true);
  expect(["0", "01", "-1", "1.0", "1000000000", "", " 1"].some(isVersion)).toBe(false);
});
