// Organizations and memberships. Plain TypeScript over Drizzle.
import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { memberships, orgs, users } from "../../db/schema";
import { AppError, BadRequest, Conflict, Forbidden, NotFound } from "../../errors";
import { isSlug } from "./slug";
import { ROLE_RANK, type Caller, type Role } from "../accounts/auth";
import type { Scope } from "../keys/scopes";

export interface OrgRecord {
  id: number;
  slug: string;
  name: string;
  createdAt: number;
}

const MAX_NAME = 200;

function cleanName(name: string | undefined, fallback: string): string {
  const n = (name ?? "").trim();
  if (n.length > MAX_NAME) throw new BadRequest(`Organization name must be at most ${MAX_NAME} characters`);
  if (/[\u0000-\u001f\u007f]/.test(n)) throw new BadRequest("Organization name must not contain control characters");
  return n || fallback;
}

export function createOrg(db: Db, input: { slug: string; name?: string; ownerUserId?: number }): OrgRecord {
  if (!isSlug(input.slug)) throw new BadRequest(`Invalid slug '${String(input.slug).slice(0, 100)}': use 1-63 lowercase letters, digits and inner hyphens`);
  const name = cleanName(input.name, input.slug);
  try {
    return db.transaction((tx) => {
      if (tx.select({ id: orgs.id }).from(orgs).where(eq(orgs.slug, input.slug)).get()) throw new Conflict(`Organization '${input.slug}' already exists`);
      const org = tx.insert(orgs).values({ slug: input.slug, name }).returning().get();
      if (input.ownerUserId !== undefined) tx.insert(memberships).values({ userId: input.ownerUserId, orgId: org.id, role: "owner" }).run();
      return org;
    });
  } catch (err) {
    if (!(err instanceof AppError) && String((err as Error)?.message).includes("UNIQUE constraint failed")) throw new Conflict(`Organization '${input.slug}' already exists`);
    throw err;
  }
}

export function orgBySlug(db: Db, slug: string): OrgRecord | undefined {
  if (!isSlug(slug)) return undefined;
  return db.select().from(orgs).where(eq(orgs.slug, slug)).get();
}

export function listOrgs(db: Db): OrgRecord[] {
  return db.select().from(orgs).orderBy(asc(orgs.slug)).all();
}

export function addMember(db: Db, orgId: number, userId: number, role: Role): void {
  db.insert(memberships).values({ orgId, userId, role }).onConflictDoUpdate({ target: [memberships.userId, memberships.orgId], set: { role } }).run();
}

export function listMembers(db: Db, orgId: number) {
  return db
    .select({ userId: users.id, email: users.email, role: memberships.role, createdAt: memberships.createdAt })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.orgId, orgId))
    .orderBy(asc(users.email))
    .all();
}

export function memberRole(db: Db, orgId: number, userId: number): Role | undefined {
  return db.select({ role: memberships.role }).from(memberships).where(and(eq(memberships.orgId, orgId), eq(memberships.userId, userId))).get()?.role;
}

function ownerCount(db: Db, orgId: number): number {
  return db.select({ n: sql<number>`count(*)` }).from(memberships).where(and(eq(memberships.orgId, orgId), eq(memberships.role, "owner"))).get()!.n;
}

/**
 * Adds a member or changes a role. `actor` is the role of whoever asks (null for the CLI and instance
 * admins): only owners grant or take away the owner role, and the last owner stays.
 */
export function setMember(db: Db, orgId: number, userId: number, role: Role, actor: Role | null): "added" | "updated" {
  return db.transaction((tx) => {
    const current = memberRole(tx as unknown as Db, orgId, userId);
    if (actor !== null && actor !== "owner" && (role === "owner" || current === "owner")) throw new Forbidden("Only an owner can grant or change the owner role");
    if (current === "owner" && role !== "owner" && ownerCount(tx as unknown as Db, orgId) <= 1)
      throw new Conflict("This is the last owner of the organization; make someone else owner first");
    addMember(tx as unknown as Db, orgId, userId, role);
    return current ? "updated" : "added";
  });
}

export function removeMember(db: Db, orgId: number, userId: number, actor: Role | null): void {
  db.transaction((tx) => {
    const current = memberRole(tx as unknown as Db, orgId, userId);
    if (!current) throw new NotFound("That user is not a member of this organization");
    if (current === "owner" && actor !== null && actor !== "owner") throw new Forbidden("Only an owner can remove an owner");
    if (current === "owner" && ownerCount(tx as unknown as Db, orgId) <= 1) throw new Conflict("This is the last owner of the organization; make someone else owner first");
    tx.delete(memberships).where(and(eq(memberships.orgId, orgId), eq(memberships.userId, userId))).run();
  });
}

export interface OrgAccessOptions {
  /** least membership role a session needs (default member); instance admins always pass */
  minRole?: Role;
  /** a key of this organization with this scope is accepted too; without it keys are refused */
  keyScope?: Scope;
}

/**
 * The organization `slug` when `caller` may act in it, for management routes under /api/v1/orgs/{org}.
 * Unknown or malformed slug: 404 NOT_FOUND. Not a member, too small a role, or a key of another
 * organization: 403 FORBIDDEN. Returns the org and the caller's effective role ("key" for keys).
 */
export function requireOrgAccess(db: Db, slug: string, caller: Caller, opts: OrgAccessOptions = {}): OrgRecord & { role: Role | "key" } {
  const org = orgBySlug(db, slug);
  if (!org) throw new NotFound(`Organization '${String(slug).slice(0, 100)}' not found`);
  if (caller.kind === "key") {
    if (!opts.keyScope) throw new Forbidden("API keys cannot do this; use a console session or the mapstead CLI");
    if (caller.orgId !== org.id) throw new Forbidden("This API key belongs to another organization");
    if (!caller.scopes.includes(opts.keyScope)) throw new AppError(403, "INSUFFICIENT_SCOPE", `This API key lacks the '${opts.keyScope}' scope`);
    return { ...org, role: "key" };
  }
  const role = caller.memberships.get(org.id) ?? (caller.isAdmin ? "owner" : undefined);
  if (!role && !caller.isAdmin) throw new Forbidden(`You are not a member of organization '${org.slug}'`);
  const effective: Role = caller.isAdmin ? "owner" : role!;
  if (ROLE_RANK[effective] < ROLE_RANK[opts.minRole ?? "member"]) throw new Forbidden(`This needs the ${opts.minRole} role in '${org.slug}' (you are ${effective})`);
  return { ...org, role: effective };
}
