import { t } from "elysia";

export const PreflightReport = t.Object({
  ok: t.Boolean({ description: "true when no check failed" }),
  checks: t.Array(
    t.Object({
      id: t.String(),
      status: t.Union([t.Literal("pass"), t.Literal("warn"), t.Literal("fail")]),
      message: t.String(),
      fix: t.String({ description: "what a person should do; empty when the check passed" }),
    }),
  ),
});
