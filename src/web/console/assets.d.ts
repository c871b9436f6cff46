// Typings of the imports in assets.ts: the console's own files as text (`{ type: "text" }`), and
// MapLibre GL JS's dist files as embedded file paths (`{ type: "file" }`), so the binary carries them.
// The patterns match the specifiers as assets.ts writes them.
declare module "./lib/*.js" {
  const text: string;
  export default text;
}
declare module "./views/*.js" {
  const text: string;
  export default text;
}
declare module "*/console.js" {
  const text: string;
  export default text;
}
declare module "*/console.css" {
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
