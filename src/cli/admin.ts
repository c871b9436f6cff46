// `mapstead admin create --email E`: the first admin without a browser (or recovery of a lost admin
// password). Disables the one-time web setup token.
import { eq } from "drizzle-orm";
import type { CliCommand } from "./command";
import { UsageError, settingsHelp } from "./args";
import { bold, print, printErr } from "./output";
import { parse } from "./args";
import { readPassword } from "./password";
import { withContext } from "./runtime";
import { users } from "../db/schema";
import { checkPassword, createUser, hashPassword, normalizeEmail, userByEmail } from "../domain/accounts/users";
import { clearSetupToken } from "../domain/accounts/setup-token";
import { removeSetupTokenFile } from "../domain/accounts/setup-token-file";

const HELP = `Usage: mapstead admin create --email EMAIL [--password-stdin] [--reset-password] [settings]

Creates an instance admin account. The password is asked twice without echo, or read from the first line
of stdin with --password-stdin. Afterwards the first-run web setup (/setup) is disabled. A running server
picks the account up at once.

When the email already has an account, nothing is changed unless --reset-password is given: then the
account becomes an instance admin with the new password and its sessions end (recovery of a lost admin
password).

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
    return withContext(overrides, "admin", async (ctx) => {
      const email = normalizeEmail(rawEmail);
      checkPassword(password);
      const existing = userByEmail(ctx.db, email);
      if (existing && !reset) {
        printErr(
          `mapstead admin: ${email} already has an account; nothing was changed. To make it an admin with a new password (ending its sessions), run again with --reset-password`,
        );
        return 1;
      }
      if (existing) {
        const passwordHash = await hashPassword(password);
        ctx.db.update(users).set({ isAdmin: true, passwordHash }).where(eq(users.id, existing.id)).run();
        ctx.sqlite.query("DELETE FROM sessions WHERE user_id = ?").run(existing.id);
        print(`User ${bold(email)} is now an instance admin with the new password (its old sessions were ended)`);
      } else {
        const user = await createUser(ctx.db, { email, password, isAdmin: true });
        // Without PUBLIC_URL the CLI cannot know where the server listens (its PORT may be set elsewhere).
        const where = ctx.config.publicUrlDefaulted ? `the server's /console (${ctx.config.publicUrl}/console if it runs on this machine with the same PORT)` : `${ctx.config.publicUrl}/console`;
        print(`Created instance admin ${bold(user.email)} (id ${user.id}). Log in at ${where}`);
      }
      clearSetupToken(ctx.sqlite);
      removeSetupTokenFile(ctx.config.dataDir);
      return 0;
    });
  },
};
