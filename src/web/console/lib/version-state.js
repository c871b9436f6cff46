// A tileset version's processing state as the lists show it: a badge when finished, else a progress bar.
import { h } from "./dom.js";
import { badge } from "./widgets.js";

/** States after which a version never changes again (polling stops). */
export const TERMINAL = new Set(["ready", "failed"]);

export function versionStateCell(v, withNumber = false) {
  if (TERMINAL.has(v.state)) return h("span", badge(v.state), withNumber ? [" ", h("span.muted.small", `v${v.version}`)] : null);
  const p = h("progress", { max: 100 });
  p.value = v.progress;
  return h("div.cell-progress", badge(v.state), p, h("span.small.muted", `${Math.round(v.progress)}%`));
}
