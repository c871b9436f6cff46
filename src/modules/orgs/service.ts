// Organizations and memberships. Plain TypeScript over Drizzle.
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { memberships, orgs } from "../../db/schema";
import { BadRequest, Conflict } from "../../errors";
import { isSlug } from "./slug";
import type { Role } from "../auth/service";

export interface OrgRecord {
  id: number;
  slug: string;
  name: string;
  createdAt: number;
}

export function createOrg(db: Db, input: { slug: string; name?: string; ownerUserId?: number }): OrgRecord {
  if (!isSlug(input.slug)) throw new BadRequest(`Invalid slug '${input.slug}': use 1-63 lowercase letters, digits and inner hyphens`);
  return db.transaction((tx) => {
    if (tx.select({ id: orgs.id }).from(orgs).where(eq(orgs.slug, input.slug)).get()) throw new Conflict(`Organization '${input.slug}' already exists`);
    const org = tx.insert(orgs).values({ slug: input.slug, name: input.name?.trim() || input.slug }).returning().get();
    if (input.ownerUserId !== undefined) tx.insert(memberships).values({ userId: input.ownerUserId, orgId: org.id, role: "owner" }).run();
    return org;
  });
}

export function orgBySlug(db: Db, slug: string): OrgRecord | undefined {
  return db.select().from(orgs).where(eq(orgs.slug, slug)).get();
}

export function addMember(db: Db, orgId: number, userId: number, role: Role): void {
  db.insert(memberships).values({ orgId, userId, role }).onConflictDoUpdate({ target: [memberships.userId, memberships.orgId], set: { role } }).run();
}
