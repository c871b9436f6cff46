// Which build this is. scripts/build.ts compiles the commit it was built from into the binary
// (MAPSTEAD_BUILD), so `mapstead version`, /health/detailed and the start-up log tell two builds of one
// release apart after an upgrade or a rollback; run from source, the package version alone.
import pkg from "../package.json";

declare const MAPSTEAD_BUILD: string | undefined;

const build = typeof MAPSTEAD_BUILD === "string" ? MAPSTEAD_BUILD : "";

/** The package version, with the build's commit as semver build metadata (0.1.0+3f2c1a9b0d1e). */
export const VERSION = build ? `${pkg.version}+${build}` : pkg.version;
