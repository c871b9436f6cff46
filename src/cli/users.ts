// `mapstead users ...`: console accounts from the machine itself (air-gapped setup, recovery, locking a
// compromised account out). The password itself comes from password.ts (a prompt or stdin, never argv).
// The account changes go through the same domain functions as the API (domain/accounts/account-admin.ts),
// so the same rules hold and a running server drops the user's sessions at once.
import type { CliCommand } from "./command";
import { unknownOrgWords } from "./unknown-org";
import { currentAccount } from "../os-user";
import { UsageError, parse, settingsHelp } from "./args";
import { withContext } from "./runtime";
import { readPassword } from "./password";
import { bold, dim, print, printErr, red, yellow } from "./output";
import { createUser } from "../domain/accounts/users";
import { accountByEmail, deleteAccount, endAccountSessions, listAccounts, updateAccount, type AccountAdminDeps, type Actor } from "../domain/accounts/account-admin";
import { addMember, orgBySlug } from "../domain/orgs/service";
import { createLogger } from "../log";
import type { AppContext } from "../context";
import type { Services } from "../services";

const HELP = `Usage:
  mapstead users create --email EMAIL [--admin] [--org SLUG [--role owner|admin|member]] [--password-stdin] [settings]
  mapstead users list [--json] [settings]
  mapstead users disable --email EMAIL [settings]
  mapstead users enable --email EMAIL [settings]
  mapstead users delete --email EMAIL [settings]
  mapstead users set-password --email EMAIL [--password-stdin] [settings]
  mapstead users grant-admin --email EMAIL [settings]
  mapstead users revoke-admin --email EMAIL [settings]
  mapstead users end-sessions --email EMAIL [settings]

create        Creates a console account. --org adds it to an organization (default role: member).
              --admin makes an instance admin, who can see and manage every organization.
list          Lists accounts with their admin and disabled state.
disable       Locks the account out: it cannot sign in, and its sessions end at once (a running server
              refuses them from the next request). enable lets it sign in again.
delete        Deletes the account with its memberships and sessions. Refused for the only owner of an
              organization (make someone else owner there first); API keys belong to organizations and stay.
set-password  Sets a new password and ends the account's sessions; its instance admin status is unchanged.
grant-admin   Makes the account an instance admin; revoke-admin takes that away.
end-sessions  Signs the user out everywhere (the account can sign in again; disable it to keep it out).

The last instance admin who can sign in is never disabled, deleted or demoted: make another account
admin first. Passwords are asked twice without echo, or read from the first line of stdin with
--password-stdin (for scripts: printf '%s\\n' "$PW" | mapstead users set-password ...). Each change is
logged as a JSON line on stderr (who, whom, what; never the password) at LOG_LEVEL info.

Settings:
${settingsHelp()}`;

const ACCOUNT_ACTIONS = ["disable", "enable", "delete", "set-password", "grant-admin", "revoke-admin", "end-sessions"] as const;
type AccountAction = (typeof ACCOUNT_ACTIONS)[number];
const isAccountAction = (s: string | undefined): s is AccountAction => (ACCOUNT_ACTIONS as readonly string[]).includes(s ?? "");

/** The operator on the machine, for the log: the OS account that ran the command. */
export function cliActor(): Actor {
  // The person behind sudo when there is one, else the account running the command (not $USER, which
  // is unset under `docker exec` and whatever the caller says otherwise).
  return { kind: "cli", osUser: process.env.SUDO_USER || currentAccount() || "unknown" };
}

/** The account changes' dependencies; their log lines go to stderr (stdout is the command's answer). */
export function cliAccountDeps(ctx: AppContext, services: Services): AccountAdminDeps {
  return { sqlite: ctx.sqlite, changes: services.changes, log: createLogger(ctx.config.logLevel, (line) => process.stderr.write(line + "\n")) };
}

async function runAccountAction(action: AccountAction, email: string, password: string | undefined, ctx: AppContext, services: Services): Promise<number> {
  const deps = cliAccountDeps(ctx, services);
  const actor = cliActor();
  const target = accountByEmail(ctx.sqlite, email);
  const name = bold(target.email);
  const sessions = (n: number) => (n === 1 ? "1 session" : `${n} sessions`);
  switch (action) {
    case "disable": {
      if (target.disabledAt !== null) {
        print(`${name} is already disabled`);
        return 0;
      }
      const { sessionsEnded } = await updateAccount(deps, actor, target.id, { disabled: true });
      print(`Disabled ${name}: it cannot sign in, and ${sessions(sessionsEnded)} ended`);
      return 0;
    }
    case "enable": {
      if (target.disabledAt === null) {
        print(`${name} is not disabled`);
        return 0;
      }
      await updateAccount(deps, actor, target.id, { disabled: false });
      print(`Enabled ${name}: it can sign in again`);
      return 0;
    }
    case "delete": {
      deleteAccount(deps, actor, target.id);
      print(`Deleted ${name} (id ${target.id}) with its memberships and sessions`);
      return 0;
    }
    case "set-password": {
      const { account, sessionsEnded } = await updateAccount(deps, actor, target.id, { password: password! });
      print(`Set a new password for ${name}; ${sessions(sessionsEnded)} ended${account.isAdmin ? "" : " (still not an instance admin)"}`);
      if (account.disabledAt !== null) print(yellow(`${account.email} is disabled: it signs in once enabled (mapstead users enable --email ${account.email})`));
      return 0;
    }
    case "grant-admin": {
      if (target.isAdmin) {
        print(`${name} is already an instance admin`);
        return 0;
      }
      await updateAccount(deps, actor, target.id, { isAdmin: true });
      print(`${name} is now an instance admin`);
      return 0;
    }
    case "revoke-admin": {
      if (!target.isAdmin) {
        print(`${name} is not an instance admin`);
        return 0;
      }
      await updateAccount(deps, actor, target.id, { isAdmin: false });
      print(`${name} is no longer an instance admin`);
      return 0;
    }
    case "end-sessions": {
      const { ended } = endAccountSessions(deps, actor, target.id);
      print(`Ended ${sessions(ended)} of ${name}`);
      return 0;
    }
  }
}

export const usersCommand: CliCommand = {
  name: "users",
  summary: "Create, list, disable, enable or delete user accounts; set passwords, admin; end sessions",
  help: HELP,
  async run(args, overrides) {
    const { values, positionals } = parse(args, {
      email: { type: "string" },
      admin: { type: "boolean" },
      org: { type: "string" },
      role: { type: "string" },
      "password-stdin": { type: "boolean" },
      json: { type: "boolean" },
    });
    const [sub, ...extra] = positionals;
    if (extra.length) throw new UsageError(`unexpected argument '${extra[0]}'`);
    if (sub === "list")
      return withContext(overrides, "users", (ctx) => {
        const users = listAccounts(ctx.sqlite);
        const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
        if (values.json)
          print(JSON.stringify(users.map((u) => ({ id: u.id, email: u.email, is_admin: u.isAdmin, disabled: u.disabledAt !== null, disabled_at: iso(u.disabledAt), created_at: iso(u.createdAt) })), null, 2));
        else if (!users.length) print("No users yet. Create the first admin with: mapstead admin create --email you@example.com");
        else for (const u of users) print(`${String(u.id).padStart(4)}  ${bold(u.email)}${u.isAdmin ? "  admin" : ""}${u.disabledAt !== null ? `  ${yellow("disabled")}` : ""}  ${dim(iso(u.createdAt)!)}`);
        return 0;
      }, { existing: "show" });
    if (isAccountAction(sub)) {
      if (!values.email) throw new UsageError("--email is required");
      for (const flag of ["admin", "org", "role", "json"] as const) if (values[flag] !== undefined) throw new UsageError(`--${flag} does not apply to \`users ${sub}\``);
      if (values["password-stdin"] !== undefined && sub !== "set-password") throw new UsageError(`--password-stdin does not apply to \`users ${sub}\``);
      const email = values.email;
      // Read before the database is opened, like create: a prompt must not hold the write lock.
      const password = sub === "set-password" ? await readPassword(values["password-stdin"] === true) : undefined;
      return withContext(overrides, "users", (ctx, services) => runAccountAction(sub, email, password, ctx, services), { existing: "change" });
    }
    if (sub !== "create") throw new UsageError(`expected \`users create\`, \`users list\` or \`users ${ACCOUNT_ACTIONS.join("|")}\` (see --help)`);
    if (!values.email) throw new UsageError("--email is required");
    const role = values.role ?? "member";
    if (role !== "owner" && role !== "admin" && role !== "member") throw new UsageError("--role must be owner, admin or member");
    if (values.role && !values.org) throw new UsageError("--role needs --org");
    const email = values.email;
    const password = await readPassword(values["password-stdin"] === true);
    return withContext(overrides, "users", async (ctx) => {
      const org = values.org ? orgBySlug(ctx.db, values.org) : undefined;
      if (values.org && !org) {
        printErr(red(`mapstead users: ${unknownOrgWords(ctx.db, values.org)}`));
        return 1;
      }
      const user = await createUser(ctx.db, { email, password, isAdmin: values.admin === true });
      if (org) addMember(ctx.db, org.id, user.id, role);
      print(`Created user ${bold(user.email)} (id ${user.id})${user.isAdmin ? " as instance admin" : ""}${org ? `, ${role} of ${org.slug}` : ""}`);
      return 0;
    });
  },
};
