// The settings form of a tileset or a style: PATCHes only the fields that changed.
import { api } from "./api.js";
import { h } from "./dom.js";
import { showError, toast } from "./widgets.js";

/** A form that PATCHes the editable fields of a tileset or style; `onSaved` gets the new record. */
export function settingsCard(id, path, record, fields, onSaved) {
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
