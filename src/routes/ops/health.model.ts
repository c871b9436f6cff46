import { t } from "elysia";

export const ComponentHealth = t.Object({
  status: t.Union([t.Literal("ok"), t.Literal("degraded"), t.Literal("down"), t.Literal("not_configured")]),
  latency_ms: t.Optional(t.Number()),
  backend: t.Optional(t.String({ description: "optional service APIs: which backend answers (opentopodata, embedded or none)" })),
  detail: t.String(),
  fix: t.Optional(t.String({ description: "what to do about a status other than ok (the preflight's fix)" })),
});

export const HealthOk = t.Object({ status: t.Literal("ok") });

export const DetailedHealth = t.Object({
  status: t.Union([t.Literal("ok"), t.Literal("degraded"), t.Literal("down")]),
  version: t.String(),
  uptime_s: t.Number(),
  components: t.Record(t.String(), ComponentHealth, {
    description: "database, storage, jobs, geocoder, elevation, router",
  }),
});
