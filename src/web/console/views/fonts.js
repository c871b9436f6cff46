// Fonts installed on the appliance (shared by every organization); instance admins install TTF/OTF.
import { api, upload } from "../lib/api.js";
import { fill, h } from "../lib/dom.js";
import { fmtDate, fmtNum } from "../lib/format.js";
import { route } from "../lib/router.js";
import { current, state } from "../lib/state.js";
import { badge, pageHead, showError, toast } from "../lib/widgets.js";

export async function renderFonts(main, _item, view) {
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
