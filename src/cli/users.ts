// `mapstead users create|list`: console accounts from the machine itself (air-gapped setup, recovery).
// Passwords come from a no-echo prompt, or from stdin with --password-stdin; never from argv, where
// they would land in shell history and the process list.
import { createServices, type Services } from "../services";
import { parseArgs } from "node:util";
import type { CliCommand } from "./command";
import { UsageError, settingsHelp, usageErrorOf } from "./args";
import { configOrExit, openContext } from "./runtime";
import { bold, dim, print, printErr, red } from "./output";
import { AppError } from "../errors";
import { createUser, listUsers } from "../domain/accounts/users";
import { addMember, orgBySlug } from "../domain/orgs/service";
import type { AppContext } from "../context";

/** Reads a password: all of stdin (first line) with --password-stdin, else a no-echo prompt asked twice. */
export async function readPassword(fromStdin: boolean): Promise<string> {
  if (fromStdin) {
    const text = await new Response(Bun.stdin.stream()).text();
    return text.split(/\r?\n/)[0] ?? "";
  }
  if (!process.stdin.isTTY) throw new UsageError("stdin is not a terminal: pass the password on stdin with --password-stdin");
  const first = await prompt("Password (at least 10 characters): ");
  const second = await prompt("Repeat password: ");
  if (first !== second) throw new UsageError("the two passwords differ");
  return first;
}

function prompt(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    process.stderr.write(question);
    stdin.setRawMode(true);
    stdin.resume();
    let value = "";
    const done = (err?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off("data", onData);
      process.stderr.write("\n");
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString("utf8")) {
        if (ch === "\r" || ch === "\n") return done();
        if (ch === "\u0003") return done(new UsageError("cancelled"));
        if (ch === "\u007f" || ch === "\b") value = value.slice(0, -1);
        else if (ch >= " ") value += ch;
      }
    };
    stdin.on("data", onData);
  });
}

export async function withContext(overrides: Record<string, string>, name: string, fn: (ctx: AppContext, services: Services) => Promise<number> | number): Promise<number> {
  const ctx = openContext(configOrExit(overrides), { quiet: true });
  try {
    return await fn(ctx, createServices(ctx));
  } catch (err) {
    if (err instanceof AppError) {
      printErr(red(`mapstead ${name}: ${err.message}`));
      return 1;
    }
    throw err;
  } finally {
    await ctx.shutdown();
  }
}

export function parse<T extends Record<string, { type: "string" | "boolean"; multiple?: boolean }>>(args: string[], options: T) {
  try {
    return parseArgs({ args, allowPositionals: true, strict: true, options });
  } catch (err) {
    throw usageErrorOf(err);
  }
}

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
        const users = listUsers(ctx.db);
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
