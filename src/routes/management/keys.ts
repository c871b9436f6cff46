// API key management (console sessions only: keys never manage keys). Members see the list; owners and
// admins create, change and revoke. The secret appears once, in the create response.
//   GET/POST /api/v1/orgs/{org}/keys, PATCH/DELETE /api/v1/orgs/{org}/keys/{id},
//   GET /api/v1/orgs/{org}/keys/{id}/usage
import { Elysia, t } from "elysia";
import type { Services } from "../../services";
import { BadRequest, NotFound } from "../../errors";
import type { AuthPlugin } from "../../http/auth";
import { type SessionCaller } from "../../http/auth";
import { rejectUnknownFields } from "../../http/strict-body";
import { requireOrgAccess } from "../../domain/orgs/service";
import { ErrorEnvelope } from "./orgs.model";
import { dayOf, monthOf } from "../../domain/usage/service";
import { createKey, getKey, keyView, listKeys, parseExpiry, revokeKey, updateKey, usageRows, type KeyRecord, type UpdateKeyInput } from "../../domain/keys/service";
import { CreateKeyBody, CreatedKey, KeyOut, KeyParams, ListKeysQuery, UpdateKeyBody, UsageOut, UsageQuery } from "./keys.model";
import { OrgParams } from "./orgs.model";
import { withRouteFacts } from "../../http/route-facts";
import { NextCursor, PAGING_NOTE, paged } from "./page.model";

const DAY_MS = 86_400_000;
const MAX_USAGE_DAYS = 366;

function keyId(raw: string): number {
  if (!/^\d{1,15}$/.test(raw)) throw new NotFound(`No API key '${raw.slice(0, 20)}' in this organization`);
  return Number(raw);
}

function day(name: string, raw: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(raw) || dayOf(Date.parse(`${raw}T00:00:00Z`) || NaN) !== raw)
    throw new BadRequest(`Invalid query parameter '${name}': expected a date YYYY-MM-DD, got '${raw}'`);
  return raw;
}

const expiry = (raw: string | null | undefined) => (raw === undefined ? undefined : raw === null ? null : parseExpiry(raw));

/** The key's fields as the API spells them (snake_case, expiry as text), in the domain's terms. */
function keyFields(body: { name?: string; scopes?: string[]; allowed_origins?: string[]; expires_at?: string | null; rate_limit_per_minute?: number | null; monthly_quota?: number | null }): UpdateKeyInput {
  return {
    name: body.name,
    scopes: body.scopes,
    allowedOrigins: body.allowed_origins,
    expiresAt: expiry(body.expires_at),
    rateLimitPerMinute: body.rate_limit_per_minute,
    monthlyQuota: body.monthly_quota,
  };
}

export function keysModule(services: Services, authPlugin: AuthPlugin) {
  const { ctx, auth, changes } = services;
  const errors = { 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 404: ErrorEnvelope };

  const out = (k: KeyRecord) => keyView(k, auth.usage.lastUsedAt(k.id, k.lastUsedAt));

  return withRouteFacts({ cors: "none", group: "management" }, new Elysia({ name: "keys", prefix: "/api/v1/orgs" })
    .use(authPlugin)
    .get(
      "/:org/keys",
      ({ caller, params, query }) => {
        const org = requireOrgAccess(ctx.db, params.org, caller);
        return paged("keys", listKeys(ctx.db, org.id, { includeRevoked: query.include_revoked === "true" }), query, (k) => k.id, "desc", out);
      },
      {
        session: true,
        params: OrgParams,
        query: ListKeysQuery,
        response: { 200: t.Object({ keys: t.Array(KeyOut), next_cursor: NextCursor }), ...errors },
        detail: { tags: ["API keys"], summary: "List keys, newest first: prefix, scopes, origins, expiry, created and last used (never the secret)", description: PAGING_NOTE },
      },
    )
    .post(
      "/:org/keys",
      ({ caller, params, body, set }) => {
        const org = requireOrgAccess(ctx.db, params.org, caller, { minRole: "admin" });
        const created = createKey(ctx.db, { orgId: org.id, ...keyFields(body), name: body.name, scopes: body.scopes });
        ctx.log.info("api key created", { org: org.slug, key_id: created.id, prefix: created.prefix, by_user_id: (caller as SessionCaller).userId });
        set.status = 201;
        set.headers["cache-control"] = "no-store";
        return { key: out(getKey(ctx.db, org.id, created.id)), secret: created.secret };
      },
      {
        session: true,
        params: OrgParams,
        body: CreateKeyBody,
        transform: rejectUnknownFields(CreateKeyBody),
        response: { 201: CreatedKey, ...errors },
        detail: {
          tags: ["API keys"],
          summary: "Create a key; the secret is in this response only",
          description:
            "Rotation: create a replacement, deploy it, watch last_used_at and usage shift, then DELETE the old key. allowed_origins is best-effort friction (Origin, else Referer, can be forged outside browsers), not an authorization boundary.",
        },
      },
    )
    .patch(
      "/:org/keys/:id",
      ({ caller, params, body }) => {
        const org = requireOrgAccess(ctx.db, params.org, caller, { minRole: "admin" });
        const id = keyId(params.id);
        const updated = updateKey(ctx.db, changes, org.id, id, keyFields(body));
        ctx.log.info("api key updated", { org: org.slug, key_id: id, fields: Object.keys(body), by_user_id: (caller as SessionCaller).userId });
        return out(updated);
      },
      {
        session: true,
        params: KeyParams,
        body: UpdateKeyBody,
        transform: rejectUnknownFields(UpdateKeyBody),
        response: { 200: KeyOut, ...errors },
        detail: { tags: ["API keys"], summary: "Change a key's name, scopes, origins, expiry, rate limit or quota (null clears); effective at once" },
      },
    )
    .delete(
      "/:org/keys/:id",
      ({ caller, params, set }) => {
        const org = requireOrgAccess(ctx.db, params.org, caller, { minRole: "admin" });
        const id = keyId(params.id);
        const revoked = revokeKey(ctx.db, changes, org.id, id);
        if (revoked) ctx.log.info("api key revoked", { org: org.slug, key_id: id, by_user_id: (caller as SessionCaller).userId });
        set.status = 204;
      },
      {
        session: true,
        params: KeyParams,
        response: { 204: t.Void(), ...errors },
        detail: { tags: ["API keys"], summary: "Revoke (delete) a key: it answers 401 UNAUTHORIZED from now on; its usage history stays" },
      },
    )
    .get(
      "/:org/keys/:id/usage",
      ({ caller, params, query }) => {
        const org = requireOrgAccess(ctx.db, params.org, caller);
        const key = getKey(ctx.db, org.id, keyId(params.id));
        const now = Date.now();
        const to = query.to === undefined ? dayOf(now) : day("to", query.to);
        const from = query.from === undefined ? dayOf(Date.parse(`${to}T00:00:00Z`) - 29 * DAY_MS) : day("from", query.from);
        if (from > to) throw new BadRequest(`Invalid query parameter 'from': ${from} is after 'to' ${to}`);
        if ((Date.parse(to) - Date.parse(from)) / DAY_MS >= MAX_USAGE_DAYS) throw new BadRequest(`Invalid query: at most ${MAX_USAGE_DAYS} days per request`);
        auth.usage.flush();
        const days = usageRows(ctx.db, key.id, from, to);
        const used = auth.usage.usedThisMonth(key.id, now);
        return {
          key_id: key.id,
          from,
          to,
          days,
          total: days.reduce((n, d) => n + d.count, 0),
          month: { month: monthOf(now), used, quota: key.monthlyQuota, remaining: key.monthlyQuota === null ? null : Math.max(0, key.monthlyQuota - used) },
        };
      },
      {
        session: true,
        params: KeyParams,
        query: UsageQuery,
        response: { 200: UsageOut, ...errors },
        detail: { tags: ["API keys"], summary: "Billable calls of one key per UTC day and service group, and this month's total against its quota" },
      },
    ));
}
