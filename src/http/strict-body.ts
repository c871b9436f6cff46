// Elysia strips unknown body fields before validation; for security-relevant bodies that would turn a
// typo (`allowed_origin`) into a silently unrestricted key. This transform hook refuses them instead.
import { BadRequest } from "../errors";

export function rejectUnknownFields(schema: { properties: Record<string, unknown> }) {
  const known = new Set(Object.keys(schema.properties));
  return ({ body }: { body: unknown }) => {
    if (!body || typeof body !== "object" || Array.isArray(body)) return;
    const unknown = Object.keys(body).filter((k) => !known.has(k));
    if (unknown.length)
      throw new BadRequest(`Unknown body field(s): ${unknown.slice(0, 5).map((k) => `'${k.slice(0, 40)}'`).join(", ")}; expected ${[...known].join(", ")}`);
  };
}
