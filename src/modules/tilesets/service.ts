// Tileset management: records, versions, publishing. Plain TypeScript, no Elysia.
export { publishedVersionOf, versionIsReady } from "./lookup";
