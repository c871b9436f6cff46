// `mapstead orgs create|list`: organizations from the machine itself.
import type { CliCommand } from "./command";
import { UsageError, settingsHelp } from "./args";
import { bold, dim, print, printErr, red } from "./output";
import { parse } from "./args";
import { withContext } from "./runtime";
import { createOrg, listMembers, listOrgs } from "../domain/orgs/service";
import { userByEmail } from "../domain/accounts/users";

const HELP = `Usage:
  mapstead orgs create --slug SLUG [--name NAME] [--owner EMAIL] [settings]
  mapstead orgs list [--json] [settings]

Creates an organization (its slug is the {owner} part of map URLs: 1-63 lowercase letters, digits and
inner hyphens), optionally with an existing user as owner, or lists organizations with their members.

Settings:
${settingsHelp()}`;

export const orgsCommand: CliCommand = {
  name: "orgs",
  summary: "Create (create) or list (list) organizations",
  help: HELP,
  async run(args, overrides) {
    const { values, positionals } = parse(args, { slug: { type: "string" }, name: { type: "string" }, owner: { type: "string" }, json: { type: "boolean" } });
    const [sub, ...extra] = positionals;
    if (extra.length) throw new UsageError(`unexpected argument '${extra[0]}'`);
    if (sub === "list")
      return withContext(overrides, "orgs", (ctx) => {
        const orgs = listOrgs(ctx.db).map((o) => ({ ...o, members: listMembers(ctx.db, o.id) }));
        if (values.json)
          print(JSON.stringify(orgs.map((o) => ({ slug: o.slug, name: o.name, created_at: new Date(o.createdAt).toISOString(), members: o.members.map((m) => ({ email: m.email, role: m.role })) })), null, 2));
        else if (!orgs.length) print("No organizations yet. Create one with: mapstead orgs create --slug acme --owner you@example.com");
        else for (const o of orgs) print(`${bold(o.slug)}  ${o.name}  ${dim(o.members.map((m) => `${m.email} (${m.role})`).join(", ") || "no members")}`);
        return 0;
      }, { existing: "show" });
    if (sub !== "create") throw new UsageError("expected `orgs create` or `orgs list` (see --help)");
    if (!values.slug) throw new UsageError("--slug is required");
    const { slug, name, owner } = values;
    return withContext(overrides, "orgs", (ctx) => {
      const user = owner ? userByEmail(ctx.db, owner) : undefined;
      if (owner && !user) {
        printErr(red(`mapstead orgs: no user with email ${owner} (mapstead users create --email ${owner})`));
        return 1;
      }
      const org = createOrg(ctx.db, { slug: slug!, name, ownerUserId: user?.id });
      print(`Created organization ${bold(org.slug)} (${org.name})${user ? ` owned by ${user.email}` : ""}`);
      return 0;
    });
  },
};
