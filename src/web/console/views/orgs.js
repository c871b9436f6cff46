// Organizations: the picker in the sidebar and the "new organization" page.
import { api } from "../lib/api.js";
import { $, fill, h } from "../lib/dom.js";
import { go } from "../lib/router.js";
import { enc, state } from "../lib/state.js";
import { pageHead, showError, toast } from "../lib/widgets.js";

export function renderOrgPicker() {
  const select = $("#org-select");
  const orgs = state.session.orgs;
  fill(select, ...orgs.map((o) => h("option", { value: o.slug }, o.name && o.name !== o.slug ? `${o.name} (${o.slug})` : o.slug)));
  select.disabled = orgs.length === 0;
  if (!orgs.length) select.append(h("option", { value: "" }, "No organization yet"));
  if (state.org) select.value = state.org;
}

/** Reloads the session after the user's organizations changed (created one, left one). */
export async function refreshSession() {
  state.session = await api("GET", "/api/v1/session");
  renderOrgPicker();
}

export function renderNewOrg(main) {
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
