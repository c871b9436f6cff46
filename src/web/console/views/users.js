// Users (instance admins): every account on the appliance, and what an admin does to lock one out:
// disable or enable, grant or revoke instance admin, sign out everywhere, set a new password, delete.
// The API enforces the rules (the last admin stays, an organization's only owner cannot be deleted, you
// cannot disable or delete yourself); its refusals are shown in the dialog with their message.
import { api } from "../lib/api.js";
import { confirmAndDelete } from "../lib/confirm-delete.js";
import { fill, h } from "../lib/dom.js";
import { fmtDate } from "../lib/format.js";
import { go, route } from "../lib/router.js";
import { current, state } from "../lib/state.js";
import { badge, confirmDialog, pageHead, showError, toast } from "../lib/widgets.js";

const userPath = (u, rest = "") => `/api/v1/users/${u.id}${rest}`;
const sessions = (n) => (n === 1 ? "1 session" : `${n} sessions`);

/**
 * Asks, runs the change while the dialog stays open (a refusal such as "the last instance admin" shows
 * there), then says what happened and redraws the page (or runs `after`).
 */
async function confirmChange(question, request, done, after = route) {
  let answer;
  if (!(await confirmDialog(...question, async () => (answer = await request())))) return;
  toast(done(answer));
  await after();
}

function actions(u, me, passwordFor) {
  const self = u.id === me;
  const patch = (body) => () => api("PATCH", userPath(u), body);
  return h(
    "div.actions",
    self
      ? null
      : u.disabled
        ? h("button.btn.btn-small", { type: "button", "data-action": "enable", onclick: async () => {
            try {
              await api("PATCH", userPath(u), { disabled: false });
              toast(`${u.email} can sign in again`);
              route();
            } catch (ex) {
              toast(ex.message, "error");
            }
          } }, "Enable")
        : h("button.btn.btn-small.btn-danger", { type: "button", "data-action": "disable", onclick: () =>
            confirmChange(
              [`Disable ${u.email}?`, `${u.email} cannot sign in any more, and every session of it ends now. Memberships stay; enable the account to let it back in.`, "Disable"],
              patch({ disabled: true }),
              (r) => `${u.email} disabled; ${sessions(r.sessions_ended)} ended`,
            ) }, "Disable"),
    u.is_admin
      ? h("button.btn.btn-small", { type: "button", "data-action": "revoke-admin", onclick: () =>
          confirmChange(
            [`Revoke instance admin from ${u.email}?`, self ? "You lose access to user accounts, fonts and organizations you are not a member of." : `${u.email} keeps only its organization roles.`, "Revoke admin"],
            patch({ is_admin: false }),
            () => `${u.email} is no longer an instance admin`,
            // Without your admin rights this page and the admin sections are closed: start again as you are now.
            self ? () => location.reload() : route,
          ) }, "Revoke admin")
      : h("button.btn.btn-small", { type: "button", "data-action": "grant-admin", onclick: () =>
          confirmChange(
            [`Make ${u.email} an instance admin?`, `${u.email} will manage every organization, user account and font on this appliance.`, "Make admin"],
            patch({ is_admin: true }),
            () => `${u.email} is now an instance admin`,
          ) }, "Make admin"),
    h("button.btn.btn-small", { type: "button", "data-action": "end-sessions", onclick: () =>
      confirmChange(
        self
          ? ["Sign out your other sessions?", "Every other browser signed in as you is signed out; this one stays.", "Sign out others"]
          : [`Sign ${u.email} out everywhere?`, `Every session of ${u.email} ends now. The account can sign in again; disable it to keep it out.`, "Sign out"],
        () => api("DELETE", userPath(u, "/sessions")),
        (r) => `${sessions(r.sessions_ended)} of ${u.email} ended`,
      ) }, self ? "Sign out others" : "Sign out"),
    h("button.btn.btn-small", { type: "button", "data-action": "set-password", onclick: () => passwordFor(u) }, "Set password"),
    self
      ? null
      : h("button.btn.btn-small.btn-danger", { type: "button", "data-action": "delete", onclick: () =>
          confirmAndDelete({
            question: [`Delete ${u.email}?`, `The account, its memberships and its sessions are deleted. This cannot be undone. API keys belong to organizations and stay.`, "Delete"],
            path: userPath(u),
            done: `${u.email} deleted`,
            after: route,
          }) }, "Delete"),
  );
}

/** Sets a new password for the account chosen in the list; its admin status does not change. */
function passwordCard(users) {
  const err = h("div", { hidden: true });
  // No account is preselected: a password set on the wrong account would lock its owner out.
  const who = h("select", { id: "password-user", required: true }, h("option", { value: "" }, "Choose an account…"), users.map((u) => h("option", { value: String(u.id) }, u.email)));
  const password = h("input", { type: "password", id: "password-new", required: true, minLength: 10, autocomplete: "new-password" });
  const form = h(
    "form.card",
    {
      id: "password-form",
      onsubmit: async (e) => {
        e.preventDefault();
        err.hidden = true;
        const u = users.find((x) => String(x.id) === who.value);
        try {
          const r = await api("PATCH", userPath(u), { password: password.value });
          form.reset();
          toast(u.id === state.session.user.id ? `Your password was changed; ${sessions(r.sessions_ended)} elsewhere ended` : `New password set for ${u.email}; ${sessions(r.sessions_ended)} ended`);
        } catch (ex) {
          showError(err, ex);
        }
      },
    },
    h("h2", "Set a new password"),
    h("p.muted.small", "For a user who lost theirs, or to lock out whoever learned it. Their sessions end; their admin status does not change. Give them the password through a safe channel."),
    err,
    h("div.form-row", h("label", "Account", who), h("label", "New password", password, h("span.hint", "At least 10 characters"))),
    h("div.actions", h("button.btn", { type: "submit" }, "Set password")),
  );
  const choose = (u) => {
    who.value = String(u.id);
    err.hidden = true;
    form.scrollIntoView({ block: "nearest" });
    password.focus();
  };
  return { form, choose };
}

export async function renderUsers(main, _item, view) {
  if (!state.session.user.is_admin) return go("overview");
  const { users } = await api("GET", "/api/v1/users");
  if (!current(view)) return;
  const me = state.session.user.id;
  const password = passwordCard(users);
  fill(
    main,
    pageHead("Users", "Every account on this appliance. Create accounts on an organization's Members page."),
    h(
      "div.card",
      h(
        "table",
        { id: "users-table" },
        h("thead", h("tr", h("th", "Email"), h("th", "Status"), h("th", "Created"), h("th"))),
        h(
          "tbody",
          users.map((u) =>
            h(
              "tr",
              { "data-user": u.email },
              h("td", u.email, u.id === me ? h("span.muted", " (you)") : null),
              h("td", u.disabled ? badge("disabled", "bad") : badge("active", "ok"), u.is_admin ? [" ", badge("admin", "published")] : null),
              h("td.muted.small", fmtDate(u.created_at)),
              h("td.right", actions(u, me, password.choose)),
            ),
          ),
        ),
      ),
    ),
    password.form,
  );
}
