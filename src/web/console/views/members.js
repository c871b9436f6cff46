// Members of an organization: list, add or change a role, remove or leave; instance admins also create
// user accounts here.
import { api } from "../lib/api.js";
import { confirmAndDelete } from "../lib/confirm-delete.js";
import { fill, h } from "../lib/dom.js";
import { fmtDate } from "../lib/format.js";
import { go, route } from "../lib/router.js";
import { canAdmin, current, orgPath, state } from "../lib/state.js";
import { badge, pageHead, showError, toast } from "../lib/widgets.js";
import { refreshSession } from "./orgs.js";

export async function renderMembers(main, _item, view) {
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
          // The API's 404 points to the CLI and the raw API; here the account form is just below.
          if (ex.status === 404 && /^No user account/.test(ex.message))
            ex = new Error(
              `No user account with email ${email.value.trim()} yet. ` +
                (state.session.user.is_admin ? "Create it with “Create a user account” below, then save the member." : "An instance admin creates it first; then save the member again."),
            );
          showError(err, ex);
        }
      },
    },
    h("h2", "Add a member or change a role"),
    h(
      "p.muted.small",
      state.session.user.is_admin
        ? "The user account must exist: create it below under “Create a user account”. Members use tilesets and styles; admins also manage keys and members; only owners grant owner."
        : "The user account must exist: an instance admin creates it. Members use tilesets and styles; admins also manage keys and members; only owners grant owner.",
    ),
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
                        onclick: () => {
                          const self = m.user_id === me;
                          return confirmAndDelete({
                            question: self
                              ? [`Leave ${state.org}?`, "You lose access to this organization.", "Leave"]
                              : [`Remove ${m.email}?`, `${m.email} loses access to ${state.org}.`, "Remove"],
                            path: orgPath(`/members/${m.user_id}`),
                            done: self ? `You left ${state.org}` : `${m.email} removed`,
                            after: async () => {
                              if (!self) return route();
                              await refreshSession();
                              state.org = null;
                              go("overview");
                            },
                          });
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
    state.session.user.is_admin ? newUserCard(email, () => (err.hidden = true)) : null,
  );
}

/** Instance admins create user accounts here, then add them as members with the form above. */
function newUserCard(memberEmail, accountCreated) {
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
          // The member form's "no user account" error is no longer true.
          accountCreated();
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
