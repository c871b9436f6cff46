// `mapstead keys create|list|revoke`: API keys from the machine itself. The secret is printed once.
import type { CliCommand } from "./command";
import { unknownOrgWords } from "./unknown-org";
import { UsageError, settingsHelp } from "./args";
import { bold, dim, print, printErr, red, yellow } from "./output";
import { parse } from "./args";
import { withContext } from "./runtime";
import { orgBySlug } from "../domain/orgs/service";
import { createKey, getKey, keyStatus, keyView, listKeys, parseExpiry, revokeKey } from "../domain/keys/service";
import { SCOPES } from "../domain/keys/scopes";
import type { AppContext } from "../context";
import { createChangeBus } from "../domain/changes/bus";
import { AppError } from "../errors";

const HELP = `Usage:
  mapstead keys create --org SLUG --name NAME --scopes SCOPE[,SCOPE...] [--origins ORIGIN[,ORIGIN...]]
                       [--expires DATE] [--rate-limit N] [--monthly-quota N] [--json] [settings]
  mapstead keys list --org SLUG [--all] [--json] [settings]
  mapstead keys revoke --org SLUG ID [settings]

Scopes: ${SCOPES.join(", ")}.
--origins: browser origins allowed to use the key, exact (https://app.example.com) or wildcard
  (https://*.example.com). Best-effort friction, not a boundary: Origin/Referer can be forged.
--expires: ISO 8601 date or date-time (UTC when no zone), e.g. 2027-01-31 or 2027-01-31T12:00:00Z.
--rate-limit: requests per minute per service group (default RATE_LIMIT_PER_MINUTE).
--monthly-quota: billable calls per UTC month (default unlimited).
The secret is printed once; only its hash is stored. list shows prefixes (--all includes revoked keys).
A running server refuses a revoked key from its next request on.

Settings:
${settingsHelp()}`;

const list = (v: string | undefined) => (v === undefined ? undefined : v.split(",").map((s) => s.trim()).filter(Boolean));

function integer(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d{1,15}$/.test(v.trim())) throw new UsageError(`${name} must be a positive integer`);
  return Number(v);
}

function requireOrg(ctx: AppContext, slug: string) {
  const org = orgBySlug(ctx.db, slug);
  if (!org) printErr(red(`mapstead keys: ${unknownOrgWords(ctx.db, slug)}`));
  return org;
}

/** The API's field names in a key service message, as the flags that set them. */
const FLAG_OF_FIELD: [RegExp, string][] = [
  [/\bInvalid allowed_origins\b/, "--origins"],
  [/\ballowed_origins\b/, "--origins"],
  [/\bexpires_at\b/, "--expires"],
  [/\brate_limit_per_minute\b/, "--rate-limit"],
  [/\bmonthly_quota\b/, "--monthly-quota"],
  [/^Unknown scope\(s\)/, "--scopes: unknown scope(s)"],
  [/^A key needs at least one scope/, "--scopes needs at least one scope"],
  [/^Key name must/, "--name must"],
];
const inFlagNames = (message: string) => FLAG_OF_FIELD.reduce((m, [field, flag]) => m.replace(field, flag), message);

const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

export const keysCommand: CliCommand = {
  name: "keys",
  summary: "Create (create), list (list) or revoke (revoke) API keys",
  help: HELP,
  async run(args, overrides) {
    const { values, positionals } = parse(args, {
      org: { type: "string" },
      name: { type: "string" },
      scopes: { type: "string" },
      origins: { type: "string" },
      expires: { type: "string" },
      "rate-limit": { type: "string" },
      "monthly-quota": { type: "string" },
      all: { type: "boolean" },
      json: { type: "boolean" },
    });
    const [sub, ...rest] = positionals;
    if (sub !== "create" && sub !== "list" && sub !== "revoke") throw new UsageError("expected `keys create`, `keys list` or `keys revoke` (see --help)");
    if (!values.org) throw new UsageError("--org is required");
    const orgSlug = values.org;

    if (sub === "list") {
      if (rest.length) throw new UsageError(`unexpected argument '${rest[0]}'`);
      return withContext(overrides, "keys", (ctx) => {
        const org = requireOrg(ctx, orgSlug);
        if (!org) return 1;
        const keys = listKeys(ctx.db, org.id, { includeRevoked: values.all === true });
        if (values.json) {
          print(
            JSON.stringify(
              keys.map((k) => keyView(k)),
              null,
              2,
            ),
          );
          return 0;
        }
        if (!keys.length) print(`No keys in ${org.slug}.`);
        for (const k of keys) {
          const status = keyStatus(k);
          print(`${String(k.id).padStart(4)}  ${bold(k.prefix)}…  ${k.name}  [${k.scopes.join(", ")}]${status === "active" ? "" : `  ${yellow(status)}`}`);
          print(
            dim(
              `      origins: ${k.allowedOrigins.join(", ") || "any"}; rate limit: ${k.rateLimitPerMinute === null ? `the default (${ctx.config.rateLimitPerMinute})` : k.rateLimitPerMinute}/min; monthly quota: ${k.monthlyQuota ?? "none"}; expires: ${iso(k.expiresAt) ?? "never"}; created: ${iso(k.createdAt)}; last used: ${iso(k.lastUsedAt) ?? "never"}`,
            ),
          );
        }
        return 0;
      }, { existing: "show" });
    }

    if (sub === "revoke") {
      if (rest.length !== 1 || !/^\d{1,15}$/.test(rest[0]!)) throw new UsageError("`keys revoke` takes one key ID (see `keys list`)");
      const id = Number(rest[0]);
      return withContext(overrides, "keys", (ctx) => {
        const org = requireOrg(ctx, orgSlug);
        if (!org) return 1;
        const key = getKey(ctx.db, org.id, id);
        print(revokeKey(ctx.db, createChangeBus(ctx.sqlite, ctx.log), org.id, id) ? `Revoked key ${id} (${key.prefix}…, ${key.name}); running servers refuse it from their next request on` : `Key ${id} was already revoked`);
        return 0;
      }, { existing: "change" });
    }

    if (rest.length) throw new UsageError(`unexpected argument '${rest[0]}'`);
    if (!values.name) throw new UsageError("--name is required");
    if (!values.scopes) throw new UsageError(`--scopes is required (${SCOPES.join(", ")})`);
    const { name, scopes, origins, expires } = values;
    const rateLimit = integer("--rate-limit", values["rate-limit"]);
    const quota = integer("--monthly-quota", values["monthly-quota"]);
    return withContext(overrides, "keys", (ctx) => {
      const org = requireOrg(ctx, orgSlug);
      if (!org) return 1;
      let created: ReturnType<typeof createKey>;
      try {
        created = createKey(ctx.db, {
          orgId: org.id,
          name: name!,
          scopes: list(scopes)!,
          allowedOrigins: list(origins),
          expiresAt: expires === undefined ? null : parseExpiry(expires),
          rateLimitPerMinute: rateLimit ?? null,
          monthlyQuota: quota ?? null,
        });
      } catch (err) {
        // The service speaks the API's field names; an operator typed flags, and a bad value is a usage error.
        if (err instanceof AppError && err.status === 400) throw new UsageError(inFlagNames(err.message));
        throw err;
      }
      if (values.json) print(JSON.stringify({ id: created.id, prefix: created.prefix, secret: created.secret }, null, 2));
      else {
        print(`Created key ${created.id} in ${org.slug}. Its secret (shown only now; store it safely):`);
        print(`  ${bold(created.secret)}`);
        print(dim(`Send it as the X-API-Key header.`));
      }
      return 0;
    }, { existing: "change" });
  },
};
