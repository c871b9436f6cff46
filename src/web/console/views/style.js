// One style: its URLs, a live preview (published or draft), a static image of it and its raster tile
// URLs, the draft JSON editor with the validator's problems, sprite upload and removal, settings, and its versions
// (re-publish an older one).
import { api, ApiError, upload } from "../lib/api.js";
import { confirmAndDelete } from "../lib/confirm-delete.js";
import { $, fill, h } from "../lib/dom.js";
import { fmtDate } from "../lib/format.js";
import { showMap } from "../lib/map.js";
import { go } from "../lib/router.js";
import { settingsCard } from "../lib/settings-card.js";
import { current, enc, orgPath, state } from "../lib/state.js";
import { badge, copyButton, errorBox, pageHead, privateUrlsNote, showError, toast, urlRow } from "../lib/widgets.js";
import { rasterTilesCard, staticImageCard } from "./static-image.js";

export async function renderStyle(main, slug, view) {
  const base = orgPath(`/styles/${enc(slug)}`);
  let [style, { versions }] = await Promise.all([api("GET", base), api("GET", `${base}/versions`)]);
  if (!current(view)) return;

  const head = h("div");
  const urls = h("div.card", { id: "style-urls" });
  const versionsBody = h("tbody");
  const previewSlot = h("div");
  const previewTitle = h("h2", "Preview");
  const rendered = h("div");
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
        style.published_version !== null
          ? h(
              "button.btn.btn-small",
              {
                type: "button",
                id: "unpublish-style",
                onclick: () =>
                  confirmAndDelete({
                    question: [`Unpublish style ${slug}?`, "Its stable URL answers 404 until you publish again; versioned URLs keep working.", "Unpublish"],
                    path: `${base}/unpublish`,
                    method: "POST",
                    done: `Style ${slug} unpublished`,
                    after: () => {
                      // Nothing published is left to preview.
                      previewMode = "draft";
                      return reload();
                    },
                  }),
              },
              "Unpublish",
            )
          : null,
        h(
          "button.btn.btn-danger.btn-small",
          {
            type: "button",
            onclick: () =>
              confirmAndDelete({
                question: [`Delete style ${slug}?`, "The style, all its versions and sprites are deleted; its URLs answer 404.", "Delete style"],
                path: base,
                done: `Style ${slug} deleted`,
                after: () => go("styles"),
              }),
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
      privateUrlsNote(style.visibility),
      h("p.muted.small", "The stable URL follows every publish (cached for 60 s); a versioned URL never changes and pins the tileset versions published at the time."),
    );

  const renderRendered = () => fill(rendered, staticImageCard(style, view), rasterTilesCard(style));

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
    renderRendered();
    renderVersions();
    renderIcons();
    showPreview();
  };

  async function publish() {
    const btn = $("#publish-style");
    btn.disabled = true;
    try {
      // "Publish draft" means what the editor shows: edits not saved yet are saved first (a refusal is
      // listed above the editor and nothing is published), never silently left out.
      if (textarea.value !== JSON.stringify(style.draft, null, 2) && !(await saveDraft())) return;
      const r = await api("POST", `${base}/publish`, {});
      toast(r.created ? `Published as v${r.version}` : `v${r.version} is published (the draft was unchanged)`);
      previewMode = "published";
      // "Draft saved and valid. Publish it…" (or an older refusal) no longer describes the draft.
      draftErr.hidden = true;
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
      style.sprite_icons.length
        ? h(
            "div.actions",
            h(
              "button.btn.btn-small.btn-danger",
              {
                type: "button",
                id: "remove-sprite",
                onclick: () =>
                  confirmAndDelete({
                    question: [
                      `Remove the sprite of ${slug}?`,
                      "The draft loses its icons; published versions keep the sprite they were published with. While the draft's \"sprite\" property still points at it, the server refuses: remove that from the draft first.",
                      "Remove sprite",
                    ],
                    path: `${base}/sprite`,
                    done: "Sprite removed from the draft",
                    after: reload,
                  }),
              },
              "Remove sprite",
            ),
          )
        : null,
    );
  const spriteErr = h("div", { hidden: true });
  const spriteFile = h("input", { type: "file", id: "sprite-file", multiple: true, accept: ".svg,.zip,.json,.png", "aria-label": "Sprite files: SVG icons, a zip of them, or sprite.json and sprite.png" });
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
  const modeSelect = h("select.select-auto", { id: "preview-mode", "aria-label": "Preview mode" }, h("option", { value: "published" }, "Published version"), h("option", { value: "draft" }, "Saved draft"));
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
  renderRendered();
  renderVersions();
  renderIcons();
  fill(main,
    head,
    urls,
    h("div.card", h("div.page-head", previewTitle, modeSelect), previewSlot),
    rendered,
    editor,
    spriteCard,
    settingsCard("style-settings", base, style, [["name", "Name"], ["visibility", "Visibility"]], (fresh) => {
      // The URL cards say what a private style's URLs need; the static image card keeps its inputs otherwise.
      const visibilityChanged = fresh.visibility !== style.visibility;
      style = fresh;
      renderHead();
      renderUrls();
      if (visibilityChanged) renderRendered();
    }),
    h("div.card", h("h2", "Versions"), h("table", h("thead", h("tr", h("th", "Version"), h("th", "Tilesets pinned"), h("th", "Sprite"), h("th", "Created"), h("th"))), versionsBody)),
  );
  showPreview();
}
