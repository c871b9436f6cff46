// The renderer's public face: style + view + resources -> PNG.
export { renderMap, renderImage, renderSvg, RenderInputError, RenderAborted, MAX_RENDER_PX } from "./render";
export type { RenderView, RenderResources, RenderSourceInfo, RenderOptions, SpriteEntry } from "./types";
