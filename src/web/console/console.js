// Mapstead management console: one ES module, no framework, no build step. Talks only to this
// origin's management API. The CSRF token lives in memory (never in storage or URLs); every unsafe
// request sends it as X-CSRF-Token. Routes live in the location hash: #/{org}/{section}[/{item}].

const SCOPES = [
  ["maps:read", "Read private styles, tilesets and sprites"],
  ["geocoding", "Forward, reverse, autocomplete and batch geocoding"],
  ["routing", "Directions and routing"],
  ["elevation", "Point and along-route elevation"],
  ["static_maps", "Static map images"],
  ["tilesets:write", "Upload and publish tilesets (automation)"],
  ["styles:write", "Edit and publish styles (automation)"],
];
const UPLOAD_ACCEPT = ".geojson,.json,.ndjson,.geojsonl,.csv,.zip,.fgb,.mbtiles,.pmtiles";
const TERMINAL = new Set(["ready", "failed"]);
const PALETTE = ["#2f6fdf", "#d9480f", "#2b8a3e", "#862e9c", "#c2255c", "#0b7285", "#e67700"];

const state = {
  session: null, // {user, csrf_token, orgs, ...}
  org: null, // slug
  view: 0, // bumped on every navigation; stale pollers and callbacks stop when it changes
  map: null,
};

// ---------------------------------------------------------------- DOM helpers

/** h("div.card", {onclick}, child, ...) builds elements; strings become text nodes (never HTML). */
function h(spec, attrs, ...children) {
  const [tag, ...classes] = spec.split(".");
  const el = document.createElement(tag || "div");
  if (classes.length) el.className = classes.join(" ");
  if (attrs && (typeof attrs !== "object" || attrs instanceof Node || Array.isArray(attrs))) {
    children.unshift(attrs);
    attrs = null;
  }
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className += (el.className ? " " : "") + v;
    else if (k === "text") el.textContent = v;
    else if (k in el && typeof v !== "string") el[k] = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}
function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}
/** Replaces an element's children; like append, skips null/false and flattens arrays. */
function fill(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}
const $ = (sel, root = document) => root.querySelector(sel);
const badge = (text, kind = text) => h("span", { class: `badge badge-${kind}` }, text);
const fmtDate = (v) => {
  if (v === null || v === undefined) return "—";
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? "—" : d.toLocaleString(undefined, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
};
const fmtBytes = (n) => (n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`);
const fmtNum = (n) => (typeof n === "number" ? n.toLocaleString() : "—");

function toast(message, kind = "") {
  const t = h("div", { class: `toast ${kind}`, role: kind === "error" ? "alert" : "status" }, message);
  $("#toasts").append(t);
  setTimeout(() => t.remove(), kind === "error" ? 7000 : 3500);
}

function confirmDialog(title, text, okLabel = "Confirm") {
  const dlg = $("#confirm-dialog");
  $("#confirm-title").textContent = title;
  $("#confirm-text").textContent = text;
  $("#confirm-ok").textContent = okLabel;
  dlg.returnValue = "";
  dlg.showModal();
  return new Promise((resolve) => dlg.addEventListener("close", () => resolve(dlg.returnValue === "ok"), { once: true }));
}

async function copy(text, what = "Copied") {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // Clipboard API needs a secure context; fall back to a selection copy on plain http.
    const ta = h("textarea", { readonly: true });
    ta.value = text;
    document.body.append(ta);
    ta.select();
    document.execCommand("copy");
    ta.remove();
  }
  toast(`${what} to the clipboard`);
}
const copyButton = (text, what) => h("button.btn.btn-small", { type: "button", onclick: () => copy(text, what) }, "Copy");

function urlRow(label, url, note) {
  return h(
    "div.url-row",
    h("span.lbl", label),
    url ? h("code", { "data-url": label }, url) : h("span.muted", note || "—"),
    url ? h("div.actions", copyButton(url, `${label} copied`), h("a.btn.btn-small", { href: url, target: "_blank", rel: "noopener" }, "Open")) : h("span"),
  );
}

/** An alert listing an API error: message, then each {path, message} of 422 details. */
function errorBox(err) {
  const box = h("div.alert.alert-error", { role: "alert" }, h("strong", err.message || String(err)));
  const details = Array.isArray(err.details) ? err.details : [];
  if (details.length) {
    box.append(
      h(
        "ul",
        details.slice(0, 100).map((d) => h("li", d && typeof d === "object" ? [d.path ? h("code", d.path) : null, d.path ? " " : "", d.message ?? JSON.stringify(d)] : String(d))),
      ),
    );
  }
  return box;
}
function showError(slot, err) {
  fill(slot, errorBox(err));
  slot.hidden = false;
}

// ---------------------------------------------------------------- API

class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

async function errorFrom(status, text) {
  try {
    const body = JSON.parse(text);
    if (body && body.error) return new ApiError(status, body.error.code, body.error.message, body.error.details);
  } catch {}
  return new ApiError(status, "HTTP_" + status, `The server answered HTTP ${status}`);
}

function onUnauthorized(err) {
  if (err.status === 401 && state.session && !String(err.code).startsWith("KEY")) {
    state.session = null;
    showLogin("Your session ended; sign in again.");
  }
}

async function api(method, path, body, extra = {}) {
  const headers = { accept: "application/json", ...(extra.headers || {}) };
  if (method !== "GET" && method !== "HEAD" && state.session) headers["x-csrf-token"] = state.session.csrf_token;
  let payload;
  if (body !== undefined) {
    headers["content-type"] = "application/json";
    payload = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, { method, headers, body: payload, credentials: "same-origin", cache: "no-store" });
  } catch {
    throw new ApiError(0, "NETWORK", "The server cannot be reached; check that Mapstead is running");
  }
  const text = await res.text();
  if (!res.ok) {
    const err = await errorFrom(res.status, text);
    if (!extra.quiet401) onUnauthorized(err);
    throw err;
  }
  return text ? JSON.parse(text) : null;
}

/** Upload with XMLHttpRequest for upload progress events; resolves with the parsed JSON answer. */
function upload(method, path, body, onProgress, contentType, control = {}) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    control.abort = () => xhr.abort();
    xhr.open(method, path);
    xhr.withCredentials = true;
    xhr.setRequestHeader("accept", "application/json");
    xhr.setRequestHeader("x-csrf-token", state.session.csrf_token);
    if (contentType) xhr.setRequestHeader("content-type", contentType);
    xhr.upload.addEventListener("progress", (e) => onProgress(e.loaded, e.lengthComputable ? e.total : 0));
    xhr.addEventListener("load", async () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        resolve(xhr.responseText ? JSON.parse(xhr.responseText) : null);
      } else {
        const err = await errorFrom(xhr.status, xhr.responseText);
        onUnauthorized(err);
        reject(err);
      }
    });
    xhr.addEventListener("error", () => reject(new ApiError(0, "NETWORK", "The upload was interrupted (network error or the server closed the connection)")));
    xhr.addEventListener("abort", () => reject(new ApiError(0, "ABORTED", "The upload was cancelled")));
    xhr.send(body);
  });
}

const orgPath = (rest = "") => `/api/v1/orgs/${encodeURIComponent(state.org)}${rest}`;
const enc = encodeURIComponent;

// ---------------------------------------------------------------- session

function showLogin(message) {
  destroyMap();
  state.view++;
  $("#app-view").hidden = true;
  $("#login-view").hidden = false;
  const err = $("#login-error");
  if (message) {
    err.textContent = message;
    err.hidden = false;
  } else err.hidden = true;
  $("#login-email").focus();
}

async function login(e) {
  e.preventDefault();
  const btn = $("#login-form button[type=submit]");
  const err = $("#login-error");
  err.hidden = true;
  btn.disabled = true;
  try {
    const session = await api("POST", "/api/v1/session", { email: $("#login-email").value, password: $("#login-password").value }, { quiet401: true });
    $("#login-password").value = "";
    startApp(session);
  } catch (ex) {
    err.textContent = ex.message;
    err.hidden = false;
  } finally {
    btn.disabled = false;
  }
}

async function logout() {
  try {
    await api("DELETE", "/api/v1/session");
  } catch {}
  state.session = null;
  location.hash = "";
  showLogin();
}

async function refreshSession() {
  state.session = await api("GET", "/api/v1/session");
  renderOrgPicker();
}

function startApp(session) {
  state.session = session;
  $("#login-view").hidden = true;
  $("#app-view").hidden = false;
  $("#user-email").textContent = session.user.email + (session.user.is_admin ? " (admin)" : "");
  for (const a of document.querySelectorAll("#nav a[data-admin]")) {
    a.hidden = !session.user.is_admin;
    if (!a.querySelector(".tag")) a.append(h("span.tag", "admin"));
  }
  renderOrgPicker();
  route();
}

function renderOrgPicker() {
  const select = $("#org-select");
  const orgs = state.session.orgs;
  fill(select, ...orgs.map((o) => h("option", { value: o.slug }, o.name && o.name !== o.slug ? `${o.name} (${o.slug})` : o.slug)));
  select.disabled = orgs.length === 0;
  if (!orgs.length) select.append(h("option", { value: "" }, "No organization yet"));
  if (state.org) select.value = state.org;
}

// ---------------------------------------------------------------- routing

function go(section, item) {
  const parts = ["", state.org || "", section];
  if (item) parts.push(item);
  const hash = "#" + parts.map((p) => enc(p)).join("/");
  if (location.hash === hash) route();
  else location.hash = hash;
}

function parseHash() {
  const parts = location.hash.replace(/^#\/?/, "").split("/").map((p) => decodeURIComponent(p));
  return { org: parts[0] || null, section: parts[1] || "overview", item: parts[2] || null };
}

const SECTIONS = { overview: renderOverview, tilesets: renderTilesets, styles: renderStyles, keys: renderKeys, members: renderMembers, fonts: renderFonts, setup: renderSetup, "new-org": renderNewOrg };

function route() {
  if (!state.session) return;
  destroyMap();
  const view = ++state.view;
  let { org, section, item } = parseHash();
  const orgs = state.session.orgs;
  if (section === "new-org" || !orgs.length) {
    if (!["new-org", "fonts", "setup"].includes(section) || (!state.session.user.is_admin && section !== "new-org")) section = "new-org";
  }
  if (section !== "new-org" && orgs.length && !orgs.some((o) => o.slug === org)) {
    const keep = state.org && orgs.some((o) => o.slug === state.org) ? state.org : orgs[0].slug;
    location.replace(`#/${enc(keep)}/${enc(section)}${item ? "/" + enc(item) : ""}`);
    return;
  }
  if (org && orgs.some((o) => o.slug === org)) state.org = org;
  $("#org-select").value = state.org || "";
  for (const a of document.querySelectorAll("#nav a")) {
    a.classList.toggle("active", a.dataset.section === section);
    a.href = `#/${enc(state.org || "")}/${a.dataset.section}`;
  }
  const main = $("#main");
  fill(main, h("p.muted", "Loading…"));
  const render = SECTIONS[section] || renderOverview;
  Promise.resolve(render(main, item, view)).catch((err) => {
    if (view !== state.view) return;
    fill(main, pageHead("Something went wrong"), errorBox(err));
  });
}

const current = (view) => view === state.view;
const orgInfo = () => state.session.orgs.find((o) => o.slug === state.org);
const canAdmin = () => state.session.user.is_admin || ["owner", "admin"].includes(orgInfo()?.role);

function pageHead(title, subtitle, ...actions) {
  return h("div.page-head", h("div", h("h1", title), subtitle ? h("p.muted", subtitle) : null), actions.length ? h("div.actions", actions) : null);
}

// ---------------------------------------------------------------- map preview

let maplibre = null;
async function loadMaplibre() {
  maplibre ||= await import("/console/assets/maplibre-gl.mjs");
  return maplibre;
}

function destroyMap() {
  if (state.map) {
    try {
      state.map.remove();
    } catch {}
    state.map = null;
  }
}

/** A map in `container` showing `style` (URL or object); status line reports loading and errors. */
async function showMap(container, style, opts = {}) {
  destroyMap();
  const view = state.view;
  const status = h("div.map-status", "Loading map…");
  const mapEl = h("div.map", { id: "map-preview", "data-style": typeof style === "string" ? style : "inline" });
  fill(container, h("div.map-wrap", mapEl, status));
  let ml;
  try {
    ml = await loadMaplibre();
  } catch (err) {
    status.textContent = `The map library failed to load: ${err.message}`;
    status.classList.add("error");
    return;
  }
  if (!current(view)) return;
  const map = new ml.Map({
    container: mapEl,
    style,
    attributionControl: { compact: true },
    fadeDuration: 0,
    canvasContextAttributes: { preserveDrawingBuffer: true },
  });
  state.map = map;
  map.addControl(new ml.NavigationControl({ showCompass: false }), "top-right");
  let errors = 0;
  map.on("error", (e) => {
    errors++;
    status.textContent = `Map error: ${(e && e.error && e.error.message) || "a request failed"}`;
    status.classList.add("error");
  });
  map.once("load", () => {
    // A style without its own centre opens on the extent of its first source that declares bounds.
    let bounds = opts.bounds;
    if (!bounds && !map.getStyle().center)
      for (const id of Object.keys(map.getStyle().sources || {})) {
        const b = map.getSource(id)?.bounds;
        if (Array.isArray(b) && b.length === 4) {
          bounds = b;
          break;
        }
      }
    if (bounds && bounds.length === 4) {
      const [w, s, e, n] = bounds;
      if (e - w < 359 || n - s < 170) map.fitBounds([[w, s], [e, n]], { padding: 30, animate: false, maxZoom: opts.maxzoom ?? 14 });
    }
  });
  map.on("idle", () => {
    if (!errors) status.textContent = "Map loaded";
    mapEl.dataset.idle = "true";
  });
}

/** Layers that draw every vector layer: fill, outline, line and circle, each for its geometry type. */
function layersFor(sourceId, vectorLayers, opts = {}) {
  const layers = [];
  vectorLayers.forEach((vl, i) => {
    const color = PALETTE[i % PALETTE.length];
    const kinds = geometryKinds(vl);
    const base = { source: sourceId, "source-layer": vl.id };
    if (kinds.has("polygon")) {
      layers.push({ id: `${vl.id}-fill`, type: "fill", ...base, filter: ["==", "$type", "Polygon"], paint: { "fill-color": color, "fill-opacity": opts.fillOpacity ?? 0.45 } });
      layers.push({ id: `${vl.id}-outline`, type: "line", ...base, filter: ["==", "$type", "Polygon"], paint: { "line-color": color, "line-width": 1 } });
    }
    if (kinds.has("line")) layers.push({ id: `${vl.id}-line`, type: "line", ...base, filter: ["==", "$type", "LineString"], paint: { "line-color": color, "line-width": 2 } });
    if (kinds.has("point"))
      layers.push({
        id: `${vl.id}-circle`,
        type: "circle",
        ...base,
        filter: ["==", "$type", "Point"],
        paint: { "circle-color": color, "circle-radius": 5, "circle-stroke-color": "#ffffff", "circle-stroke-width": 1.5 },
      });
  });
  return layers;
}

/** Geometry types of a vector layer when the tileset says so (tilestats-style fields), else all three. */
function geometryKinds(vl) {
  const raw = [vl.geometry_type, vl.geometry, vl.geometryType, ...(Array.isArray(vl.geometry_types) ? vl.geometry_types : [])].filter((x) => typeof x === "string");
  const kinds = new Set();
  for (const g of raw) {
    const s = g.toLowerCase();
    if (s.includes("polygon")) kinds.add("polygon");
    else if (s.includes("line")) kinds.add("line");
    else if (s.includes("point")) kinds.add("point");
  }
  return kinds.size ? kinds : new Set(["polygon", "line", "point"]);
}

/** A minimal style for one tileset version: raster tiles as they are, vector layers drawn by type. */
function tilesetPreviewStyle(v) {
  const background = { id: "background", type: "background", paint: { "background-color": "#eef2f5" } };
  if (v.format && v.format !== "pbf")
    return { version: 8, sources: { data: { type: "raster", url: v.tilejson_url, tileSize: 256 } }, layers: [background, { id: "raster", type: "raster", source: "data" }] };
  return { version: 8, sources: { data: { type: "vector", url: v.tilejson_url } }, layers: [background, ...layersFor("data", v.layers || [])] };
}

/** A form that PATCHes the editable fields of a tileset or style; `onSaved` gets the new record. */
function settingsCard(id, path, record, fields, onSaved) {
  const err = h("div", { hidden: true });
  const inputs = {};
  for (const [key] of fields) {
    inputs[key] =
      key === "visibility"
        ? h("select", { name: key }, h("option", { value: "public" }, "Public"), h("option", { value: "private" }, "Private (members and maps:read keys)"))
        : h("input", { type: "text", name: key });
    inputs[key].value = record[key] ?? "";
  }
  const form = h(
    "form.card",
    {
      id,
      onsubmit: async (e) => {
        e.preventDefault();
        err.hidden = true;
        const body = {};
        for (const [key] of fields) if (inputs[key].value !== (record[key] ?? "")) body[key] = inputs[key].value;
        if (!Object.keys(body).length) return toast("Nothing changed");
        try {
          record = await api("PATCH", path, body);
          toast("Settings saved");
          onSaved(record);
        } catch (ex) {
          showError(err, ex);
        }
      },
    },
    h("h2", "Settings"),
    err,
    h("div.form-row", fields.map(([key, label, hint]) => h("label", label, inputs[key], hint ? h("span.hint", hint) : null))),
    h("div.actions", h("button.btn", { type: "submit" }, "Save settings")),
  );
  return form;
}

// ---------------------------------------------------------------- overview

async function renderOverview(main, _item, view) {
  const [ts, st, keys] = await Promise.all([
    api("GET", orgPath("/tilesets")),
    api("GET", orgPath("/styles")),
    api("GET", orgPath("/keys")).catch(() => ({ keys: [] })),
  ]);
  if (!current(view)) return;
  const publishedTs = ts.tilesets.filter((t) => t.published_version !== null);
  const publishedSt = st.styles.filter((s) => s.published_version !== null);
  const org = orgInfo();
  const stat = (num, lbl, section) => h("a.stat", { href: `#/${enc(state.org)}/${section}` }, h("div.num", String(num)), h("div.lbl", lbl));
  const step = (done, text, section) => h("li", { class: done ? "done" : "" }, section ? h("a", { href: `#/${enc(state.org)}/${section}` }, text) : text);
  const firstStyle = publishedSt[0];
  fill(main,
    pageHead(org.name || org.slug, `Organization ${org.slug} · your role: ${org.role}`),
    h(
      "div.stats",
      stat(ts.tilesets.length, "Tilesets", "tilesets"),
      stat(publishedTs.length, "Published tilesets", "tilesets"),
      stat(`${publishedSt.length} / ${st.styles.length}`, "Published styles", "styles"),
      stat(keys.keys.filter((k) => k.status === "active").length, "Active API keys", "keys"),
    ),
    h(
      "div.grid2",
      h(
        "div.card",
        h("h2", "Publish a map"),
        h(
          "ol.steps",
          step(ts.tilesets.length > 0, "Create a tileset", "tilesets"),
          step(publishedTs.length > 0, "Upload data and wait for a ready version", "tilesets"),
          step(publishedTs.length > 0, "Publish the tileset and verify its TileJSON URL", "tilesets"),
          step(st.styles.length > 0, "Create a style that uses the tileset", "styles"),
          step(publishedSt.length > 0, "Publish the style", "styles"),
          step(keys.keys.length > 0, "Use its URL in a client (add an API key for private maps and services)", "keys"),
        ),
      ),
      h(
        "div.card",
        h("h2", "Use a published style"),
        firstStyle
          ? [
              h("p.muted.small", `MapLibre GL JS, with the stable URL of ${firstStyle.name || firstStyle.slug}:`),
              h("pre.alert.alert-info", `new maplibregl.Map({\n  container: "map",\n  style: "${firstStyle.urls.stable}",\n});`),
              urlRow("Stable", firstStyle.urls.stable),
              urlRow("Versioned", firstStyle.urls.published),
            ]
          : h("p.muted", "No style is published yet. Once one is, its stable and versioned URLs appear here."),
      ),
    ),
  );
}

// ---------------------------------------------------------------- organizations

function renderNewOrg(main) {
  const err = h("div", { hidden: true });
  const slug = h("input", { type: "text", id: "org-slug", name: "slug", required: true, pattern: "[a-z0-9](?:[a-z0-9\\-]{0,61}[a-z0-9])?", placeholder: "acme" });
  const name = h("input", { type: "text", id: "org-name", name: "name", placeholder: "Acme Mapping" });
  const form = h(
    "form.card",
    {
      id: "new-org-form",
      onsubmit: async (e) => {
        e.preventDefault();
        err.hidden = true;
        try {
          const org = await api("POST", "/api/v1/orgs", { slug: slug.value.trim(), name: name.value.trim() || undefined });
          await refreshSession();
          state.org = org.slug;
          toast(`Organization ${org.slug} created`);
          go("overview");
        } catch (ex) {
          showError(err, ex);
        }
      },
    },
    h("h2", "New organization"),
    err,
    h(
      "div.form-row",
      h("label", "Slug", slug, h("span.hint", "Lowercase letters, digits and inner hyphens; it appears in every URL as the owner.")),
      h("label", "Display name", name),
    ),
    h("div.actions", h("button.btn.btn-primary", { type: "submit" }, "Create organization"), state.session.orgs.length ? h("a.btn", { href: `#/${enc(state.org || "")}/overview` }, "Cancel") : null),
  );
  fill(main,
    pageHead(
      state.session.orgs.length ? "Create an organization" : "Welcome to Mapstead",
      state.session.orgs.length ? "Organizations own tilesets, styles and API keys." : "Start by creating an organization: it owns your tilesets, styles and API keys.",
    ),
    form,
  );
  slug.focus();
}

// ---------------------------------------------------------------- tilesets

async function latestVersion(slug) {
  const { versions } = await api("GET", orgPath(`/tilesets/${enc(slug)}/versions`));
  return versions[0] || null;
}

async function renderTilesets(main, item, view) {
  if (item) return renderTileset(main, item, view);
  const { tilesets } = await api("GET", orgPath("/tilesets"));
  const latest = await Promise.all(tilesets.map((t) => latestVersion(t.slug).catch(() => null)));
  if (!current(view)) return;
  const err = h("div", { hidden: true });
  const slug = h("input", { type: "text", id: "tileset-slug", name: "slug", required: true, placeholder: "parks" });
  const name = h("input", { type: "text", id: "tileset-name", name: "name", placeholder: "City parks" });
  const visibility = h("select", { id: "tileset-visibility" }, h("option", { value: "public" }, "Public"), h("option", { value: "private" }, "Private (members and maps:read keys)"));
  const attribution = h("input", { type: "text", id: "tileset-attribution", placeholder: "© Data provider" });
  const form = h(
    "form.card",
    {
      id: "new-tileset-form",
      hidden: tilesets.length > 0,
      onsubmit: async (e) => {
        e.preventDefault();
        err.hidden = true;
        try {
          const body = { slug: slug.value.trim(), visibility: visibility.value };
          if (name.value.trim()) body.name = name.value.trim();
          if (attribution.value.trim()) body.attribution = attribution.value.trim();
          const t = await api("POST", orgPath("/tilesets"), body);
          toast(`Tileset ${t.slug} created; upload data next`);
          go("tilesets", t.slug);
        } catch (ex) {
          showError(err, ex);
        }
      },
    },
    h("h2", "New tileset"),
    err,
    h("div.form-row", h("label", "Slug", slug), h("label", "Name", name), h("label", "Visibility", visibility)),
    h("div.form-row", h("label", "Attribution", attribution, h("span.hint", "Shown by map clients; HTML links allowed."))),
    h("div.actions", h("button.btn.btn-primary", { type: "submit" }, "Create tileset")),
  );
  const stateCells = new Map();
  const rows = tilesets.map((t, i) => {
    const v = latest[i];
    const cell = h("td", v ? versionStateCell(v, true) : h("span.muted", "no data yet"));
    stateCells.set(t.slug, cell);
    return h(
      "tr.clickable",
      { "data-tileset": t.slug, onclick: () => go("tilesets", t.slug) },
      h("td", h("a", { href: `#/${enc(state.org)}/tilesets/${enc(t.slug)}` }, h("strong", t.name || t.slug)), h("div.muted.small", t.slug)),
      h("td", t.visibility === "private" ? badge("private") : badge("public", "neutral")),
      h("td", t.published_version !== null ? badge(`v${t.published_version} published`, "published") : badge("unpublished", "neutral")),
      cell,
      h("td.muted.small", fmtDate(t.updated_at)),
    );
  });
  fill(main,
    pageHead("Tilesets", "Vector or raster data, processed into tiles and served as TileJSON.", h("button.btn.btn-primary", { type: "button", id: "new-tileset-button", onclick: () => ((form.hidden = false), slug.focus()) }, "New tileset")),
    form,
    h(
      "div.card",
      h(
        "table",
        h("thead", h("tr", h("th", "Tileset"), h("th", "Visibility"), h("th", "Published"), h("th", "Latest version"), h("th", "Updated"))),
        h("tbody", rows.length ? rows : h("tr", h("td.empty", { colSpan: 5 }, "No tilesets yet. Create one, then upload GeoJSON, CSV, Shapefile (zip), FlatGeobuf, MBTiles or PMTiles."))),
      ),
    ),
  );
  // Versions still processing: refresh their state cells (not the page, so a half-filled form stays).
  let busy = tilesets.filter((_, i) => latest[i] && !TERMINAL.has(latest[i].state)).map((t) => t.slug);
  while (busy.length) {
    await new Promise((r) => setTimeout(r, 2000));
    if (!current(view)) return;
    const fresh = await Promise.all(busy.map((slug) => latestVersion(slug).catch(() => null)));
    if (!current(view)) return;
    busy.forEach((slug, i) => fresh[i] && fill(stateCells.get(slug), versionStateCell(fresh[i], true)));
    busy = busy.filter((_, i) => fresh[i] && !TERMINAL.has(fresh[i].state));
  }
}

function versionStateCell(v, withNumber = false) {
  if (v.state === "ready" || v.state === "failed") return h("span", badge(v.state), withNumber ? [" ", h("span.muted.small", `v${v.version}`)] : null);
  const p = h("progress", { max: 100 });
  p.value = v.progress;
  return h("div.cell-progress", badge(v.state), p, h("span.small.muted", `${Math.round(v.progress)}%`));
}

async function renderTileset(main, slug, view) {
  const base = orgPath(`/tilesets/${enc(slug)}`);
  let [tileset, { versions }] = await Promise.all([api("GET", base), api("GET", `${base}/versions`)]);
  if (!current(view)) return;

  const urlsCard = h("div.card", { id: "tileset-urls" });
  const versionsBody = h("tbody");
  const previewSlot = h("div");
  const previewCard = h("div.card", h("h2", "Preview"), previewSlot);

  const renderUrls = () => {
    const pub = versions.find((v) => v.version === tileset.published_version);
    const verify = h("div", { id: "tilejson-check" });
    fill(urlsCard,
      h("h2", "TileJSON URLs"),
      urlRow("Stable", tileset.tilejson_url, "Publish a ready version to get the stable URL"),
      urlRow("Versioned", pub ? pub.tilejson_url : null, "—"),
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
                    if (!res.ok) throw await errorFrom(res.status, await res.text());
                    const tj = await res.json();
                    fill(verify,
                      h(
                        "div.alert.alert-ok",
                        `TileJSON ${tj.tilejson} answers: zoom ${tj.minzoom}–${tj.maxzoom}, ${(tj.vector_layers || []).length} vector layer(s), tiles at `,
                        h("code", (tj.tiles || [])[0] || "—"),
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
            if (v.state === "ready") actions.append(h("button.btn.btn-small", { type: "button", onclick: () => preview(v) }, "Preview"));
            if (!v.published) actions.append(h("button.btn.btn-small.btn-danger", { type: "button", onclick: () => removeVersion(v.version) }, "Delete"));
            const stats = v.stats || {};
            return h(
              "tr",
              { "data-version": v.version, "data-state": v.state },
              h("td", h("strong", `v${v.version}`), v.published ? [" ", badge("published")] : null),
              h("td", versionStateCell(v), v.stats?.phase && !TERMINAL.has(v.state) ? h("div.muted.small", v.stats.phase) : null),
              h(
                "td.small",
                v.state === "failed"
                  ? h("div.alert.alert-error.version-error", v.error || "Processing failed")
                  : [
                      h("div", `${fmtNum(stats.features)} features · ${fmtNum(stats.tiles)} tiles · ${stats.bytes ? fmtBytes(stats.bytes) : "—"}`),
                      h("div.muted", [v.source_format, v.minzoom !== null ? `z${v.minzoom}–${v.maxzoom}` : null, (v.layers || []).map((l) => l.id).join(", ")].filter(Boolean).join(" · ")),
                      v.warnings && v.warnings.length ? h("div.muted", `${v.warnings.length} warning(s): ${v.warnings[0]}`) : null,
                    ],
              ),
              h("td.muted.small", fmtDate(v.created_at)),
              h("td.right", actions),
            );
          })
        : [h("tr", h("td.empty", { colSpan: 5 }, "No versions yet: upload a file above."))]),
    );
  };

  const removeVersion = async (n) => {
    if (!(await confirmDialog(`Delete version ${n}?`, "Its files and versioned TileJSON URL go away; processing stops if it is still running. Version numbers are never reused.", "Delete version"))) return;
    try {
      await api("DELETE", `${base}/versions/${n}`);
      versions = versions.filter((x) => x.version !== n);
      toast(`Version ${n} deleted`);
      renderVersions();
    } catch (ex) {
      toast(ex.message, "error");
    }
  };

  const preview = (v) => {
    previewCard.querySelector("h2").textContent = `Preview of v${v.version}`;
    showMap(previewSlot, tilesetPreviewStyle(v), { bounds: v.bounds, maxzoom: v.maxzoom });
  };

  const publish = async (n) => {
    try {
      tileset = await api("POST", `${base}/publish`, { version: n });
      versions = (await api("GET", `${base}/versions`)).versions;
      if (!current(view)) return;
      toast(`Version ${n} published`);
      renderHead();
      renderVersions();
      renderUrls();
      const v = versions.find((x) => x.version === n);
      if (v) preview(v);
    } catch (ex) {
      toast(ex.message, "error");
    }
  };

  /** Polls unfinished versions every second until they are ready or failed. */
  let polling = false;
  const poll = async () => {
    if (polling) return;
    polling = true;
    try {
      while (current(view) && versions.some((v) => !TERMINAL.has(v.state))) {
        await new Promise((r) => setTimeout(r, 1000));
        if (!current(view)) return;
        for (const v of versions.filter((x) => !TERMINAL.has(x.state))) {
          const fresh = await api("GET", `${base}/versions/${v.version}`);
          if (!current(view)) return;
          versions = versions.map((x) => (x.version === fresh.version ? fresh : x));
          if (fresh.state === "ready") toast(`Version ${fresh.version} is ready to publish`);
          if (fresh.state === "failed") toast(`Version ${fresh.version} failed: ${fresh.error}`, "error");
        }
        renderVersions();
      }
    } catch (ex) {
      if (current(view)) toast(`Could not refresh the version: ${ex.message}`, "error");
    } finally {
      polling = false;
    }
  };

  // Upload form
  const uploadErr = h("div", { hidden: true });
  const file = h("input", { type: "file", id: "tileset-file", name: "file", accept: UPLOAD_ACCEPT, required: true });
  const layer = h("input", { type: "text", id: "tileset-layer", placeholder: slug });
  const minzoom = h("input", { type: "number", id: "tileset-minzoom", min: 0, max: 22, placeholder: "0" });
  const maxzoom = h("input", { type: "number", id: "tileset-maxzoom", min: 0, max: 22, placeholder: "auto" });
  const bar = h("progress", { max: 100, id: "upload-progress" });
  bar.value = 0;
  const pct = h("span.pct", "");
  const progressLine = h("div.progress-line", { hidden: true }, bar, pct);
  const submit = h("button.btn.btn-primary", { type: "submit", id: "upload-button" }, "Upload");
  const control = {};
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
    h("p.muted.small", "GeoJSON, newline-delimited GeoJSON, CSV with lon/lat columns, zipped Shapefile, FlatGeobuf, MBTiles or PMTiles. Each upload becomes a new immutable version."),
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
            onclick: async () => {
              if (!(await confirmDialog(`Delete tileset ${slug}?`, "Every version, file and tile URL of this tileset goes away at once. Styles using it stop rendering it.", "Delete tileset"))) return;
              try {
                await api("DELETE", base);
                toast(`Tileset ${slug} deleted`);
                go("tilesets");
              } catch (ex) {
                toast(ex.message, "error");
              }
            },
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
    h("div.card", h("h2", "Versions"), h("table", h("thead", h("tr", h("th", "Version"), h("th", "State"), h("th", "Details"), h("th", "Created"), h("th"))), versionsBody)),
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
      },
    ),
  );
  const shown = versions.find((v) => v.published) || versions.find((v) => v.state === "ready");
  if (shown) preview(shown);
  else fill(previewSlot, h("p.muted", "A preview appears once a version is ready."));
  poll();
}

// ---------------------------------------------------------------- styles

async function renderStyles(main, item, view) {
  if (item) return renderStyle(main, item, view);
  const [{ styles }, { tilesets }] = await Promise.all([api("GET", orgPath("/styles")), api("GET", orgPath("/tilesets"))]);
  if (!current(view)) return;
  const published = tilesets.filter((t) => t.published_version !== null);
  const err = h("div", { hidden: true });
  const slug = h("input", { type: "text", id: "style-slug", required: true, placeholder: "streets" });
  const name = h("input", { type: "text", id: "style-name", placeholder: "Streets" });
  const visibility = h("select", { id: "style-visibility" }, h("option", { value: "public" }, "Public"), h("option", { value: "private" }, "Private"));
  const tilesetSelect = h(
    "select",
    { id: "style-tileset" },
    published.length ? published.map((t) => h("option", { value: t.slug }, `${t.name || t.slug} (v${t.published_version})`)) : h("option", { value: "" }, "No published tileset"),
  );
  const form = h(
    "form.card",
    {
      id: "new-style-form",
      hidden: styles.length > 0,
      onsubmit: async (e) => {
        e.preventDefault();
        err.hidden = true;
        try {
          const style = await starterStyle(tilesetSelect.value, name.value.trim() || slug.value.trim());
          const body = { slug: slug.value.trim(), visibility: visibility.value, style };
          if (name.value.trim()) body.name = name.value.trim();
          const created = await api("POST", orgPath("/styles"), body);
          toast(`Style ${created.slug} created from the template`);
          go("styles", created.slug);
        } catch (ex) {
          showError(err, ex);
        }
      },
    },
    h("h2", "New style from a template"),
    h("p.muted.small", "The starter style has a background and a fill, line or circle layer for each vector layer of the tileset. Edit the JSON afterwards."),
    err,
    published.length ? null : h("div.alert.alert-warn", "Publish a tileset first: a style can only use published tilesets. ", h("a", { href: `#/${enc(state.org)}/tilesets` }, "Go to tilesets")),
    h("div.form-row", h("label", "Slug", slug), h("label", "Name", name), h("label", "Visibility", visibility), h("label", "Tileset", tilesetSelect)),
    h("div.actions", h("button.btn.btn-primary", { type: "submit", disabled: !published.length }, "Create style")),
  );
  const rows = styles.map((s) =>
    h(
      "tr.clickable",
      { "data-style": s.slug, onclick: () => go("styles", s.slug) },
      h("td", h("a", { href: `#/${enc(state.org)}/styles/${enc(s.slug)}` }, h("strong", s.name || s.slug)), h("div.muted.small", s.slug)),
      h("td", s.visibility === "private" ? badge("private") : badge("public", "neutral")),
      h("td", s.published_version !== null ? badge(`v${s.published_version} published`, "published") : badge("draft only", "draft")),
      h("td.small", s.urls.stable ? h("code", s.urls.stable) : h("span.muted", "—")),
      h("td.muted.small", fmtDate(s.updated_at)),
    ),
  );
  fill(main,
    pageHead("Styles", "MapLibre style JSON: draft, publish, then use the stable or versioned URL.", h("button.btn.btn-primary", { type: "button", id: "new-style-button", onclick: () => ((form.hidden = false), slug.focus()) }, "New style")),
    form,
    h(
      "div.card",
      h(
        "table",
        h("thead", h("tr", h("th", "Style"), h("th", "Visibility"), h("th", "Published"), h("th", "Stable URL"), h("th", "Updated"))),
        h("tbody", rows.length ? rows : h("tr", h("td.empty", { colSpan: 5 }, "No styles yet."))),
      ),
    ),
  );
}

/** Background plus layers guessed from the published version's vector layers. */
async function starterStyle(tilesetSlug, title) {
  if (!tilesetSlug) throw new ApiError(400, "BAD_REQUEST", "Choose a published tileset for the style");
  const t = await api("GET", orgPath(`/tilesets/${enc(tilesetSlug)}`));
  const v = await api("GET", orgPath(`/tilesets/${enc(tilesetSlug)}/versions/${t.published_version}`));
  const style = { version: 8, name: title, sources: {}, layers: [{ id: "background", type: "background", paint: { "background-color": "#f4f1ea" } }] };
  if (v.format && v.format !== "pbf") {
    style.sources[tilesetSlug] = { type: "raster", url: `mapstead://tilesets/${state.org}/${tilesetSlug}`, tileSize: 256 };
    style.layers.push({ id: tilesetSlug, type: "raster", source: tilesetSlug });
  } else {
    style.sources[tilesetSlug] = { type: "vector", url: `mapstead://tilesets/${state.org}/${tilesetSlug}` };
    style.layers.push(...layersFor(tilesetSlug, v.layers || [], { fillOpacity: 0.6 }));
  }
  if (v.center) {
    style.center = [v.center[0], v.center[1]];
    // One level out from the data's own centre zoom, so the whole extent fits a typical viewport.
    style.zoom = Math.max(0, (v.center[2] ?? 2) - 1);
  }
  return style;
}

async function renderStyle(main, slug, view) {
  const base = orgPath(`/styles/${enc(slug)}`);
  let [style, { versions }] = await Promise.all([api("GET", base), api("GET", `${base}/versions`)]);
  if (!current(view)) return;

  const head = h("div");
  const urls = h("div.card", { id: "style-urls" });
  const versionsBody = h("tbody");
  const previewSlot = h("div");
  const previewTitle = h("h2", "Preview");
  let previewMode = style.published_version !== null ? "published" : "draft";

  const renderHead = () =>
    fill(head,
      h("div.crumbs", h("a", { href: `#/${enc(state.org)}/styles` }, "Styles"), " / ", slug),
      pageHead(
        style.name || style.slug,
        `${state.org}/${style.slug}`,
        style.visibility === "private" ? badge("private") : badge("public", "neutral"),
        style.published_version !== null ? badge(`v${style.published_version} published`, "published") : badge("draft only", "draft"),
        h("button.btn.btn-primary", { type: "button", id: "publish-style", onclick: publish }, "Publish draft"),
        h(
          "button.btn.btn-danger.btn-small",
          {
            type: "button",
            onclick: async () => {
              if (!(await confirmDialog(`Delete style ${slug}?`, "The style, all its versions and sprites are deleted; its URLs answer 404.", "Delete style"))) return;
              try {
                await api("DELETE", base);
                toast(`Style ${slug} deleted`);
                go("styles");
              } catch (ex) {
                toast(ex.message, "error");
              }
            },
          },
          "Delete",
        ),
      ),
    );

  const renderUrls = () =>
    fill(urls,
      h("h2", "Style URLs"),
      urlRow("Stable", style.urls.stable, "Publish the draft to get a stable URL"),
      urlRow("Versioned", style.urls.published, "—"),
      h("p.muted.small", "The stable URL follows every publish (cached for 60 s); a versioned URL never changes and pins the tileset versions published at the time."),
    );

  const renderVersions = () =>
    fill(versionsBody,
      ...(versions.length
        ? versions.map((v) =>
            h(
              "tr",
              { "data-style-version": v.version },
              h("td", h("strong", `v${v.version}`), v.published ? [" ", badge("published")] : null),
              h("td.small", Object.entries(v.tileset_pins).map(([k, n]) => `${k}@${n}`).join(", ") || "—"),
              h("td.small", v.has_sprite ? "yes" : "—"),
              h("td.muted.small", fmtDate(v.created_at)),
              h(
                "td.right",
                h(
                  "div.actions",
                  copyButton(v.url, `URL of v${v.version} copied`),
                  v.published
                    ? null
                    : h(
                        "button.btn.btn-small",
                        {
                          type: "button",
                          onclick: async () => {
                            try {
                              await api("POST", `${base}/publish`, { version: v.version });
                              toast(`v${v.version} is published again`);
                              reload();
                            } catch (ex) {
                              toast(ex.message, "error");
                            }
                          },
                        },
                        "Re-publish",
                      ),
                ),
              ),
            ),
          )
        : [h("tr", h("td.empty", { colSpan: 5 }, "Not published yet."))]),
    );

  const reload = async () => {
    [style, { versions }] = await Promise.all([api("GET", base), api("GET", `${base}/versions`)]);
    if (!current(view)) return;
    renderHead();
    renderUrls();
    renderVersions();
    renderIcons();
    showPreview();
  };

  async function publish() {
    const btn = $("#publish-style");
    btn.disabled = true;
    try {
      const r = await api("POST", `${base}/publish`, {});
      toast(r.created ? `Published as v${r.version}` : `v${r.version} is published (the draft was unchanged)`);
      previewMode = "published";
      await reload();
    } catch (ex) {
      draftErr.hidden = false;
      fill(draftErr, errorBox(ex));
      toast(ex.message, "error");
    } finally {
      btn.disabled = false;
    }
  }

  // Draft editor
  const draftErr = h("div", { hidden: true, id: "draft-errors" });
  const textarea = h("textarea.code", { id: "draft-json", spellcheck: "false", "aria-label": "Draft style JSON" });
  textarea.value = JSON.stringify(style.draft, null, 2);
  const saveDraft = async () => {
    draftErr.hidden = true;
    let parsed;
    try {
      parsed = JSON.parse(textarea.value);
    } catch (ex) {
      showError(draftErr, new ApiError(400, "BAD_JSON", `The draft is not valid JSON: ${ex.message}`));
      return false;
    }
    try {
      style = await api("PUT", `${base}/draft`, parsed);
      textarea.value = JSON.stringify(style.draft, null, 2);
      fill(draftErr, h("div.alert.alert-ok", "Draft saved and valid. Publish it to update the stable URL."));
      draftErr.hidden = false;
      if (previewMode === "draft") showPreview();
      return true;
    } catch (ex) {
      showError(draftErr, ex);
      return false;
    }
  };
  const editor = h(
    "div.card",
    h("h2", "Draft style JSON"),
    draftErr,
    textarea,
    h(
      "div.actions",
      h("button.btn.btn-primary", { type: "button", id: "save-draft", onclick: saveDraft }, "Save draft"),
      h(
        "button.btn",
        {
          type: "button",
          onclick: () => {
            try {
              textarea.value = JSON.stringify(JSON.parse(textarea.value), null, 2);
            } catch (ex) {
              showError(draftErr, new ApiError(400, "BAD_JSON", `The draft is not valid JSON: ${ex.message}`));
            }
          },
        },
        "Format",
      ),
      h("button.btn", { type: "button", onclick: () => ((textarea.value = JSON.stringify(style.draft, null, 2)), (draftErr.hidden = true)) }, "Revert"),
      h("span.muted.small", "Reference Mapstead assets with mapstead://tilesets/{owner}/{tileset}, mapstead://fonts/{fontstack}/{range}.pbf and mapstead://sprites/{owner}/{style}."),
    ),
  );

  // Sprite
  const icons = h("div.small");
  const renderIcons = () =>
    fill(icons,
      style.sprite_icons.length
        ? h("p", h("strong", `${style.sprite_icons.length} icon(s): `), h("span.muted", style.sprite_icons.slice(0, 60).join(", ") + (style.sprite_icons.length > 60 ? " …" : "")))
        : h("p.muted", "No sprite yet."),
      style.sprite_icons.length ? h("p.muted", "Use it with ", h("code", `"sprite": "mapstead://sprites/${state.org}/${slug}"`), " and icon-image names above.") : null,
    );
  const spriteErr = h("div", { hidden: true });
  const spriteFile = h("input", { type: "file", id: "sprite-file", multiple: true, accept: ".svg,.zip,.json,.png" });
  const spriteBar = h("progress", { max: 100 });
  const spriteLine = h("div.progress-line", { hidden: true }, spriteBar, h("span.pct", ""));
  const spriteCard = h(
    "form.card",
    {
      id: "sprite-form",
      onsubmit: async (e) => {
        e.preventDefault();
        spriteErr.hidden = true;
        const files = [...spriteFile.files];
        if (!files.length) return;
        const form = new FormData();
        for (const f of files) form.append("file", f, f.name);
        spriteLine.hidden = false;
        spriteBar.value = 0;
        try {
          const r = await upload("PUT", `${base}/sprite`, form, (l, t) => (spriteBar.value = t ? (100 * l) / t : 0));
          toast(`Sprite with ${r.icons.length} icon(s) saved to the draft`);
          spriteFile.value = "";
          style = await api("GET", base);
          renderIcons();
        } catch (ex) {
          showError(spriteErr, ex);
        } finally {
          spriteLine.hidden = true;
        }
      },
    },
    h("h2", "Sprite"),
    h("p.muted.small", "Upload SVG icons (several files or one zip), or a ready sprite.json + sprite.png pair. The sprite belongs to the draft until you publish."),
    spriteErr,
    icons,
    h("div.actions", spriteFile, h("button.btn", { type: "submit" }, "Upload sprite")),
    spriteLine,
  );

  // Preview
  const modeSelect = h("select.select-auto", { id: "preview-mode" }, h("option", { value: "published" }, "Published version"), h("option", { value: "draft" }, "Saved draft"));
  modeSelect.addEventListener("change", () => {
    previewMode = modeSelect.value;
    showPreview();
  });
  const showPreview = () => {
    modeSelect.value = previewMode;
    if (previewMode === "published" && style.urls.stable) {
      previewTitle.textContent = "Preview of the published style";
      showMap(previewSlot, style.urls.stable);
    } else {
      previewTitle.textContent = "Preview of the saved draft";
      if (previewMode === "published") fill(previewSlot, h("p.muted", "Not published yet: switch to the draft preview, or publish."));
      else showMap(previewSlot, style.draft_preview);
    }
  };

  renderHead();
  renderUrls();
  renderVersions();
  renderIcons();
  fill(main,
    head,
    urls,
    h("div.card", h("div.page-head", previewTitle, modeSelect), previewSlot),
    editor,
    spriteCard,
    settingsCard("style-settings", base, style, [["name", "Name"], ["visibility", "Visibility"]], (fresh) => {
      style = fresh;
      renderHead();
    }),
    h("div.card", h("h2", "Versions"), h("table", h("thead", h("tr", h("th", "Version"), h("th", "Tilesets pinned"), h("th", "Sprite"), h("th", "Created"), h("th"))), versionsBody)),
  );
  showPreview();
}

// ---------------------------------------------------------------- API keys

async function renderKeys(main, _item, view) {
  const { keys } = await api("GET", orgPath("/keys") + "?include_revoked=true");
  if (!current(view)) return;
  const admin = canAdmin();
  const err = h("div", { hidden: true });
  const secretSlot = h("div", { id: "new-key-secret" });
  const name = h("input", { type: "text", id: "key-name", required: true, placeholder: "web-app-production" });
  const boxes = SCOPES.map(([scope, text]) => h("label.inline", { title: text }, h("input", { type: "checkbox", name: "scope", value: scope, checked: scope === "maps:read" }), h("code", scope), h("span.hint", text)));
  const origins = h("textarea", { id: "key-origins", rows: 2, placeholder: "https://app.example.com\nhttps://*.example.com" });
  const expires = h("input", { type: "date", id: "key-expires" });
  const form = h(
    "form.card",
    {
      id: "new-key-form",
      hidden: !admin,
      onsubmit: async (e) => {
        e.preventDefault();
        err.hidden = true;
        const scopes = [...form.querySelectorAll("input[name=scope]:checked")].map((i) => i.value);
        const body = { name: name.value.trim(), scopes, allowed_origins: origins.value.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean) };
        if (expires.value) body.expires_at = expires.value;
        try {
          const created = await api("POST", orgPath("/keys"), body);
          form.reset();
          showSecret(created);
          await refreshList();
        } catch (ex) {
          showError(err, ex);
        }
      },
    },
    h("h2", "Create an API key"),
    err,
    h("div.form-row", h("label", "Name", name, h("span.hint", "The app or environment that uses it")), h("label", "Expires", expires, h("span.hint", "Optional; for temporary or automation keys"))),
    h("fieldset", h("legend", "Scopes: only what the integration needs"), h("div.checks", boxes)),
    h("label", "Allowed browser origins", origins, h("span.hint", "One per line; empty allows any. Best-effort friction for browser keys, not an authorization boundary: Origin can be forged outside browsers.")),
    h("div.actions", h("button.btn.btn-primary", { type: "submit", id: "create-key" }, "Create key")),
  );
  function showSecret(created) {
    // The secret exists only in this element: never stored, never put in a URL.
    fill(secretSlot,
      h(
        "div.alert.alert-warn",
        { role: "alert" },
        h("strong", `Key “${created.key.name}” created. Copy its secret now: it is shown only once.`),
        h("div.secret-box", h("code", { id: "key-secret" }, created.secret), copyButton(created.secret, "Secret copied")),
        h("div.small", "Send it in the X-API-Key header. Store it in your deployment's secret store; Mapstead keeps only a hash and cannot show it again. "),
        h("div.actions", h("button.btn.btn-small", { type: "button", onclick: () => fill(secretSlot, ) }, "I have stored it")),
      ),
    );
  }
  const tbody = h("tbody");
  const renderRows = (list) =>
    fill(tbody,
      ...(list.length
        ? list.map((k) =>
            h(
              "tr",
              { "data-key": k.id },
              h("td", h("strong", k.name), h("div", h("code.small", `${k.prefix}…`))),
              h("td", k.scopes.map((s) => badge(s, "scope"))),
              h("td.small", k.allowed_origins.length ? k.allowed_origins.join(", ") : h("span.muted", "any")),
              h("td.small", k.expires_at ? fmtDate(k.expires_at) : h("span.muted", "never")),
              h("td.small.muted", fmtDate(k.created_at)),
              h("td.small", k.last_used_at ? fmtDate(k.last_used_at) : h("span.muted", "never")),
              h("td", badge(k.status)),
              h(
                "td.right",
                admin && k.status !== "revoked"
                  ? h(
                      "button.btn.btn-small.btn-danger",
                      {
                        type: "button",
                        onclick: async () => {
                          if (!(await confirmDialog(`Revoke key “${k.name}”?`, `Requests with ${k.prefix}… answer 401 from now on. Deploy a replacement first if clients still use it.`, "Revoke key"))) return;
                          try {
                            await api("DELETE", orgPath(`/keys/${k.id}`));
                            toast(`Key ${k.name} revoked`);
                            await refreshList();
                          } catch (ex) {
                            toast(ex.message, "error");
                          }
                        },
                      },
                      "Revoke",
                    )
                  : null,
              ),
            ),
          )
        : [h("tr", h("td.empty", { colSpan: 8 }, "No API keys yet."))]),
    );
  const refreshList = async () => {
    const fresh = await api("GET", orgPath("/keys") + "?include_revoked=true");
    if (current(view)) renderRows(fresh.keys);
  };
  renderRows(keys);
  fill(main,
    pageHead("API keys", "Keys authenticate service APIs (X-API-Key header) and private map reads for this organization."),
    admin ? null : h("div.alert.alert-info", "Only owners and admins of the organization create and revoke keys."),
    secretSlot,
    form,
    h(
      "div.card",
      h(
        "table",
        h("thead", h("tr", h("th", "Name / prefix"), h("th", "Scopes"), h("th", "Origins"), h("th", "Expires"), h("th", "Created"), h("th", "Last used"), h("th", "Status"), h("th"))),
        tbody,
      ),
    ),
    h(
      "div.card",
      h("h2", "Rotating a key"),
      h(
        "ol.steps",
        h("li", "Create a replacement key with the same scopes and origins."),
        h("li", "Deploy the new value to every client and server that uses the old one."),
        h("li", "Watch “Last used” of the new key advance and the old one stop (it is updated about once a minute)."),
        h("li", "Revoke the old key once no client uses it any more."),
      ),
    ),
  );
}

// ---------------------------------------------------------------- members

async function renderMembers(main, _item, view) {
  const { members } = await api("GET", orgPath("/members"));
  if (!current(view)) return;
  const admin = canAdmin();
  const err = h("div", { hidden: true });
  const email = h("input", { type: "email", id: "member-email", required: true, placeholder: "colleague@example.com" });
  const role = h("select", { id: "member-role" }, h("option", { value: "member" }, "Member"), h("option", { value: "admin" }, "Admin"), h("option", { value: "owner" }, "Owner"));
  const form = h(
    "form.card",
    {
      id: "add-member-form",
      onsubmit: async (e) => {
        e.preventDefault();
        err.hidden = true;
        try {
          const m = await api("POST", orgPath("/members"), { email: email.value.trim(), role: role.value });
          toast(`${m.email} is now ${m.role}`);
          route();
        } catch (ex) {
          showError(err, ex);
        }
      },
    },
    h("h2", "Add a member or change a role"),
    h("p.muted.small", "The user account must exist: an instance admin creates it (mapstead users create, or POST /api/v1/users). Members use tilesets and styles; admins also manage keys and members; only owners grant owner."),
    err,
    h("div.form-row", h("label", "Email", email), h("label", "Role", role)),
    h("div.actions", h("button.btn.btn-primary", { type: "submit" }, "Save member")),
  );
  const me = state.session.user.id;
  fill(main,
    pageHead("Members", `Who can manage ${state.org}.`),
    h(
      "div.card",
      h(
        "table",
        h("thead", h("tr", h("th", "Email"), h("th", "Role"), h("th", "Since"), h("th"))),
        h(
          "tbody",
          members.map((m) =>
            h(
              "tr",
              { "data-member": m.email },
              h("td", m.email, m.user_id === me ? h("span.muted", " (you)") : null),
              h("td", badge(m.role, m.role === "owner" ? "published" : "neutral")),
              h("td.muted.small", fmtDate(m.since)),
              h(
                "td.right",
                admin || m.user_id === me
                  ? h(
                      "button.btn.btn-small.btn-danger",
                      {
                        type: "button",
                        onclick: async () => {
                          const self = m.user_id === me;
                          if (!(await confirmDialog(self ? `Leave ${state.org}?` : `Remove ${m.email}?`, self ? "You lose access to this organization." : `${m.email} loses access to ${state.org}.`, self ? "Leave" : "Remove"))) return;
                          try {
                            await api("DELETE", orgPath(`/members/${m.user_id}`));
                            toast(self ? `You left ${state.org}` : `${m.email} removed`);
                            if (self) {
                              await refreshSession();
                              state.org = null;
                              go("overview");
                            } else route();
                          } catch (ex) {
                            toast(ex.message, "error");
                          }
                        },
                      },
                      m.user_id === me ? "Leave" : "Remove",
                    )
                  : null,
              ),
            ),
          ),
        ),
      ),
    ),
    admin ? form : null,
    state.session.user.is_admin ? newUserCard(email) : null,
  );
}

/** Instance admins create user accounts here, then add them as members with the form above. */
function newUserCard(memberEmail) {
  const err = h("div", { hidden: true });
  const email = h("input", { type: "email", id: "user-email-new", required: true, autocomplete: "off" });
  const password = h("input", { type: "password", id: "user-password-new", required: true, minLength: 10, autocomplete: "new-password" });
  const isAdmin = h("input", { type: "checkbox", id: "user-admin-new" });
  const form = h(
    "form.card",
    {
      id: "new-user-form",
      onsubmit: async (e) => {
        e.preventDefault();
        err.hidden = true;
        try {
          const user = await api("POST", "/api/v1/users", { email: email.value.trim(), password: password.value, is_admin: isAdmin.checked });
          form.reset();
          memberEmail.value = user.email;
          toast(`Account ${user.email} created; choose a role and save the member`);
          memberEmail.focus();
        } catch (ex) {
          showError(err, ex);
        }
      },
    },
    h("h2", "Create a user account"),
    h("p.muted.small", "Instance admins only. Give the person their password through a safe channel; they sign in here with it."),
    err,
    h("div.form-row", h("label", "Email", email), h("label", "Initial password", password, h("span.hint", "At least 10 characters"))),
    h("label.inline", isAdmin, "Instance admin (manages fonts, users and every organization)"),
    h("div.actions", h("button.btn", { type: "submit" }, "Create account")),
  );
  return form;
}

// ---------------------------------------------------------------- fonts

async function renderFonts(main, _item, view) {
  const { fonts } = await api("GET", "/api/v1/fonts");
  if (!current(view)) return;
  const err = h("div", { hidden: true });
  const file = h("input", { type: "file", id: "font-file", accept: ".ttf,.otf", required: true });
  const name = h("input", { type: "text", id: "font-name", placeholder: "from the font: Family Subfamily" });
  const bar = h("progress", { max: 100 });
  const line = h("div.progress-line", { hidden: true }, bar);
  const form = h(
    "form.card",
    {
      id: "font-form",
      onsubmit: async (e) => {
        e.preventDefault();
        err.hidden = true;
        const f = file.files[0];
        if (!f) return;
        const body = new FormData();
        body.append("file", f, f.name);
        if (name.value.trim()) body.append("name", name.value.trim());
        line.hidden = false;
        try {
          const r = await upload("POST", "/api/v1/fonts", body, (l, t) => (bar.value = t ? (100 * l) / t : 0));
          toast(`Font ${r.name} installed (${fmtNum(r.codepoints)} characters)`);
          route();
        } catch (ex) {
          showError(err, ex);
        } finally {
          line.hidden = true;
        }
      },
    },
    h("h2", "Install a font"),
    h("p.muted.small", "TrueType or OpenType, up to 50 MiB. Styles name it in text-font; glyphs are generated on demand."),
    err,
    h("div.form-row", h("label", "Font file", file), h("label", "Name", name)),
    h("div.actions", h("button.btn.btn-primary", { type: "submit" }, "Install font")),
    line,
  );
  fill(main,
    pageHead("Fonts", "Fonts installed on this appliance, shared by every organization."),
    h(
      "div.card",
      h(
        "table",
        h("thead", h("tr", h("th", "Name"), h("th", "Source"), h("th", "Installed"))),
        h(
          "tbody",
          fonts.length
            ? fonts.map((f) => h("tr", h("td", h("code", f.name)), h("td", f.builtin ? badge("built in", "neutral") : badge("uploaded", "ok")), h("td.muted.small", f.builtin ? "—" : fmtDate(f.created_at))))
            : h("tr", h("td.empty", { colSpan: 3 }, "No fonts installed.")),
        ),
      ),
    ),
    state.session.user.is_admin ? form : h("div.alert.alert-info", "Only instance admins install fonts."),
  );
}

// ---------------------------------------------------------------- setup checks

async function renderSetup(main, _item, view) {
  const report = await api("GET", "/setup/preflight");
  if (!current(view)) return;
  const order = { fail: 0, warn: 1, pass: 2 };
  const checks = [...report.checks].sort((a, b) => order[a.status] - order[b.status]);
  fill(main,
    pageHead("Setup checks", "The same checks as mapstead preflight on the command line.", h("button.btn", { type: "button", onclick: () => route() }, "Run again")),
    h(
      "div",
      { class: `alert ${report.ok ? "alert-ok" : "alert-error"}` },
      report.ok ? "Nothing fails: the appliance is ready to serve." : `${checks.filter((c) => c.status === "fail").length} check(s) fail; the fixes are listed below.`,
    ),
    h(
      "div.card",
      checks.map((c) =>
        h(
          "div.check",
          { "data-check": c.id },
          h("div", badge(c.status)),
          h("div", h("strong", c.id), h("div", c.message), c.fix && c.status !== "pass" ? h("div.fix", "Fix: ", c.fix) : null),
        ),
      ),
    ),
  );
}

// ---------------------------------------------------------------- boot

async function boot() {
  $("#login-form").addEventListener("submit", login);
  $("#logout-button").addEventListener("click", logout);
  $("#new-org-button").addEventListener("click", () => {
    location.hash = `#/${enc(state.org || "")}/new-org`;
  });
  $("#org-select").addEventListener("change", (e) => {
    state.org = e.target.value;
    go("overview");
  });
  window.addEventListener("hashchange", route);
  try {
    const session = await api("GET", "/api/v1/session", undefined, { quiet401: true });
    startApp(session);
  } catch (err) {
    showLogin(err.status === 401 ? null : err.message);
  }
}

boot();
