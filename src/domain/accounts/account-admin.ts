// What an instance admin (over the API) or the operator on the machine (the CLI) does to another user's
// account: disable or enable it, delete it, set a new password, grant or revoke instance admin, end its
// sessions. Every change and the change-bus record that tells the other processes (HTTP workers) to drop
// their cached sessions of that user are written in one transaction; the auth service checks the bus
// before it trusts a cached session, so the next request anywhere sees the change.
//
// Rules, the same for the API and the CLI:
// - At least one instance admin who can sign in (admin and not disabled) always stays: disabling,
//   deleting or demoting the last one is refused (409), so nobody has to go back to the machine.
// - Deleting the last owner of an organization is refused (409, naming the organizations); otherwise the
//   user's memberships and sessions go with the account. API keys belong to organizations and stay.
// - Over the API an admin cannot disable or delete their own account (403); another admin or the CLI can.
// - Disabling, a new password and "end sessions" end the user's sessions; for an admin acting on
//   themselves, every session except the one making the request.
// - Each change is logged (who did it, to whom, what), never with a password or a token.
import type { Database } from "bun:sqlite";
import type { Logger } from "../../log";
import type { ChangePublisher } from "../changes/types";
import { BadRequest, Conflict, Forbidden, NotFound } from "../../errors";
import { checkPassword, hashPassword } from "./users";

/** Who acts: an instance admin's console session, or the operator running the CLI on the machine. */
export type Actor =
  | { kind: "session"; userId: number; email: string; sessionId: number; requestId?: string }
  | { kind: "cli"; osUser: string };

export interface AccountAdminDeps {
  sqlite: Database;
  changes: ChangePublisher;
  log: Logger;
}

export interface Account {
  id: number;
  email: string;
  isAdmin: boolean;
  disabledAt: number | null;
  createdAt: number;
}

export interface AccountChanges {
  disabled?: boolean;
  isAdmin?: boolean;
  /** a new password (checked against the password rule) */
  password?: string;
}

interface AccountRow {
  id: number;
  email: string;
  is_admin: number;
  disabled_at: number | null;
  created_at: number;
}

const toAccount = (r: AccountRow): Account => ({ id: r.id, email: r.email, isAdmin: r.is_admin === 1, disabledAt: r.disabled_at, createdAt: r.created_at });

const COLUMNS = "id, email, is_admin, disabled_at, created_at";

export function accountById(sqlite: Database, id: number): Account {
  const row = sqlite.query<AccountRow, [number]>(`SELECT ${COLUMNS} FROM users WHERE id = ?`).get(id);
  if (!row) throw new NotFound(`No user account with id ${id}`);
  return toAccount(row);
}

export function accountByEmail(sqlite: Database, email: string): Account {
  const normalized = email.trim().toLowerCase();
  const row = sqlite.query<AccountRow, [string]>(`SELECT ${COLUMNS} FROM users WHERE email = ?`).get(normalized);
  if (!row) throw new NotFound(`No user account with email ${normalized.slice(0, 320)}`);
  return toAccount(row);
}

export function listAccounts(sqlite: Database): Account[] {
  return sqlite.query<AccountRow, []>(`SELECT ${COLUMNS} FROM users ORDER BY id`).all().map(toAccount);
}

/** Instance admins who can sign in, leaving out `exceptId`. */
function otherActiveAdmins(sqlite: Database, exceptId: number): number {
  return sqlite.query<{ n: number }, [number]>("SELECT COUNT(*) AS n FROM users WHERE is_admin = 1 AND disabled_at IS NULL AND id != ?").get(exceptId)!.n;
}

function refuseLastAdmin(sqlite: Database, account: Account, what: string): void {
  if (account.isAdmin && account.disabledAt === null && otherActiveAdmins(sqlite, account.id) === 0)
    throw new Conflict(`Cannot ${what} ${account.email}: it is the last instance admin who can sign in; make another account instance admin first`);
}

/** Organizations whose only owner is this user (they would be left without one). */
function soleOwnerOrgs(sqlite: Database, userId: number): string[] {
  return sqlite
    .query<{ slug: string }, [number]>(
      `SELECT o.slug FROM memberships m JOIN orgs o ON o.id = m.org_id
       WHERE m.user_id = ? AND m.role = 'owner'
         AND (SELECT COUNT(*) FROM memberships x WHERE x.org_id = m.org_id AND x.role = 'owner') = 1
       ORDER BY o.slug`,
    )
    .all(userId)
    .map((r) => r.slug);
}

/** The session an admin acting on themselves keeps (0 = none: session ids start at 1). */
const keptSession = (actor: Actor, userId: number) => (actor.kind === "session" && actor.userId === userId ? actor.sessionId : 0);

function endSessionsOf(sqlite: Database, userId: number, keep: number): number {
  return sqlite.query<unknown, [number, number]>("DELETE FROM sessions WHERE user_id = ? AND id != ?").run(userId, keep).changes;
}

function logAction(deps: AccountAdminDeps, actor: Actor, message: string, account: Account, extra: Record<string, unknown> = {}): void {
  const by = actor.kind === "session" ? { by_user_id: actor.userId, by_email: actor.email, request_id: actor.requestId } : { by: "cli", os_user: actor.osUser };
  deps.log.info(message, { user_id: account.id, email: account.email, ...extra, ...by });
}

function refuseSelf(actor: Actor, account: Account, verb: string): void {
  if (actor.kind === "session" && actor.userId === account.id)
    throw new Forbidden(`You cannot ${verb} your own account; another instance admin can (or \`mapstead users ${verb}\` on the machine)`);
}

export interface UpdateOutcome {
  account: Account;
  /** sessions ended by this change (disabling or a new password) */
  sessionsEnded: number;
}

/** Applies `changes` together (all or nothing). Changing nothing is allowed and changes nothing. */
export async function updateAccount(deps: AccountAdminDeps, actor: Actor, id: number, changes: AccountChanges): Promise<UpdateOutcome> {
  if (changes.disabled === undefined && changes.isAdmin === undefined && changes.password === undefined)
    throw new BadRequest("Nothing to change: give disabled, is_admin or password");
  const before = accountById(deps.sqlite, id);
  if (changes.disabled === true) refuseSelf(actor, before, "disable");
  // The slow hash is made before the transaction, which must stay synchronous.
  let passwordHash: string | undefined;
  if (changes.password !== undefined) {
    checkPassword(changes.password);
    passwordHash = await hashPassword(changes.password);
  }
  const { sqlite } = deps;
  // IMMEDIATE: the last-admin check and the write hold the write lock together, so two admins demoting
  // each other at once (in two workers) cannot leave none.
  const outcome = sqlite
    .transaction(() => {
      const current = accountById(sqlite, id);
      const disable = changes.disabled === true && current.disabledAt === null;
      const enable = changes.disabled === false && current.disabledAt !== null;
      const grant = changes.isAdmin === true && !current.isAdmin;
      const revoke = changes.isAdmin === false && current.isAdmin;
      if (disable) refuseLastAdmin(sqlite, current, "disable");
      if (revoke) refuseLastAdmin(sqlite, current, "revoke instance admin from");
      const now = Date.now();
      if (disable || enable) sqlite.query("UPDATE users SET disabled_at = ? WHERE id = ?").run(disable ? now : null, id);
      if (grant || revoke) sqlite.query("UPDATE users SET is_admin = ? WHERE id = ?").run(grant ? 1 : 0, id);
      if (passwordHash !== undefined) sqlite.query("UPDATE users SET password_hash = ? WHERE id = ?").run(passwordHash, id);
      // A disabled account keeps no session at all; a new password ends every other session.
      const sessionsEnded = disable || passwordHash !== undefined ? endSessionsOf(sqlite, id, disable ? 0 : keptSession(actor, id)) : 0;
      const actions = { disable, enable, grant, revoke, password: passwordHash !== undefined };
      if (Object.values(actions).some(Boolean)) deps.changes.publish({ kind: "user", userId: id });
      return { account: accountById(sqlite, id), sessionsEnded, actions };
    })
    .immediate();
  const { account, sessionsEnded, actions } = outcome;
  if (actions.disable) logAction(deps, actor, "user disabled", account, { sessions_ended: sessionsEnded });
  if (actions.enable) logAction(deps, actor, "user enabled", account);
  if (actions.grant) logAction(deps, actor, "user granted instance admin", account);
  if (actions.revoke) logAction(deps, actor, "user's instance admin revoked", account);
  if (actions.password) logAction(deps, actor, "user password set", account, { sessions_ended: sessionsEnded });
  return { account, sessionsEnded };
}

/** Deletes the account, its memberships and its sessions. */
export function deleteAccount(deps: AccountAdminDeps, actor: Actor, id: number): Account {
  const { sqlite } = deps;
  const deleted = sqlite
    .transaction(() => {
      const account = accountById(sqlite, id);
      refuseSelf(actor, account, "delete");
      refuseLastAdmin(sqlite, account, "delete");
      const orgs = soleOwnerOrgs(sqlite, id);
      if (orgs.length)
        throw new Conflict(
          `Cannot delete ${account.email}: it is the only owner of ${orgs.length === 1 ? "organization" : "organizations"} ${orgs.join(", ")}; make someone else owner there first`,
        );
      // Memberships and sessions go with the row (ON DELETE CASCADE).
      sqlite.query("DELETE FROM users WHERE id = ?").run(id);
      deps.changes.publish({ kind: "user", userId: id });
      return account;
    })
    .immediate();
  logAction(deps, actor, "user deleted", deleted);
  return deleted;
}

/** Ends the user's sessions (an admin's own: all but the current one); returns how many ended. */
export function endAccountSessions(deps: AccountAdminDeps, actor: Actor, id: number): { account: Account; ended: number } {
  const { sqlite } = deps;
  const result = sqlite
    .transaction(() => {
      const account = accountById(sqlite, id);
      const ended = endSessionsOf(sqlite, id, keptSession(actor, id));
      deps.changes.publish({ kind: "user", userId: id });
      return { account, ended };
    })
    .immediate();
  logAction(deps, actor, "user sessions ended", result.account, { sessions_ended: result.ended });
  return result;
}
