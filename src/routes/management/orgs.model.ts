import { t } from "elysia";
import { SLUG_PATTERN } from "../../domain/orgs/slug";

/** The one error envelope (src/errors.ts), re-exported for this module's routes. */
export { ErrorEnvelope } from "../../errors";

export const RoleSchema = t.Union([t.Literal("owner"), t.Literal("admin"), t.Literal("member")]);

/** Path parameter; the slug pattern is checked in the service so a malformed slug reads as 404. */
export const OrgParams = t.Object({ org: t.String({ maxLength: 200, description: "organization slug" }) });

export const Org = t.Object({
  slug: t.String(),
  name: t.String(),
  created_at: t.String({ format: "date-time" }),
  role: t.Union([RoleSchema, t.Null()], { description: "your role; instance admins who are not members see null" }),
});

export const CreateOrgBody = t.Object(
  {
    slug: t.String({ maxLength: 200, description: `URL name, pattern ${SLUG_PATTERN}` }),
    name: t.Optional(t.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);

export const Member = t.Object({ user_id: t.Integer(), email: t.String(), role: RoleSchema, since: t.String({ format: "date-time" }) });

export const AddMemberBody = t.Object(
  { email: t.String({ minLength: 3, maxLength: 320, description: "an existing user account" }), role: RoleSchema },
  { additionalProperties: false },
);

export const MemberParams = t.Object({ org: t.String({ maxLength: 200 }), user: t.String({ maxLength: 20, description: "user id" }) });
