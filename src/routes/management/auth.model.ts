import { t } from "elysia";
import { MAX_PASSWORD } from "../../domain/accounts/users";

export const Email = t.String({ minLength: 3, maxLength: 320, description: "email address (case-insensitive)" });
// A login password is only bounded (2 UTF-16 units per character at most): the rule is checked when one is set.
export const Password = t.String({ minLength: 1, maxLength: 2 * MAX_PASSWORD });
/** A new password: checkPassword applies the rule, so every breach gets the same message naming it. */
export const NewPassword = t.String({ description: "10 to 1024 characters, counted as Unicode code points (an emoji is one), not only whitespace" });

export const LoginBody = t.Object({ email: Email, password: Password }, { additionalProperties: false });

export const SetupBody = t.Object(
  {
    token: t.String({ minLength: 1, maxLength: 256, description: "the one-time setup token printed at first start" }),
    email: Email,
    password: NewPassword,
  },
  { additionalProperties: false },
);

export const UserOut = t.Object({ id: t.Integer(), email: t.String(), is_admin: t.Boolean() });

export const SessionInfo = t.Object({
  user: UserOut,
  csrf_token: t.String({ description: "send as X-CSRF-Token with session-authenticated POST/PUT/PATCH/DELETE (or send a same-origin Origin header)" }),
  expires_at: t.String({ format: "date-time", description: "absolute end of the session" }),
  idle_timeout_s: t.Integer({ description: "the session ends after this long without a request" }),
  orgs: t.Array(t.Object({ slug: t.String(), name: t.String(), role: t.Union([t.Literal("owner"), t.Literal("admin"), t.Literal("member")]) })),
});

export const UserListItem = t.Object({
  id: t.Integer(),
  email: t.String(),
  is_admin: t.Boolean(),
  disabled: t.Boolean({ description: "a disabled account cannot sign in and has no sessions" }),
  disabled_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
  created_at: t.String({ format: "date-time" }),
});

/** Path parameter; checked in the handler so a malformed id is a 400 naming it. */
export const UserParams = t.Object({ id: t.String({ maxLength: 20, description: "user id" }) });

export const UpdateUserBody = t.Object(
  {
    disabled: t.Optional(t.Boolean({ description: "true: the account cannot sign in and its sessions end at once; false: it can sign in again" })),
    is_admin: t.Optional(t.Boolean({ description: "grant or revoke instance admin; at least one instance admin who can sign in always stays" })),
    password: t.Optional(t.String({ description: "a new password (10 to 1024 characters, not only whitespace); the account's sessions end, except yours when it is your own" })),
  },
  { additionalProperties: false },
);

export const UpdatedUser = t.Object({
  user: UserListItem,
  sessions_ended: t.Integer({ description: "sessions this change ended (disabling, a new password)" }),
});

export const EndedSessions = t.Object({ sessions_ended: t.Integer() });

export const CreateUserBody = t.Object(
  { email: Email, password: NewPassword, is_admin: t.Optional(t.Boolean({ default: false })) },
  { additionalProperties: false },
);
