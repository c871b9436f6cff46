// The embedded gazetteer (instance admins): its datasets with their size and freshness, imports of a
// GeoNames file or a point tileset's features (queued as jobs; their progress is followed here), and
// a search box whose results show on a map.
import { api, upload } from "../lib/api.js";
import { confirmAndDelete } from "../lib/confirm-delete.js";
import { fill, h } from "../lib/dom.js";
import { fmtBytes, fmtDate, fmtNum } from "../lib/format.js";
import { showMap } from "../lib/map.js";
import { poll, pollNote } from "../lib/poll.js";
import { route } from "../lib/router.js";
import { current, enc, state } from "../lib/state.js";
import { badge, pageHead, showError, toast } from "../lib/widgets.js";

const POLL_MS = 500;
const BACKENDS = { embedded: "the embedded gazetteer answers geocoding", pelias: "Pelias answers geocoding (GEOCODER); the gazetteer below is not used", off: "geocoding is off (GEOCODER=off)" };

const importText = (i) =>
  `${i.source.type === "file" ? i.source.filename : `${i.source.tileset} by ${i.source.name_field}`} → ${i.dataset ?? "default dataset"} (${i.mode}): ` +
  `${i.stage === "indexing" ? "building indexes" : i.state}, ${fmtNum(i.lines)} lines, ${fmtNum(i.places)} places, ${fmtNum(i.names)} names`;

/**
 * Follows an import until it is done or failed, then shows the page again (or the error). While the
 * server does not answer, `note` says so and polling retries with backoff.
 */
function follow(status, line, bar, text, err, note, view) {
  poll(view, POLL_MS, async () => {
    const i = await api("GET", `/api/v1/gazetteer/imports/${status.id}`);
    if (!current(view)) return false;
    line.hidden = false;
    bar.value = Math.round(100 * i.progress);
    text.textContent = importText(i);
    if (i.state === "done") {
      toast(`Imported ${fmtNum(i.places)} places into ${i.dataset}`);
      route();
      return false;
    }
    if (i.state === "failed") {
      line.hidden = true;
      showError(err, new Error(i.error + (i.details?.line ? ` (line ${i.details.line})` : "")));
      return false;
    }
    return true;
  }, note);
}

function importForms(view) {
  const err = h("div", { hidden: true, id: "gazetteer-import-error" });
  const bar = h("progress", { max: 100, value: 0 });
  const text = h("span.pct", { id: "gazetteer-import-status" });
  const line = h("div.progress-line", { hidden: true }, bar, text);
  const note = pollNote("gazetteer-poll-note");
  const start = async (send) => {
    err.hidden = true;
    line.hidden = false;
    try {
      const r = await send();
      follow(r.import, line, bar, text, err, note, view);
    } catch (ex) {
      line.hidden = true;
      showError(err, ex);
    }
  };
  const dataset = h("input", { type: "text", id: "gazetteer-dataset", placeholder: "default: geonames", pattern: "[a-z0-9][a-z0-9._\\-]{0,63}" });
  const mode = h("select", { id: "gazetteer-mode" }, h("option", { value: "add" }, "add to the dataset"), h("option", { value: "replace" }, "replace the dataset"));
  const query = () => `?mode=${mode.value}${dataset.value.trim() ? `&name=${enc(dataset.value.trim())}` : ""}`;

  const file = h("input", { type: "file", id: "gazetteer-file", accept: ".zip,.txt", required: true });
  const fileForm = h(
    "form",
    {
      id: "gazetteer-upload-form",
      onsubmit: (e) => {
        e.preventDefault();
        const f = file.files[0];
        if (!f) return;
        return start(() => upload("POST", `/api/v1/gazetteer/datasets${query()}&filename=${enc(f.name)}`, f, (l, t) => ((bar.value = t ? (100 * l) / t : 0), (text.textContent = `uploading ${fmtBytes(l)}`)), "application/octet-stream"));
      },
    },
    h("div.form-row", h("label", "GeoNames file", file)),
    h("div.actions", h("button.btn.btn-primary", { type: "submit" }, "Upload and import")),
  );

  const tileset = h("input", { type: "text", id: "gazetteer-tileset", placeholder: "owner/slug", required: true });
  const field = h("input", { type: "text", id: "gazetteer-name-field", placeholder: "name", required: true });
  const tilesetForm = h(
    "form",
    {
      id: "gazetteer-tileset-form",
      onsubmit: (e) => {
        e.preventDefault();
        const body = { tileset: tileset.value.trim(), name_field: field.value.trim(), mode: mode.value };
        if (dataset.value.trim()) body.name = dataset.value.trim();
        return start(() => api("POST", "/api/v1/gazetteer/datasets/from-tileset", body));
      },
    },
    h("div.form-row", h("label", "Published point tileset", tileset), h("label", "Name field", field)),
    h("div.actions", h("button.btn", { type: "submit" }, "Import its points")),
  );

  return h(
    "div.card",
    h("h2", "Import places"),
    h(
      "p.muted.small",
      "A GeoNames dump (allCountries.zip, citiesN.zip, a country's XX.zip, alternateNamesV2.zip for other languages, admin1CodesASCII.txt for regions), " +
        "or the named points of a published vector tileset. Imports run in the background, one at a time; nothing is written if the data has a bad line.",
    ),
    err,
    h("div.form-row", h("label", "Dataset", dataset), h("label", "Mode", mode)),
    fileForm,
    tilesetForm,
    line,
    note,
  );
}

/** The geocoding backend's state when it is not ok (a Pelias that does not answer, a gazetteer still building). */
function backendHealth(health) {
  const c = health?.components?.geocoder;
  if (!c || c.status === "ok" || c.status === "not_configured") return null;
  return h(`div.alert.${c.status === "down" ? "alert-error" : "alert-warn"}`, { id: "geocoder-health", role: "status" }, h("strong", `Geocoding is ${c.status}: ${c.detail}`), c.fix ? h("div", "Fix: ", c.fix) : null);
}

function searchCard(backend) {
  const err = h("div", { hidden: true });
  const results = h("ol", { id: "gazetteer-results" });
  const mapBox = h("div", { id: "gazetteer-map" });
  const q = h("input", { type: "search", id: "gazetteer-search", placeholder: "Springfield, Illinois", required: true });
  const form = h(
    "form",
    {
      id: "gazetteer-search-form",
      onsubmit: async (e) => {
        e.preventDefault();
        err.hidden = true;
        let answer;
        try {
          answer = await api("GET", `/api/v1/gazetteer/search?q=${enc(q.value.trim())}&limit=10`);
        } catch (ex) {
          showError(err, ex);
          return;
        }
        fill(results, answer.features.length ? answer.features.map((f) => h("li", h("strong", f.properties.label), " ", h("span.muted.small", `${f.properties.layer} · ${f.properties.source}`))) : h("li.muted", "No place found."));
        const points = { type: "FeatureCollection", features: answer.features };
        const style = {
          version: 8,
          sources: { results: { type: "geojson", data: points } },
          layers: [
            { id: "background", type: "background", paint: { "background-color": "#e9eef3" } },
            { id: "results", type: "circle", source: "results", paint: { "circle-radius": 7, "circle-color": "#d9480f", "circle-stroke-width": 2, "circle-stroke-color": "#ffffff" } },
          ],
        };
        const lons = answer.features.map((f) => f.geometry.coordinates[0]);
        const lats = answer.features.map((f) => f.geometry.coordinates[1]);
        const pad = 0.5;
        const bounds = lons.length ? [Math.min(...lons) - pad, Math.min(...lats) - pad, Math.max(...lons) + pad, Math.max(...lats) + pad] : undefined;
        showMap(mapBox, style, { bounds, maxzoom: 8 });
      },
    },
    h("div.form-row", h("label", "Place", q)),
    h("div.actions", h("button.btn.btn-primary", { type: "submit" }, "Search")),
  );
  // The box searches the embedded gazetteer itself; with Pelias answering the API, say it is not what callers get.
  const note = backend === "embedded" ? null : h("p.muted.small", { id: "gazetteer-search-note" }, `This searches the embedded gazetteer, which does not answer the geocoding API while ${backend === "pelias" ? "Pelias does (GEOCODER)" : "geocoding is off"}.`);
  return h("div.card", h("h2", "Search the embedded gazetteer"), note, err, form, results, mapBox);
}

export async function renderGeocoding(main, _item, view) {
  if (!state.session.user.is_admin) {
    fill(main, pageHead("Geocoding"), h("div.alert.alert-info", "Only instance admins manage the gazetteer."));
    return;
  }
  // The geocoder component of /health/detailed says whether the backend answering the API works now.
  const [list, { imports }, health] = await Promise.all([
    api("GET", "/api/v1/gazetteer/datasets"),
    api("GET", "/api/v1/gazetteer/imports"),
    api("GET", "/health/detailed").catch(() => null),
  ]);
  if (!current(view)) return;
  const rows = list.datasets.map((d) =>
    h(
      "tr",
      { "data-dataset": d.name },
      h("td", h("code", d.name)),
      h("td", d.kind === "builtin" ? badge("built in", "neutral") : badge(d.kind, "ok")),
      h("td", fmtNum(d.places)),
      h("td", fmtNum(d.names)),
      h("td.muted.small", d.attribution),
      h("td.muted.small", fmtDate(d.updated_at)),
      h(
        "td",
        d.kind === "builtin"
          ? null
          : h(
              "button.btn.btn-small.btn-danger",
              {
                type: "button",
                "data-delete": d.name,
                onclick: () =>
                  confirmAndDelete({
                    question: [`Delete dataset ${d.name}?`, `Its ${fmtNum(d.places)} places leave geocoding answers at once.`, "Delete"],
                    path: `/api/v1/gazetteer/datasets/${enc(d.name)}`,
                    done: `Dataset ${d.name} deleted`,
                    after: route,
                  }),
              },
              "Delete",
            ),
      ),
    ),
  );
  const forms = importForms(view);
  fill(
    main,
    pageHead("Geocoding", `${BACKENDS[list.backend] ?? list.backend}. Gazetteer: ${list.state}, ${list.bytes ? fmtBytes(list.bytes) : "not built yet"}${list.built_at ? `, built ${fmtDate(list.built_at)}` : ""}.`),
    backendHealth(health),
    h(
      "div.card",
      h(
        "table",
        { id: "gazetteer-datasets" },
        h("thead", h("tr", h("th", "Dataset"), h("th", "Source"), h("th", "Places"), h("th", "Names"), h("th", "Data"), h("th", "Updated"), h("th", ""))),
        h("tbody", rows),
      ),
    ),
    forms,
    imports.length ? h("div.card", h("h2", "Recent imports"), h("ul.small", { id: "gazetteer-imports" }, imports.slice(0, 5).map((i) => h("li", importText(i), i.error ? h("span.small", ` ${i.error}`) : null)))) : null,
    searchCard(list.backend),
  );
  // An import already running (started elsewhere) is followed too.
  const running = imports.find((i) => i.state === "queued" || i.state === "running");
  if (running) follow(running, forms.querySelector(".progress-line"), forms.querySelector("progress"), forms.querySelector("#gazetteer-import-status"), forms.querySelector("#gazetteer-import-error"), forms.querySelector("#gazetteer-poll-note"), view);
}
