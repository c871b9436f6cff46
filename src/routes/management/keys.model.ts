import { t } from "elysia";
import { SCOPES } from "../../domain/keys/scopes";
import { MAX_KEY_NAME, MAX_MONTHLY_QUOTA, MAX_RATE_LIMIT } from "../../domain/keys/service";
import { PageQuery } from "./page.model";

const ScopeList = t.Array(t.String({ maxLength: 64 }), { maxItems: 20, description: `one or more of ${SCOPES.join(", ")}` });
const Origins = t.Array(t.String({ maxLength: 300 }), {
  maxItems: 50,
  description: "browser origins allowed to use the key: exact (https://app.example.com) or wildcard (https://*.example.com); empty = any",
});
const Expiry = t.Union([t.String({ maxLength: 64 }), t.Null()], { description: "ISO 8601 date or date-time (UTC when no zone); null = never" });
const RateLimit = t.Union([t.Integer({ minimum: 1, maximum: MAX_RATE_LIMIT }), t.Null()], { description: "requests per minute per service group; null = RATE_LIMIT_PER_MINUTE" });
const Quota = t.Union([t.Integer({ minimum: 1, maximum: MAX_MONTHLY_QUOTA }), t.Null()], { description: "billable calls per UTC calendar month; null = unlimited" });

export const CreateKeyBody = t.Object(
  {
    name: t.String({ maxLength: MAX_KEY_NAME, description: "the app or environment using the key" }),
    scopes: ScopeList,
    allowed_origins: t.Optional(Origins),
    expires_at: t.Optional(Expiry),
    rate_limit_per_minute: t.Optional(RateLimit),
    monthly_quota: t.Optional(Quota),
  },
  { additionalProperties: false },
);

export const UpdateKeyBody = t.Object(
  {
    name: t.Optional(t.String({ maxLength: MAX_KEY_NAME })),
    scopes: t.Optional(ScopeList),
    allowed_origins: t.Optional(Origins),
    expires_at: t.Optional(Expiry),
    rate_limit_per_minute: t.Optional(RateLimit),
    monthly_quota: t.Optional(Quota),
  },
  { additionalProperties: false },
);

export const KeyOut = t.Object({
  id: t.Integer(),
  name: t.String(),
  prefix: t.String({ description: "first characters of the secret, to tell keys apart" }),
  scopes: t.Array(t.String()),
  allowed_origins: t.Array(t.String()),
  expires_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
  rate_limit_per_minute: t.Union([t.Integer(), t.Null()]),
  monthly_quota: t.Union([t.Integer(), t.Null()]),
  created_at: t.String({ format: "date-time" }),
  last_used_at: t.Union([t.String({ format: "date-time" }), t.Null()], { description: "updated at most once a minute" }),
  revoked_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
  status: t.Union([t.Literal("active"), t.Literal("expired"), t.Literal("revoked")]),
});

export const CreatedKey = t.Object({
  key: KeyOut,
  secret: t.String({ description: "the key value for the X-API-Key header; shown only in this response" }),
});

export const KeyParams = t.Object({ org: t.String({ maxLength: 200 }), id: t.String({ maxLength: 20, description: "key id" }) });

export const ListKeysQuery = t.Object({
  include_revoked: t.Optional(t.Union([t.Literal("true"), t.Literal("false")], { description: "also list revoked keys" })),
  ...PageQuery,
});

export const UsageQuery = t.Object({
  from: t.Optional(t.String({ maxLength: 10, description: "first UTC day, YYYY-MM-DD (default 30 days ago)" })),
  to: t.Optional(t.String({ maxLength: 10, description: "last UTC day, YYYY-MM-DD (default today)" })),
});

export const UsageOut = t.Object({
  key_id: t.Integer(),
  from: t.String(),
  to: t.String(),
  days: t.Array(t.Object({ day: t.String(), service: t.String(), count: t.Integer() })),
  total: t.Integer(),
  month: t.Object({
    month: t.String({ description: "current UTC month, YYYY-MM" }),
    used: t.Integer(),
    quota: t.Union([t.Integer(), t.Null()]),
    remaining: t.Union([t.Integer(), t.Null()]),
  }),
});
