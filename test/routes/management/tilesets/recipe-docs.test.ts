// The upload's OpenAPI description lists every recipe setting the validator knows, per layer and per
// version, so the document cannot fall behind the recipe.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { makeTestApp, type TestApp } from "../../../support/app";
import { LAYER_KEYS, VERSION_KEYS } from "../../../../src/tiles/recipe";

let t: TestApp;
beforeAll(async () => {
  t = await makeTestApp();
});
afterAll(() => t.close());

test("the upload's description names every layer and version setting of the recipe, cluster included", async () => {
  const doc = (await (await t.fetch("/openapi.json")).json()) as any;
  const upload = doc.paths["/api/v1/orgs/{org}/tilesets/{ts}/versions"].post;
  const text: string = upload.description;
  for (const key of [...LAYER_KEYS, ...VERSION_KEYS]) expect(text).toContain(`\`${key}\``);
  expect(text).toContain("point_count");
  for (const format of ["GeoJSON", "CSV", "Shapefile", "FlatGeobuf", "GeoPackage", "MBTiles", "PMTiles", "GeoTIFF"]) expect(text).toContain(format);
  expect(Object.keys(upload.requestBody.content["multipart/form-data"].schema.properties)).toContain("recipe");
});
