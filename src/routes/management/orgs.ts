// Organizations and their members (console sessions only: keys never manage organizations).
//   GET/POST /api/v1/orgs, GET /api/v1/orgs/{org}, GET/POST /api/v1/orgs/{org}/members,
//   DELETE /api/v1/orgs/{org}/members/{user}
import { Elysia, t } from "elysia";
import type { Services } from "../../services";
import { BadRequest, NotFound } from "../../errors";
import type { AuthPlugin } from "../../http/auth";
import { type SessionCaller } from "../../http/auth";
import type { Role } from "../../domain/accounts/auth";
import { userByEmail } from "../../domain/accounts/users";
import { rejectUnknownFields } from "../../http/strict-body";
import { createOrg, listMembers, listOrgs, removeMember, requireOrgAccess, setMember } from "../../domain/orgs/service";
import { AddMemberBody, CreateOrgBody, ErrorEnvelope, Member, MemberParams, Org, OrgParams } from "./orgs.model";
import { withRouteFacts } from "../../http/route-facts";
import { NextCursor, PageQuery, PAGING_NOTE, paged } from "./page.model";

const iso = (t: number) => new Date(t).toISOString();

export function orgsModule(services: Services, authPlugin: AuthPlugin) {
  const { ctx, changes } = services;
  const errors = { 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 404: ErrorEnvelope, 409: ErrorEnvelope };

  const orgOut = (o: { slug: string; name: string; createdAt: number }, role: Role | null) => ({ slug: o.slug, name: o.name, created_at: iso(o.createdAt), role });
  /** The caller's own role (null for an admin who is not a member), for the API's answers. */
  const ownRole = (s: SessionCaller, orgId: number): Role | null => s.memberships.get(orgId) ?? null;

  return withRouteFacts({ cors: "none", group: "management" }, new Elysia({ name: "orgs", prefix: "/api/v1/orgs" })
    .use(authPlugin)
    .get(
      "",
      ({ caller, query }) => {
        const s = caller as SessionCaller;
        const orgs = listOrgs(ctx.db).filter((o) => s.isAdmin || s.memberships.has(o.id));
        return paged("orgs", orgs, query, (o) => o.slug, "asc", (o) => orgOut(o, ownRole(s, o.id)));
      },
      {
        session: true,
        query: t.Object(PageQuery),
        response: { 200: t.Object({ orgs: t.Array(Org), next_cursor: NextCursor }), 400: ErrorEnvelope, 401: ErrorEnvelope },
        detail: { tags: ["Organizations"], summary: "Organizations you belong to (instance admins: all), by slug", description: PAGING_NOTE },
      },
    )
    .post(
      "",
      ({ caller, body, set }) => {
        const s = caller as SessionCaller;
        const org = changes.commit({ kind: "user", userId: s.userId }, () => createOrg(ctx.db, { slug: body.slug, name: body.name, ownerUserId: s.userId }));
        ctx.log.info("organization created", { org: org.slug, by_user_id: s.userId });
        set.status = 201;
        return orgOut(org, "owner");
      },
      { session: true, body: CreateOrgBody, transform: rejectUnknownFields(CreateOrgBody), response: { 201: Org, ...errors }, detail: { tags: ["Organizations"], summary: "Create an organization; you become its owner" } },
    )
    .get(
      "/:org",
      ({ caller, params }) => {
        const org = requireOrgAccess(ctx.db, params.org, caller);
        return orgOut(org, ownRole(caller as SessionCaller, org.id));
      },
      { session: true, params: OrgParams, response: { 200: Org, ...errors }, detail: { tags: ["Organizations"], summary: "One organization" } },
    )
    .get(
      "/:org/members",
      ({ caller, params }) => {
        const org = requireOrgAccess(ctx.db, params.org, caller);
        return { members: listMembers(ctx.db, org.id).map((m) => ({ user_id: m.userId, email: m.email, role: m.role, since: iso(m.createdAt) })) };
      },
      { session: true, params: OrgParams, response: { 200: t.Object({ members: t.Array(Member) }), ...errors }, detail: { tags: ["Organizations"], summary: "Members and their roles" } },
    )
    .post(
      "/:org/members",
      ({ caller, params, body, set }) => {
        const s = caller as SessionCaller;
        const org = requireOrgAccess(ctx.db, params.org, caller, { minRole: "admin" });
        const user = userByEmail(ctx.db, body.email);
        if (!user) throw new NotFound(`No user account with email ${body.email.trim().toLowerCase().slice(0, 320)}; an instance admin creates it first (POST /api/v1/users or mapstead users create)`);
        const outcome = changes.commit({ kind: "user", userId: user.id }, () => setMember(ctx.db, org.id, user.id, body.role, s.isAdmin ? null : (org.role as Role)));
        ctx.log.info("member set", { org: org.slug, user_id: user.id, role: body.role, by_user_id: s.userId });
        set.status = outcome === "added" ? 201 : 200;
        const m = listMembers(ctx.db, org.id).find((x) => x.userId === user.id)!;
        return { user_id: m.userId, email: m.email, role: m.role, since: iso(m.createdAt) };
      },
      {
        session: true,
        params: OrgParams,
        body: AddMemberBody,
        transform: rejectUnknownFields(AddMemberBody),
        response: { 200: Member, 201: Member, ...errors },
        detail: { tags: ["Organizations"], summary: "Add a member or change a role (owners and admins; only owners grant owner)" },
      },
    )
    .delete(
      "/:org/members/:user",
      ({ caller, params, set }) => {
        const s = caller as SessionCaller;
        const org = requireOrgAccess(ctx.db, params.org, caller);
        const userId = /^\d{1,15}$/.test(params.user) ? Number(params.user) : NaN;
        if (!Number.isSafeInteger(userId)) throw new BadRequest(`Invalid path parameter 'user': expected a user id, got '${params.user}'`);
        // Anyone may leave; removing someone else takes the admin role.
        if (userId !== s.userId) requireOrgAccess(ctx.db, params.org, caller, { minRole: "admin" });
        changes.commit({ kind: "user", userId }, () => removeMember(ctx.db, org.id, userId, s.isAdmin || userId === s.userId ? null : (org.role as Role)));
        ctx.log.info("member removed", { org: org.slug, user_id: userId, by_user_id: s.userId });
        set.status = 204;
      },
      {
        session: true,
        params: MemberParams,
        response: { 204: t.Void(), ...errors },
        detail: { tags: ["Organizations"], summary: "Remove a member (owners and admins; anyone may leave; the last owner stays)" },
      },
    ));
}
