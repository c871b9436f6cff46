// The preflight checks (the same as `mapstead preflight`), failures first, with their fixes.
import { api } from "../lib/api.js";
import { fill, h } from "../lib/dom.js";
import { route } from "../lib/router.js";
import { current } from "../lib/state.js";
import { badge, pageHead } from "../lib/widgets.js";

export async function renderSetup(main, _item, view) {
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
