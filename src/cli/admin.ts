// `mapstead admin create --email E`: the first admin without a browser, or recovery of a lost admin
// password (--reset-password, for accounts that are instance admins already: a member's password is
// set with `users set-password`, which grants nothing). Disables the one-time web setup token.
import type { CliCommand } from "./command";
import { UsageError, settingsHelp } from "./args";
import { bold, print, printErr } from "./output";
import { parse } from "./args";
import { readPassword } from "./password";
import { withContext } from "./runtime";
import { checkPassword, createUser, normalizeEmail, userByEmail } from "../domain/accounts/users";
import { updateAccount } from "../domain/accounts/account-admin";
import { clearSetupToken } from "../domain/accounts/setup-token";
import { removeSetupTokenFile } from "../domain/accounts/setup-token-file";
import { cliAccountDeps, cliActor } from "./users";

const HELP = `Usage: mapstead admin create --email EMAIL [--password-stdin] [--reset-password] [settings]

Creates an instance admin account. The password is asked twice without echo, or read from the first line
of stdin with --password-stdin. Afterwards the first-run web setup (/setup) is disabled. A running server
picks the account up at once.

When the email already has an account, nothing is changed unless --reset-password is given and the
account is an instance admin: then it gets the new password, its sessions end and, if it was disabled,
it is enabled again (recovery of a lost admin password). --reset-password never makes an account admin:
for other accounts use \`mapstead users set-password\` and, to make one admin, \`mapstead users grant-admin\`.

Settings:
${settingsHelp()}`;

export const adminCommand: CliCommand = {
  name: "admin",
  summary: "Create the first admin account (create), without a browser",
  help: HELP,
  async run(args, overrides) {
    const { values, positionals } = parse(args, { email: { type: "string" }, "password-stdin": { type: "boolean" }, "reset-password": { type: "boolean" } });
    if (positionals[0] !== "create" || positionals.length > 1) throw new UsageError("expected `admin create --email EMAIL` (see --help)");
    if (!values.email) throw new UsageError("--email is required");
    const rawEmail = values.email;
    const reset = values["reset-password"] === true;
    const password = await readPassword(values["password-stdin"] === true);
    return withContext(overrides, "admin", async (ctx, services) => {
      const email = normalizeEmail(rawEmail);
      checkPassword(password);
      const existing = userByEmail(ctx.db, email);
      const instead = `set its password with \`mapstead users set-password --email ${email}\`, make it admin with \`mapstead users grant-admin --email ${email}\``;
      if (existing && !existing.isAdmin) {
        printErr(`mapstead admin: ${email} already has an account that is not an instance admin; nothing was changed (--reset-password recovers admins only). Instead ${instead}`);
        return 1;
      }
      if (existing && !reset) {
        printErr(`mapstead admin: ${email} already has an account; nothing was changed. To give this admin a new password (ending its sessions), run again with --reset-password`);
        return 1;
      }
      if (existing) {
        // The same change as `users set-password` (and enable), so a running server drops the sessions at once.
        const wasDisabled = existing.disabledAt !== null;
        await updateAccount(cliAccountDeps(ctx, services), cliActor(), existing.id, { password, disabled: false });
        print(`Instance admin ${bold(email)} has the new password (its old sessions were ended)${wasDisabled ? "; it was disabled and is enabled again" : ""}`);
      } else {
        const user = await createUser(ctx.db, { email, password, isAdmin: true });
        // Without PUBLIC_URL and with no server running (whose lock says where it listens), the CLI cannot
        // know where the server will listen: its PORT may be set elsewhere.
        const where = ctx.config.publicUrlDefaulted ? `the server's /console (${ctx.config.publicUrl}/console if it runs on this machine with the same PORT)` : `${ctx.config.publicUrl}/console`;
        print(`Created instance admin ${bold(user.email)} (id ${user.id}). Log in at ${where}`);
      }
      clearSetupToken(ctx.sqlite);
      removeSetupTokenFile(ctx.config.dataDir);
      return 0;
    });
  },
};
