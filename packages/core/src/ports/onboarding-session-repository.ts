import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { AuditEvent } from '../domain/audit/audit-event.js'
import type { AlreadyExists, ConcurrentUpdate, StoreUnavailable } from '../domain/foundations/errors.js'
import type { OnboardingSession } from '../domain/onboarding/onboarding-session.js'
import type { OnboardingStatus } from '../domain/onboarding/onboarding-state.js'
import type { PageRequest } from '../domain/foundations/pagination.js'
import type { Party } from '../domain/onboarding/party.js'
import type { PartyReady } from '../domain/webhooks/webhook-event.js'
import type { ClientId, SessionId } from '../domain/foundations/ids.js'

/** Sessions with contacts, profile and addresses; partner reads are scoped to the owning client. */
export type OnboardingSessionRepository = {
  /** `AlreadyExists` if the id is taken. */
  readonly insert: (session: OnboardingSession) => TE.TaskEither<StoreUnavailable | AlreadyExists, void>
  /** None when missing or another client's. */
  readonly findForClient: (clientId: ClientId, id: SessionId) => TE.TaskEither<StoreUnavailable, O.Option<OnboardingSession>>
  /** Writes the whole session if the stored version is still `session.version`, else `ConcurrentUpdate`; `audit` in the same transaction. */
  readonly save: (session: OnboardingSession, audit: AuditEvent | null) => TE.TaskEither<StoreUnavailable | ConcurrentUpdate, OnboardingSession>
  /** Like `save`, also storing `party`, logging `ready` and queueing it for the session's endpoint, all in one transaction (approval). */
  readonly saveApproved: (
    session: OnboardingSession,
    party: Party,
    ready: PartyReady,
    audit: AuditEvent,
  ) => TE.TaskEither<StoreUnavailable | ConcurrentUpdate, OnboardingSession>
  /** Any client's session: internal review only. */
  readonly findById: (id: SessionId) => TE.TaskEither<StoreUnavailable, O.Option<OnboardingSession>>
  /** Every client's, optionally of one status: internal review. */
  readonly list: (status: OnboardingStatus | undefined, page: PageRequest) => TE.TaskEither<StoreUnavailable, readonly OnboardingSession[]>
}
