/// <reference path="./assets.d.ts" />
// Every file the console page loads, embedded in the binary: the console's own modules and styles as
// text, MapLibre GL JS as embedded files. A file missing here answers 404 in the browser, and
// test/console checks that every module under this folder is listed. (The reference above is needed
// because TypeScript skips assets.d.ts when assets.ts sits beside it.)
import consoleJs from "./console.js" with { type: "text" };
import consoleCss from "./console.css" with { type: "text" };
import libApi from "./lib/api.js" with { type: "text" };
import libConfirmDelete from "./lib/confirm-delete.js" with { type: "text" };
import libDom from "./lib/dom.js" with { type: "text" };
import libFormat from "./lib/format.js" with { type: "text" };
import libMap from "./lib/map.js" with { type: "text" };
import libPoll from "./lib/poll.js" with { type: "text" };
import libPreviewStyle from "./lib/preview-style.js" with { type: "text" };
import libRouter from "./lib/router.js" with { type: "text" };
import libSettingsCard from "./lib/settings-card.js" with { type: "text" };
import libState from "./lib/state.js" with { type: "text" };
import libVersionState from "./lib/version-state.js" with { type: "text" };
import libWidgets from "./lib/widgets.js" with { type: "text" };
import viewElevation from "./views/elevation.js" with { type: "text" };
import viewFonts from "./views/fonts.js" with { type: "text" };
import viewGeocoding from "./views/geocoding.js" with { type: "text" };
import viewKeys from "./views/keys.js" with { type: "text" };
import viewLogin from "./views/login.js" with { type: "text" };
import viewMembers from "./views/members.js" with { type: "text" };
import viewOrgs from "./views/orgs.js" with { type: "text" };
import viewOverview from "./views/overview.js" with { type: "text" };
import viewSetup from "./views/setup.js" with { type: "text" };
import viewStaticImage from "./views/static-image.js" with { type: "text" };
import viewStyle from "./views/style.js" with { type: "text" };
import viewStyles from "./views/styles.js" with { type: "text" };
import viewTileset from "./views/tileset.js" with { type: "text" };
import viewTilesetVersion from "./views/tileset-version.js" with { type: "text" };
import viewTilesets from "./views/tilesets.js" with { type: "text" };
import viewUsers from "./views/users.js" with { type: "text" };
import maplibreJs from "../../../node_modules/maplibre-gl/dist/maplibre-gl.mjs" with { type: "file" };
import maplibreWorker from "../../../node_modules/maplibre-gl/dist/maplibre-gl-worker.mjs" with { type: "file" };
import maplibreShared from "../../../node_modules/maplibre-gl/dist/maplibre-gl-shared.mjs" with { type: "file" };
import maplibreCss from "../../../node_modules/maplibre-gl/dist/maplibre-gl.css" with { type: "file" };

/** The console's own files by their path under /console/assets/, as text. */
export const CONSOLE_TEXT_ASSETS: Readonly<Record<string, string>> = {
  "console.js": consoleJs,
  "console.css": consoleCss,
  "lib/api.js": libApi,
  "lib/confirm-delete.js": libConfirmDelete,
  "lib/dom.js": libDom,
  "lib/format.js": libFormat,
  "lib/map.js": libMap,
  "lib/poll.js": libPoll,
  "lib/preview-style.js": libPreviewStyle,
  "lib/router.js": libRouter,
  "lib/settings-card.js": libSettingsCard,
  "lib/state.js": libState,
  "lib/version-state.js": libVersionState,
  "lib/widgets.js": libWidgets,
  "views/elevation.js": viewElevation,
  "views/fonts.js": viewFonts,
  "views/geocoding.js": viewGeocoding,
  "views/keys.js": viewKeys,
  "views/login.js": viewLogin,
  "views/members.js": viewMembers,
  "views/orgs.js": viewOrgs,
  "views/overview.js": viewOverview,
  "views/setup.js": viewSetup,
  "views/static-image.js": viewStaticImage,
  "views/style.js": viewStyle,
  "views/styles.js": viewStyles,
  "views/tileset.js": viewTileset,
  "views/tileset-version.js": viewTilesetVersion,
  "views/tilesets.js": viewTilesets,
  "views/users.js": viewUsers,
};

/** MapLibre GL JS's dist files by their name under /console/assets/, as embedded file paths. */
export const CONSOLE_FILE_ASSETS: Readonly<Record<string, string>> = {
  "maplibre-gl.mjs": maplibreJs,
  "maplibre-gl-worker.mjs": maplibreWorker,
  "maplibre-gl-shared.mjs": maplibreShared,
  "maplibre-gl.css": maplibreCss,
};

/** Content type by file extension; every asset above ends in one of these. */
export function assetContentType(path: string): string {
  return path.endsWith(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8";
}
