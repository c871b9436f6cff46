// `mapstead users create|list`: console accounts from the machine itself (air-gapped setup, recovery).
// The password itself comes from password.ts (a prompt or stdin, never argv).
import type { CliCommand } from "./command";
import { UsageError, parse, settingsHelp } from "./args";
import { withContext } from "./runtime";
import { readPassword } from "./password";
import { bold, dim, print, printErr, red } from "./output";
import { createUser } from "../domain/accounts/users";
import { listAccounts } from "../domain/accounts/account-admin";
import { addMember, orgBySlug } from "../domain/orgs/service";

const HELP = `Usage:
  mapstead users create --email EMAIL [--admin] [--org SLUG [--role owner|admin|member]] [--password-stdin] [settings]
  mapstead users list [--json] [settings]

Creates a console account, or lists accounts. The password is asked twice without echo, or read from
the first line of stdin with --password-stdin (for scripts: printf '%s\\n' "$PW" | mapstead users create ...).
--org adds the new user to an organization (default role: member). --admin makes an instance admin,
who can see and manage every organization.

Settings:
${settingsHelp()}`;

export const usersCommand: CliCommand = {
  name: "users",
  summary: "Create (create) or list (list) console user accounts",
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
        if (values.json) print(JSON.stringify(users.map((u) => ({ id: u.id, email: u.email, is_admin: u.isAdmin, created_at: new Date(u.createdAt).toISOString() })), null, 2));
        else if (!users.length) print("No users yet. Create the first admin with: mapstead admin create --email you@example.com");
        else for (const u of users) print(`${String(u.id).padStart(4)}  ${bold(u.email)}${u.isAdmin ? "  admin" : ""}  ${dim(new Date(u.createdAt).toISOString())}`);
        return 0;
      });
    if (sub !== "create") throw new UsageError("expected `users create` or `users list` (see --help)");
    if (!values.email) throw new UsageError("--email is required");
    const role = values.role ?? "member";
    if (role !== "owner" && role !== "admin" && role !== "member") throw new UsageError("--role must be owner, admin or member");
    if (values.role && !values.org) throw new UsageError("--role needs --org");
    const email = values.email;
    const password = await readPassword(values["password-stdin"] === true);
    return withContext(overrides, "users", async (ctx) => {
      const org = values.org ? orgBySlug(ctx.db, values.org) : undefined;
      if (values.org && !org) {
        printErr(red(`mapstead users: no organization '${values.org}' (mapstead orgs list)`));
        return 1;
      }
      const user = await createUser(ctx.db, { email, password, isAdmin: values.admin === true });
      if (org) addMember(ctx.db, org.id, user.id, role);
      print(`Created user ${bold(user.email)} (id ${user.id})${user.isAdmin ? " as instance admin" : ""}${org ? `, ${role} of ${org.slug}` : ""}`);
      return 0;
    });
  },
};
