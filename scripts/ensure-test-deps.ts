// Run by `bun run test` before the suite: the browser tests need Debian's chromium (MapLibre GL JS
// renders there with WebGL through SwiftShader), other tests shellcheck, /usr/bin/time and GDAL's tools. As root on Debian it is installed here; otherwise
// the message says what to install.
import { existsSync } from "node:fs";

const needed: { bin: string; pkg: string }[] = [
  { bin: "chromium", pkg: "chromium" },
  // test/install runs shellcheck on install.sh
  { bin: "shellcheck", pkg: "shellcheck" },
  // the large-input tiling test reads the importer's own peak RSS from /usr/bin/time
  { bin: "time", pkg: "time" },
  // the desktop-GIS interop tests run GDAL's own tools (gdalinfo, gdal_translate, ogrinfo, ogr2ogr)
  { bin: "gdalinfo", pkg: "gdal-bin" },
];
const missing = needed.filter((n) => !Bun.which(n.bin));
if (missing.length) {
  const pkgs = missing.map((m) => m.pkg);
  const isRoot = process.getuid?.() === 0;
  if (isRoot && existsSync("/usr/bin/apt-get")) {
    console.log(`Installing ${pkgs.join(", ")} from Debian for the browser tests ...`);
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    for (const cmd of [["apt-get", "update"], ["apt-get", "install", "-y", "--no-install-recommends", ...pkgs]]) {
      const r = Bun.spawnSync(cmd, { stdout: "inherit", stderr: "inherit", env });
      if (r.exitCode !== 0) process.exit(r.exitCode ?? 1);
    }
  } else {
    console.error(`The browser tests need: ${pkgs.join(", ")}. Install with: sudo apt-get install -y ${pkgs.join(" ")}`);
    process.exit(1);
  }
}
