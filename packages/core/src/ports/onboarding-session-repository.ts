import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { AuditEvent } from '../domain/audit/audit-event.js'
import type { AlreadyExists, ConcurrentUpdate, StoreUnavailable } from '../domain/foundations/errors.js'
import type { OnboardingSession } from '../domain/onboarding/onboarding-session.js'
import type { OnboardingStatus } from '../domain/onboarding/onboarding-state.js'
import type { PageRequest } from '../domain/foundations/pagination.js'
import type { Party } from '../domain/onboarding/party.js'
import type { WebhookEvent } from '../domain/webhooks/webhook-event.js'
import type { ClientId, SessionId } from '../domain/foundations/ids.js'

/**
 * Stores onboarding sessions with their contacts, profile and addresses. Partner reads are scoped
 * to the owning API client (`findForClient`); `findById` and `list` are for internal review.
 */
export type OnboardingSessionRepository = {
  /** `AlreadyExists` when a session with the same id is stored already. */
  readonly insert: (session: OnboardingSession) => TE.TaskEither<StoreUnavailable | AlreadyExists, void>
  /** The session `id` if it belongs to `clientId`; none otherwise (missing or another client's). */
  readonly findForClient: (clientId: ClientId, id: SessionId) => TE.TaskEither<StoreUnavailable, O.Option<OnboardingSession>>
  /**
   * Writes the whole session (row and addresses) in one transaction, if the stored version is
   * still `session.version`; returns it with the version bumped. `ConcurrentUpdate` otherwise,
   * and nothing is written. `audit` is written in the same transaction; null only for a change
   * that is not an audited action (a partner's own edit; decision 45).
   */
  readonly save: (session: OnboardingSession, audit: AuditEvent | null) => TE.TaskEither<StoreUnavailable | ConcurrentUpdate, OnboardingSession>
  /**
   * Like `save`, and in the same transaction stores `party` with its addresses and queues
   * `event` in the outbox and `audit` (the approval). Nothing is written without the rest.
   */
  readonly saveApproved: (
    session: OnboardingSession,
    party: Party,
    event: WebhookEvent,
    audit: AuditEvent,
  ) => TE.TaskEither<StoreUnavailable | ConcurrentUpdate, OnboardingSession>
  /** Any client's session: for internal review only. */
  readonly findById: (id: SessionId) => TE.TaskEither<StoreUnavailable, O.Option<OnboardingSession>>
  /** Sessions of every client, optionally of one status, in `(createdAt, id)` order; at most `page.limit + 1`. For internal review. */
  readonly list: (status: OnboardingStatus | undefined, page: PageRequest) => TE.TaskEither<StoreUnavailable, readonly OnboardingSession[]>
}
