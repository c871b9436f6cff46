// The console's page files, imported as text (`{ type: "text" }`), and MapLibre GL JS's dist files,
// imported as embedded file paths (`{ type: "file" }`), so the binary carries them.
declare module "*/web/console/console.js" {
  const text: string;
  export default text;
}
declare module "*/web/console/console.css" {
  const text: string;
  export default text;
}
declare module "*/maplibre-gl/dist/maplibre-gl.mjs" {
  const path: string;
  export default path;
}
declare module "*/maplibre-gl/dist/maplibre-gl-worker.mjs" {
  const path: string;
  export default path;
}
declare module "*/maplibre-gl/dist/maplibre-gl-shared.mjs" {
  const path: string;
  export default path;
}
declare module "*/maplibre-gl/dist/maplibre-gl.css" {
  const path: string;
  export default path;
}
