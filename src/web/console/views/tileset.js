// One tileset: upload data (with progress), watch versions process, publish one, its TileJSON URLs,
// a live preview and the settings.
import { api, errorFrom, upload } from "../lib/api.js";
import { confirmAndDelete } from "../lib/confirm-delete.js";
import { fill, h } from "../lib/dom.js";
import { fmtBytes, fmtDate } from "../lib/format.js";
import { showMap } from "../lib/map.js";
import { tilesetPreviewStyle } from "../lib/preview-style.js";
import { go } from "../lib/router.js";
import { settingsCard } from "../lib/settings-card.js";
import { current, enc, orgPath, state } from "../lib/state.js";
import { TERMINAL, versionStateCell } from "../lib/version-state.js";
import { poll as pollLoop, pollNote as makePollNote } from "../lib/poll.js";
import { versionDetails, versionProgress } from "./tileset-version.js";
import { badge, copyButton, errorBox, pageHead, privateUrlsNote, showError, toast, urlRow } from "../lib/widgets.js";

// Every format the upload takes (README "Tilesets and tiles"), elevation rasters (GeoTIFF, SRTM .hgt) included.
const UPLOAD_ACCEPT = ".geojson,.json,.ndjson,.geojsonl,.csv,.zip,.fgb,.gpkg,.mbtiles,.pmtiles,.tif,.tiff,.hgt";
// The tiling engine's deepest zoom (src/tiles/recipe.ts MAX_ZOOM).
const MAX_ZOOM = 16;

export async function renderTileset(main, slug, view) {
  const base = orgPath(`/tilesets/${enc(slug)}`);
  let [tileset, { versions }] = await Promise.all([api("GET", base), api("GET", `${base}/versions`)]);
  if (!current(view)) return;

  const urlsCard = h("div.card", { id: "tileset-urls" });
  const versionsBody = h("tbody");
  const previewSlot = h("div");
  const previewCard = h("div.card", { id: "tileset-preview" }, h("h2", "Preview"), previewSlot);
  /** The version the preview card shows, or null while it waits for a ready one. */
  let previewed = null;

  const renderUrls = () => {
    const pub = versions.find((v) => v.version === tileset.published_version);
    const verify = h("div", { id: "tilejson-check" });
    fill(urlsCard,
      h("h2", "TileJSON URLs"),
      urlRow("Stable", tileset.tilejson_url, "Publish a ready version to get the stable URL"),
      urlRow("Versioned", pub ? pub.tilejson_url : null, "—"),
      privateUrlsNote(tileset.visibility),
      tileset.tilejson_url
        ? h(
            "div.actions",
            h(
              "button.btn.btn-small",
              {
                type: "button",
                id: "verify-tilejson",
                onclick: async () => {
                  try {
                    // Fetched as a map client would (the public URL, not the management API).
                    const res = await fetch(tileset.tilejson_url, { credentials: "same-origin", cache: "no-store" });
                    if (!res.ok) throw errorFrom(res.status, await res.text());
                    const tj = await res.json();
                    // The tile URL template as the server writes it, for clients without TileJSON (Leaflet, QGIS XYZ).
                    const tiles = (tj.tiles || [])[0];
                    fill(verify,
                      h(
                        "div.alert.alert-ok",
                        `TileJSON ${tj.tilejson} answers: zoom ${tj.minzoom}–${tj.maxzoom}, ${(tj.vector_layers || []).length} vector layer(s), tiles at `,
                        h("code", { id: "tile-url" }, tiles || "—"),
                        tiles ? [" ", copyButton(tiles, "Tile URL copied")] : null,
                      ),
                    );
                  } catch (ex) {
                    fill(verify, errorBox(ex));
                  }
                },
              },
              "Verify TileJSON",
            ),
            h("span.muted.small", "Tile URLs in every TileJSON are versioned, so they never change meaning."),
          )
        : null,
      verify,
    );
  };

  const renderVersions = () => {
    fill(versionsBody,
      ...(versions.length
        ? versions.map((v) => {
            const actions = h("div.actions");
            if (v.state === "ready" && !v.published)
              actions.append(h("button.btn.btn-small.btn-primary", { type: "button", "data-publish": v.version, onclick: () => publish(v.version) }, "Publish"));
            if (v.published) actions.append(h("button.btn.btn-small", { type: "button", id: "unpublish-tileset", onclick: unpublish }, "Unpublish"));
            if (v.state === "ready") actions.append(h("button.btn.btn-small", { type: "button", onclick: () => preview(v) }, "Preview"));
            if (!v.published) actions.append(h("button.btn.btn-small.btn-danger", { type: "button", onclick: () => removeVersion(v.version) }, "Delete"));
            return h(
              "tr",
              { "data-version": v.version, "data-state": v.state },
              h(
                "td",
                h("strong", `v${v.version}`),
                v.published ? [" ", badge("published")] : v.state === "ready" && v.published_at === null && tileset.visibility === "public" ? [" ", h("span.muted.small", { title: "Its URLs answer only to this organization until its first publish" }, "members only")] : null,
              ),
              h("td", versionStateCell(v), versionProgress(v)),
              h("td.small", versionDetails(v)),
              h("td.muted.small", fmtDate(v.created_at)),
              h("td.right", actions),
            );
          })
        : [h("tr", h("td.empty", { colSpan: 5 }, "No versions yet: upload a file above."))]),
    );
  };

  const removeVersion = (n) =>
    confirmAndDelete({
      question: [`Delete version ${n}?`, "Its files and versioned TileJSON URL go away; processing stops if it is still running. Version numbers are never reused.", "Delete version"],
      path: `${base}/versions/${n}`,
      done: `Version ${n} deleted`,
      after: () => {
        versions = versions.filter((x) => x.version !== n);
        renderVersions();
      },
    });

  const preview = (v) => {
    previewed = v.version;
    previewCard.querySelector("h2").textContent = `Preview of v${v.version}`;
    showMap(previewSlot, tilesetPreviewStyle(v), { bounds: v.bounds, maxzoom: v.maxzoom });
  };

  /** Reads the tileset and its versions again after a publish or an unpublish; false once the page is left. */
  const reload = async () => {
    [tileset, { versions }] = await Promise.all([api("GET", base), api("GET", `${base}/versions`)]);
    if (!current(view)) return false;
    renderHead();
    renderVersions();
    renderUrls();
    return true;
  };

  const publish = async (n) => {
    try {
      await api("POST", `${base}/publish`, { version: n });
      if (!(await reload())) return;
      toast(`Version ${n} published`);
      const v = versions.find((x) => x.version === n);
      if (v) preview(v);
    } catch (ex) {
      toast(ex.message, "error");
    }
  };

  // Map clients on the stable URL break, so it asks first; the published version becomes deletable.
  const unpublish = () =>
    confirmAndDelete({
      question: [
        `Unpublish ${slug}?`,
        "Its stable TileJSON URL answers 404 until you publish a version again; versioned URLs keep working. Published styles that use the stable TileJSON draw without this tileset meanwhile.",
        "Unpublish",
      ],
      path: `${base}/unpublish`,
      method: "POST",
      done: `Tileset ${slug} unpublished`,
      after: reload,
    });

  /**
   * Polls unfinished versions every second until they are ready or failed. While the server does not
   * answer (stopped, restarting) the versions card says so and polling retries with backoff; it resumes
   * updating as soon as the server answers again.
   */
  const pollNote = makePollNote("versions-poll-note");
  let polling = false;
  const refreshVersions = async () => {
    for (const v of versions.filter((x) => !TERMINAL.has(x.state))) {
      let fresh;
      try {
        fresh = await api("GET", `${base}/versions/${v.version}`);
      } catch (ex) {
        // Deleted elsewhere (another tab, the CLI): drop it from the list instead of retrying forever.
        if (ex.status !== 404) throw ex;
        versions = versions.filter((x) => x.version !== v.version);
        continue;
      }
      if (!current(view)) return false;
      versions = versions.map((x) => (x.version === fresh.version ? fresh : x));
      // "Uploaded …; processing as vN" is over once vN is: the row and a toast say how it ended.
      if (TERMINAL.has(fresh.state) && fresh.version === uploadedVersion) progressLine.hidden = true;
      if (fresh.state === "ready") {
        toast(`Version ${fresh.version} is ready to publish`);
        // The card said "a preview appears once a version is ready": keep that promise.
        if (previewed === null) preview(fresh);
      }
      if (fresh.state === "failed") toast(`Version ${fresh.version} failed: ${fresh.error}`, "error");
    }
    renderVersions();
    return versions.some((x) => !TERMINAL.has(x.state));
  };
  const poll = async () => {
    if (polling || !versions.some((v) => !TERMINAL.has(v.state))) return;
    polling = true;
    try {
      await pollLoop(view, 1000, refreshVersions, pollNote);
    } finally {
      polling = false;
    }
  };

  // Upload form
  const uploadErr = h("div", { hidden: true });
  const file = h("input", { type: "file", id: "tileset-file", name: "file", accept: UPLOAD_ACCEPT, required: true });
  const layer = h("input", { type: "text", id: "tileset-layer", placeholder: slug });
  const minzoom = h("input", { type: "number", id: "tileset-minzoom", min: 0, max: MAX_ZOOM, placeholder: "0" });
  const maxzoom = h("input", { type: "number", id: "tileset-maxzoom", min: 0, max: MAX_ZOOM, placeholder: "auto" });
  const bar = h("progress", { max: 100, id: "upload-progress" });
  bar.value = 0;
  const pct = h("span.pct", "");
  const progressLine = h("div.progress-line", { hidden: true }, bar, pct);
  const submit = h("button.btn.btn-primary", { type: "submit", id: "upload-button" }, "Upload");
  const control = {};
  /** The version the upload form's progress line talks about. */
  let uploadedVersion = null;
  const cancel = h("button.btn", { type: "button", hidden: true, onclick: () => control.abort?.() }, "Cancel upload");
  const uploadForm = h(
    "form.card",
    {
      id: "upload-form",
      onsubmit: async (e) => {
        e.preventDefault();
        uploadErr.hidden = true;
        const f = file.files[0];
        if (!f) return;
        const form = new FormData();
        if (layer.value.trim()) form.append("layer", layer.value.trim());
        if (minzoom.value !== "") form.append("minzoom", minzoom.value);
        if (maxzoom.value !== "") form.append("maxzoom", maxzoom.value);
        form.append("file", f, f.name);
        submit.disabled = true;
        cancel.hidden = false;
        progressLine.hidden = false;
        bar.value = 0;
        pct.textContent = `0 of ${fmtBytes(f.size)}`;
        try {
          const v = await upload("POST", `${base}/versions?filename=${enc(f.name)}`, form, (loaded, total) => {
            const t = total || f.size;
            bar.value = t ? (100 * loaded) / t : 0;
            pct.textContent = `${fmtBytes(loaded)} of ${fmtBytes(t)} uploaded`;
          }, undefined, control);
          if (!current(view)) return;
          bar.value = 100;
          pct.textContent = `Uploaded ${fmtBytes(f.size)}; processing as v${v.version}`;
          uploadedVersion = v.version;
          file.value = "";
          versions = [v, ...versions.filter((x) => x.version !== v.version)];
          renderVersions();
          poll();
        } catch (ex) {
          progressLine.hidden = true;
          showError(uploadErr, ex);
        } finally {
          submit.disabled = false;
          cancel.hidden = true;
        }
      },
    },
    h("h2", "Upload data"),
    h("p.muted.small", "GeoJSON, newline-delimited GeoJSON, CSV with lon/lat columns, zipped Shapefile, FlatGeobuf, GeoPackage, MBTiles or PMTiles. Each upload becomes a new immutable version."),
    uploadErr,
    h("div.form-row", h("label", "File", file), h("label", "Layer name", layer, h("span.hint", "Vector layer id (default: the slug)")), h("label", "Min zoom", minzoom), h("label", "Max zoom", maxzoom)),
    h("div.actions", submit, cancel),
    progressLine,
  );

  const head = h("div");
  const renderHead = () =>
    fill(head,
      h("div.crumbs", h("a", { href: `#/${enc(state.org)}/tilesets` }, "Tilesets"), " / ", slug),
      pageHead(
        tileset.name || tileset.slug,
        [tileset.description, tileset.attribution ? `Attribution: ${tileset.attribution.replace(/<[^>]*>/g, "")}` : null].filter(Boolean).join(" · ") || `${state.org}/${tileset.slug}`,
        tileset.visibility === "private" ? badge("private") : badge("public", "neutral"),
        tileset.published_version !== null ? badge(`v${tileset.published_version} published`, "published") : badge("unpublished", "draft"),
        h(
          "button.btn.btn-danger.btn-small",
          {
            type: "button",
            onclick: () =>
              confirmAndDelete({
                question: [`Delete tileset ${slug}?`, "Every version, file and tile URL of this tileset goes away at once. While a published style uses it, the server refuses: publish those styles without it first. Drafts naming it lose that source.", "Delete tileset"],
                path: base,
                done: `Tileset ${slug} deleted`,
                after: () => go("tilesets"),
              }),
          },
          "Delete",
        ),
      ),
    );

  renderHead();
  renderVersions();
  renderUrls();
  fill(main,
    head,
    uploadForm,
    h("div.card", h("h2", "Versions"), pollNote, h("table", h("thead", h("tr", h("th", "Version"), h("th", "State"), h("th", "Details"), h("th", "Created"), h("th"))), versionsBody)),
    urlsCard,
    previewCard,
    settingsCard(
      "tileset-settings",
      base,
      tileset,
      [
        ["name", "Name"],
        ["visibility", "Visibility"],
        ["attribution", "Attribution", "Shown by map clients; HTML links allowed"],
        ["description", "Description"],
      ],
      (fresh) => {
        tileset = fresh;
        renderHead();
        // Visibility decides what the versions and URLs say about who may read them.
        renderVersions();
        renderUrls();
      },
    ),
  );
  const shown = versions.find((v) => v.published) || versions.find((v) => v.state === "ready");
  if (shown) preview(shown);
  else fill(previewSlot, h("p.muted", "A preview appears once a version is ready."));
  poll();
}
