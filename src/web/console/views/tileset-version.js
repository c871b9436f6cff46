// What the versions table says about one tileset version: while it processes, the phase with its rate
// and time left; once ready, its layers (name, features, zooms) and what was left out where.
import { h } from "../lib/dom.js";
import { fmtBytes, fmtNum } from "../lib/format.js";
import { TERMINAL } from "../lib/version-state.js";

/** 45 s, 3 min 20 s, 1 h 5 min. */
export const fmtSeconds = (s) => {
  const n = Math.max(0, Math.round(s));
  if (n < 60) return `${n} s`;
  if (n < 3600) return `${Math.floor(n / 60)} min${n % 60 ? ` ${n % 60} s` : ""}`;
  return `${Math.floor(n / 3600)} h${Math.floor((n % 3600) / 60) ? ` ${Math.floor((n % 3600) / 60)} min` : ""}`;
};

/** Phase · rate · ETA of a version still processing (null when finished or nothing is known yet). */
export function versionProgress(v) {
  const s = v.stats || {};
  if (TERMINAL.has(v.state) || !s.phase) return null;
  return h(
    "div.muted.small.version-progress",
    { "data-phase": s.phase },
    [s.phase, typeof s.rate === "number" ? `${fmtNum(Math.round(s.rate))} ${s.rate_unit}` : null, typeof s.eta_seconds === "number" ? `ETA ${fmtSeconds(s.eta_seconds)}` : null]
      .filter(Boolean)
      .join(" · "),
  );
}

/** Features left out: invalid, filtered, and shed from tiles over the byte limit (by zoom). */
function leftOut(s) {
  const dropped = Object.entries(s.dropped_by_size || {}).filter(([, n]) => n > 0);
  const shed = dropped.reduce((sum, [, n]) => sum + n, 0);
  const parts = [
    s.features_skipped ? `${fmtNum(s.features_skipped)} skipped (invalid geometry)` : null,
    s.features_repaired ? `${fmtNum(s.features_repaired)} repaired` : null,
    s.features_filtered ? `${fmtNum(s.features_filtered)} left out by the filter` : null,
    shed ? `${fmtNum(shed)} placements shed for the tile byte limit (${dropped.map(([z, n]) => `z${z}: ${fmtNum(n)}`).join(", ")})` : null,
  ].filter(Boolean);
  return parts.length ? h("div.muted.version-dropped", parts.join(" · ")) : null;
}

/** The layers of a ready vector version: name, features kept, zoom range. */
function layersTable(v) {
  const layers = v.layers || [];
  if (!layers.length) return null;
  const counts = v.stats?.features_by_layer || {};
  return h(
    "table.version-layers",
    h("thead", h("tr", h("th", "Layer"), h("th", "Features"), h("th", "Zooms"))),
    h(
      "tbody",
      ...layers.map((l) =>
        h("tr", { "data-layer": l.id }, h("td", h("code", l.id)), h("td", fmtNum(counts[l.id])), h("td", l.minzoom !== undefined ? `z${l.minzoom}–${l.maxzoom}` : "—")),
      ),
    ),
  );
}

/** The details cell of a version row. */
export function versionDetails(v) {
  if (v.state === "failed") return h("div.alert.alert-error.version-error", v.error || "Processing failed");
  const s = v.stats || {};
  return [
    h("div", `${fmtNum(s.features)} features · ${fmtNum(s.tiles)} tiles · ${s.bytes ? fmtBytes(s.bytes) : "—"}${typeof s.seconds === "number" && v.state === "ready" ? ` · ${fmtSeconds(s.seconds)}` : ""}`),
    h("div.muted", [v.source_format, v.minzoom !== null ? `z${v.minzoom}–${v.maxzoom}` : null, v.archive_format].filter(Boolean).join(" · ")),
    v.state === "ready" ? layersTable(v) : null,
    v.state === "ready" ? leftOut(s) : null,
    v.warnings && v.warnings.length ? h("div.muted", `${v.warnings.length} warning(s): ${v.warnings[0]}`) : null,
  ];
}
