// API keys of an organization: create one (its secret shown once, kept only in the page), list, edit
// (name, scopes, origins, expiry, limits), revoke, and the rotation procedure. Until a new secret is
// copied or dismissed, leaving the page asks first (the router's leave guard).
import { api } from "../lib/api.js";
import { confirmAndDelete } from "../lib/confirm-delete.js";
import { fill, h } from "../lib/dom.js";
import { fmtDate, fmtNum } from "../lib/format.js";
import { setLeaveGuard } from "../lib/router.js";
import { canAdmin, current, orgPath } from "../lib/state.js";
import { badge, copyButton, pageHead, showError, toast } from "../lib/widgets.js";

// The API's bounds for a key's limits (src/domain/keys/service.ts); empty means the default.
const MAX_RATE_LIMIT = 10_000_000;
const MAX_MONTHLY_QUOTA = 1_000_000_000_000;

/** The integer typed in `input` (null when empty), or throws a message naming `field` like the API's 400. */
function limitValue(input, field, max) {
  const raw = input.value.trim();
  if (raw === "") return null;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < 1 || n > max) throw new Error(`${field} must be a whole number from 1 to ${fmtNum(max)}, or empty`);
  return n;
}

/** "used N of M this month" ("used N this month" without a quota), with a "quota used up" badge at the limit. */
function usageText(month) {
  if (month.quota === null) return h("span", { "data-usage": month.used }, `used ${fmtNum(month.used)} this month`);
  return h(
    "span",
    { "data-usage": month.used },
    `used ${fmtNum(month.used)} of ${fmtNum(month.quota)} this month`,
    month.remaining === 0 ? [" ", badge("quota used up", "bad")] : null,
  );
}

const SCOPES = [
  ["maps:read", "Read private styles, tilesets and sprites"],
  ["geocoding", "Forward, reverse, autocomplete and batch geocoding"],
  ["routing", "Directions and routing"],
  ["elevation", "Point and along-route elevation"],
  ["static_maps", "Static map images"],
  ["tilesets:write", "Upload and publish tilesets (automation)"],
  ["styles:write", "Edit and publish styles (automation)"],
];

/**
 * The fields of a key, empty for a new one or filled from `key` to edit it. `prefix` makes the ids
 * unique ("key" for the create form, "edit-key" for the edit row). `read()` gives the request body, or
 * throws a message like the API's 400: every field for a new key, only the changed ones for an edit.
 */
function keyFields(prefix, key = null) {
  const name = h("input", { type: "text", id: `${prefix}-name`, required: true, placeholder: "web-app-production", value: key?.name ?? "" });
  const boxes = SCOPES.map(([scope, text]) =>
    h("label.inline", { title: text }, h("input", { type: "checkbox", name: "scope", value: scope, defaultChecked: key ? key.scopes.includes(scope) : scope === "maps:read" }), h("code", scope), h("span.hint", text)),
  );
  const origins = h("textarea", { id: `${prefix}-origins`, rows: 2, placeholder: "https://app.example.com\nhttps://*.example.com" });
  origins.defaultValue = key ? key.allowed_origins.join("\n") : "";
  // A key's expiry is a moment; the field shows its UTC day, and an edit sends it only when that changed.
  // A day picked means the key works through that day (UTC), not that it stops as the day begins.
  const expiresDay = key?.expires_at ? key.expires_at.slice(0, 10) : "";
  const endOfDay = (day) => `${day}T23:59:59Z`;
  const expires = h("input", { type: "date", id: `${prefix}-expires`, value: expiresDay });
  const rateLimit = h("input", { type: "number", id: `${prefix}-rate-limit`, min: 1, max: MAX_RATE_LIMIT, step: 1, inputmode: "numeric", placeholder: "default", value: key?.rate_limit_per_minute ?? "" });
  const quota = h("input", { type: "number", id: `${prefix}-quota`, min: 1, max: MAX_MONTHLY_QUOTA, step: 1, inputmode: "numeric", placeholder: "unlimited", value: key?.monthly_quota ?? "" });
  const layout = [
    h("div.form-row", h("label", "Name", name, h("span.hint", "The app or environment that uses it")), h("label", "Expires", expires, h("span.hint", "Optional; the key works through that day (UTC)"))),
    h("fieldset", h("legend", "Scopes: only what the integration needs"), h("div.checks", boxes)),
    h(
      "div.form-row",
      h("label", "Rate limit (requests per minute)", rateLimit, h("span.hint", "Per service group; empty uses the server's RATE_LIMIT_PER_MINUTE")),
      h("label", "Monthly quota (billable calls)", quota, h("span.hint", "Per UTC calendar month; empty is unlimited. Over it, calls answer 429 QUOTA_EXCEEDED")),
    ),
    h("label", "Allowed browser origins", origins, h("span.hint", "One per line; empty allows any. Best-effort friction for browser keys, not an authorization boundary: Origin can be forged outside browsers.")),
  ];
  function read() {
    const body = {
      name: name.value.trim(),
      scopes: boxes.map((b) => b.querySelector("input")).filter((i) => i.checked).map((i) => i.value),
      allowed_origins: origins.value.split(/[\s,]+/).map((o) => o.trim()).filter(Boolean),
      rate_limit_per_minute: limitValue(rateLimit, "Rate limit", MAX_RATE_LIMIT),
      monthly_quota: limitValue(quota, "Monthly quota", MAX_MONTHLY_QUOTA),
    };
    if (!key) {
      // A new key leaves out what is empty: the server's defaults apply.
      if (expires.value) body.expires_at = endOfDay(expires.value);
      if (body.rate_limit_per_minute === null) delete body.rate_limit_per_minute;
      if (body.monthly_quota === null) delete body.monthly_quota;
      return body;
    }
    // An edit sends what changed; an emptied expiry or limit is sent as null, which clears it.
    if (expires.value !== expiresDay) body.expires_at = expires.value ? endOfDay(expires.value) : null;
    const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
    if (body.name === key.name) delete body.name;
    if (same([...body.scopes].sort(), [...key.scopes].sort())) delete body.scopes;
    if (same(body.allowed_origins, key.allowed_origins)) delete body.allowed_origins;
    if (body.rate_limit_per_minute === key.rate_limit_per_minute) delete body.rate_limit_per_minute;
    if (body.monthly_quota === key.monthly_quota) delete body.monthly_quota;
    return body;
  }
  return { layout, read, focus: () => name.focus() };
}

export async function renderKeys(main, _item, view) {
  const { keys } = await api("GET", orgPath("/keys") + "?include_revoked=true");
  if (!current(view)) return;
  const admin = canAdmin();
  const err = h("div", { hidden: true });
  const secretSlot = h("div", { id: "new-key-secret" });
  let fields = keyFields("key");
  const fieldSlot = h("div", fields.layout);
  const form = h(
    "form.card",
    {
      id: "new-key-form",
      hidden: !admin,
      onsubmit: async (e) => {
        e.preventDefault();
        err.hidden = true;
        let body;
        try {
          body = fields.read();
        } catch (ex) {
          return showError(err, ex);
        }
        try {
          const created = await api("POST", orgPath("/keys"), body);
          // Back to the defaults (maps:read checked, nothing else filled in).
          fields = keyFields("key");
          fill(fieldSlot, fields.layout);
          showSecret(created);
          await refreshList();
        } catch (ex) {
          showError(err, ex);
        }
      },
    },
    h("h2", "Create an API key"),
    err,
    fieldSlot,
    h("div.actions", h("button.btn.btn-primary", { type: "submit", id: "create-key" }, "Create key")),
  );
  function showSecret(created) {
    // The secret exists only in this element: never stored, never put in a URL. Until it is copied or
    // dismissed, leaving the page (a link, Back, closing or reloading the tab) asks first.
    let kept = false;
    const keep = () => (kept = true);
    setLeaveGuard(() =>
      kept || !current(view)
        ? null
        : [`Leave without the secret of “${created.key.name}”?`, "Its secret is shown only once and has not been copied. Mapstead keeps only a hash: once you leave, the key can only be revoked and replaced.", "Leave page"],
    );
    fill(secretSlot,
      h(
        "div.alert.alert-warn",
        { role: "alert" },
        h("strong", `Key “${created.key.name}” created. Copy its secret now: it is shown only once.`),
        h("div.secret-box", h("code", { id: "key-secret" }, created.secret), copyButton(created.secret, "Secret copied", keep)),
        h("div.small", "Send it in the X-API-Key header. Store it in your deployment's secret store; Mapstead keeps only a hash and cannot show it again. "),
        h("div.actions", h("button.btn.btn-small", { type: "button", id: "key-secret-done", onclick: () => (keep(), fill(secretSlot)) }, "I have stored it")),
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
              h(
                "td.small.key-limits",
                h("div", k.rate_limit_per_minute !== null ? `${fmtNum(k.rate_limit_per_minute)}/min` : h("span.muted", "default rate")),
                h("div", k.monthly_quota !== null ? `quota ${fmtNum(k.monthly_quota)}/month` : h("span.muted", "no quota")),
                h("div.key-usage", { "data-usage-for": k.id }, k.status === "revoked" ? null : h("span.muted", "…")),
              ),
              h("td.small.muted", fmtDate(k.created_at)),
              h("td.small", k.last_used_at ? fmtDate(k.last_used_at) : h("span.muted", "never")),
              h("td", badge(k.status)),
              h(
                "td.right",
                admin && k.status !== "revoked"
                  ? [h("button.btn.btn-small", { type: "button", "data-edit": k.id, onclick: (e) => openEditor(k, e.currentTarget.closest("tr")) }, "Edit"), " ", h(
                      "button.btn.btn-small.btn-danger",
                      {
                        type: "button",
                        onclick: () =>
                          confirmAndDelete({
                            question: [`Revoke key “${k.name}”?`, `Requests with ${k.prefix}… answer 401 from now on. Deploy a replacement first if clients still use it.`, "Revoke key"],
                            path: orgPath(`/keys/${k.id}`),
                            done: `Key ${k.name} revoked`,
                            after: refreshList,
                          }),
                      },
                      "Revoke",
                    )]
                  : null,
              ),
            ),
          )
        : [h("tr", h("td.empty", { colSpan: 9 }, "No API keys yet."))]),
    );
  /** Opens the edit row under a key's row (one at a time), its fields filled in; Save sends what changed. */
  function openEditor(k, row) {
    tbody.querySelector("tr.key-edit")?.remove();
    const editErr = h("div", { hidden: true });
    const edit = keyFields("edit-key", k);
    const editForm = h(
      "form",
      {
        id: "edit-key-form",
        onsubmit: async (e) => {
          e.preventDefault();
          editErr.hidden = true;
          let body;
          try {
            body = edit.read();
          } catch (ex) {
            return showError(editErr, ex);
          }
          if (!Object.keys(body).length) {
            editRow.remove();
            return toast("Nothing changed");
          }
          try {
            await api("PATCH", orgPath(`/keys/${k.id}`), body);
            toast(`Key ${body.name ?? k.name} updated`);
            await refreshList();
          } catch (ex) {
            showError(editErr, ex);
          }
        },
      },
      h("h3", `Edit key “${k.name}”`),
      h("p.hint", "Changes apply to requests at once; the secret stays the same."),
      editErr,
      edit.layout,
      h("div.actions", h("button.btn.btn-primary", { type: "submit", id: "save-key" }, "Save changes"), h("button.btn", { type: "button", onclick: () => editRow.remove() }, "Cancel")),
    );
    const editRow = h("tr.key-edit", h("td", { colSpan: 9 }, editForm));
    row.after(editRow);
    edit.focus();
  }
  /** Fills each listed key's usage cell from its usage record (this month against the quota). */
  const loadUsage = (list) =>
    Promise.all(
      list
        .filter((k) => k.status !== "revoked")
        .map(async (k) => {
          const cell = tbody.querySelector(`[data-usage-for="${k.id}"]`);
          try {
            const usage = await api("GET", orgPath(`/keys/${k.id}/usage`));
            if (current(view) && cell) fill(cell, usageText(usage.month));
          } catch (ex) {
            if (current(view) && cell) fill(cell, h("span.muted", `usage unavailable: ${ex.message}`));
          }
        }),
    );
  const refreshList = async () => {
    const fresh = await api("GET", orgPath("/keys") + "?include_revoked=true");
    if (!current(view)) return;
    renderRows(fresh.keys);
    loadUsage(fresh.keys);
  };
  renderRows(keys);
  loadUsage(keys);
  fill(main,
    pageHead("API keys", "Keys authenticate service APIs (X-API-Key header) and private map reads for this organization."),
    admin ? null : h("div.alert.alert-info", "Only owners and admins of the organization create and revoke keys."),
    secretSlot,
    form,
    h(
      "div.card",
      h(
        "table",
        h("thead", h("tr", h("th", "Name / prefix"), h("th", "Scopes"), h("th", "Origins"), h("th", "Expires"), h("th", "Limits / usage"), h("th", "Created"), h("th", "Last used"), h("th", "Status"), h("th"))),
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
