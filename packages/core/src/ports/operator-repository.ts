import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { AuditEvent } from '../domain/audit/audit-event.js'
import type { AlreadyExists, StoreUnavailable } from '../domain/foundations/errors.js'
import type { OperatorId, OperatorSessionId } from '../domain/foundations/ids.js'
import type { Operator, OperatorRole, OperatorSession } from '../domain/operators/operator.js'

/**
 * An operator with its password's hash (`OperatorSecrets.hashPassword`), which only sign-in reads;
 * null for an operator that signs in some other way (single sign-on, later): no password matches.
 */
export type OperatorCredentials = { readonly operator: Operator; readonly passwordHash: string | null }

/** An operator as changed, and how many of its sessions the change ended. */
export type ChangedOperator = { readonly operator: Operator; readonly sessionsRevoked: number }

/** What `OperatorRepository.change` changes: a new password (its hash), a new role, or a disabled operator enabled again. */
export type OperatorChange = { readonly passwordHash: string } | { readonly role: OperatorRole } | { readonly enabled: true }

/** A session as stored: the hash of its token, never the token. */
export type StoredOperatorSession = OperatorSession & { readonly tokenHash: string }

/** A live session and the enabled operator it acts for. */
export type SessionOperator = { readonly session: OperatorSession; readonly operator: Operator }

/**
 * Stores named operators and their console sessions (decision 149), shared by both worlds; their
 * audit events go to the live world's log, in the change's own transaction. Reads return none for
 * a missing row.
 */
export type OperatorRepository = {
  /** Adds `credentials`' operator; `AlreadyExists` when its e-mail is taken, disabled or not. */
  readonly add: (credentials: OperatorCredentials, audit: AuditEvent) => TE.TaskEither<StoreUnavailable | AlreadyExists, Operator>
  /** By e-mail, enabled or not. */
  readonly credentialsOf: (email: string) => TE.TaskEither<StoreUnavailable, O.Option<OperatorCredentials>>
  /** By e-mail, enabled or not. */
  readonly findByEmail: (email: string) => TE.TaskEither<StoreUnavailable, O.Option<Operator>>
  /** Every operator, by e-mail. */
  readonly list: () => TE.TaskEither<StoreUnavailable, readonly Operator[]>
  /**
   * Disables an operator and revokes its live sessions, keeping a first `disabledAt`; the event
   * (given how many sessions ended) is written only when this call disabled it.
   */
  readonly disable: (id: OperatorId, at: Date, audit: (disabled: Operator, sessions: number) => AuditEvent) => TE.TaskEither<StoreUnavailable, O.Option<Operator>>
  /**
   * Changes an operator: a new password also revokes its live sessions. The event (given the
   * operator before and after, and how many sessions ended) is written only when something
   * changed: a new password always, a role only when it differs, enabling only a disabled one.
   */
  readonly change: (
    id: OperatorId,
    change: OperatorChange,
    at: Date,
    audit: (before: Operator, after: Operator, sessions: number) => AuditEvent,
  ) => TE.TaskEither<StoreUnavailable, O.Option<ChangedOperator>>
  /** Revokes every live session of an operator at `at`, with the event given how many ended; the count. */
  readonly revokeSessions: (id: OperatorId, at: Date, audit: (sessions: number) => AuditEvent) => TE.TaskEither<StoreUnavailable, number>
  /**
   * Opens a session, with the sign-in's event, if its operator is still enabled: false, writing
   * nothing, when it was disabled meanwhile. A disabling or a revocation running at the same time
   * either ends it or comes after it.
   */
  readonly openSession: (session: StoredOperatorSession, audit: AuditEvent) => TE.TaskEither<StoreUnavailable, boolean>
  /** The session whose token hashes to `tokenHash`, if live at `at` and its operator enabled. */
  readonly liveSession: (tokenHash: string, at: Date) => TE.TaskEither<StoreUnavailable, O.Option<SessionOperator>>
  /** Revokes one session (signing out), keeping a first `revokedAt`; the event is written only when this call revoked it. */
  readonly revokeSession: (id: OperatorSessionId, at: Date, audit: AuditEvent) => TE.TaskEither<StoreUnavailable, void>
}
