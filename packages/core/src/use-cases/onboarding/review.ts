import type * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Caller } from '../../domain/keys/api-key.js'
import { NOT_AUDITED, OPERATOR_CONTEXT, sessionApprovedEvent, sessionRejectedEvent, type AuditContext } from '../../domain/audit/audit-event.js'
import { boundedString, decode, oneOf, strictObject } from '../../domain/foundations/codecs.js'
import { notFound, type ConcurrentUpdate, type InvalidRequest, type NotFound, type StoreUnavailable } from '../../domain/foundations/errors.js'
import { sessionRequirements, type Contact, type OnboardingSession } from '../../domain/onboarding/onboarding-session.js'
import { ONBOARDING_STATUSES } from '../../domain/onboarding/onboarding-state.js'
import type { InvalidState } from '../../domain/foundations/errors.js'
import { transition, type Requirement } from '../../domain/onboarding/onboarding-state.js'
import { decodeFilteredPageRequest, decodePageRequest, pageOf, queryFilters, type Page } from '../../domain/foundations/pagination.js'
import { partyFromSession, type Party } from '../../domain/onboarding/party.js'
import { addressView, applicantProfileView, partyView } from '../../views/onboarding.js'
import { commandOf, pathParameters } from '../../domain/foundations/path-parameters.js'
import type { DocumentMetadata } from '../../domain/onboarding/document.js'
import type { DocumentRepository } from '../../ports/document-repository.js'
import { partyReady } from '../../views/events.js'
import type { World } from '../../core-deps.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { OnboardingSessionRepository } from '../../ports/onboarding-session-repository.js'
import type { PartyRepository } from '../../ports/party-repository.js'
import { loadOwnSession, type LoadOwnSessionError } from './load-own-session.js'
import { instantText, instantTextOrNull } from '../../domain/foundations/instant.js'
import { newId, type SessionId } from '../../domain/foundations/ids.js'

/** Submission refused: these requirements are outstanding. */
export type RequirementsOutstanding = { readonly _tag: 'RequirementsOutstanding'; readonly requirements: readonly Requirement[] }

/** What `submitOnboardingForReview` needs. */
export type SubmitDeps = { readonly sessions: Pick<OnboardingSessionRepository, 'findForClient' | 'save'>; readonly clock: Clock }

/** `IN_PROGRESS` → `SUBMITTED`, after which the partner cannot change it; refused listing every outstanding requirement. */
export const submitOnboardingForReview =
  (deps: SubmitDeps) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoadOwnSessionError | InvalidState | RequirementsOutstanding | ConcurrentUpdate, OnboardingSession> =>
    pipe(
      loadOwnSession(deps.sessions)(caller, command),
      TE.chainW((session) =>
        pipe(
          TE.fromEither(transition(session.status, 'submit')),
          TE.chainW((status): TE.TaskEither<RequirementsOutstanding | ConcurrentUpdate | StoreUnavailable, OnboardingSession> => {
            const requirements = sessionRequirements(session)
            if (requirements.length > 0) return TE.left({ _tag: 'RequirementsOutstanding', requirements })
            const now = deps.clock.now()
            return deps.sessions.save({ ...session, status, currentStep: 'REVIEW', submittedAt: now, updatedAt: now }, NOT_AUDITED)
          }),
        ),
      ),
    )

/** `reviewed_by` defaults to `internal`. */
export const ApproveSessionInput = strictObject('ApproveSessionInput', {}, { reviewed_by: boundedString('ReviewedBy', 1, 100) })
/** `reason` (1 to 500 characters) and optionally `reviewed_by`. */
export const RejectSessionInput = strictObject('RejectSessionInput', { reason: boundedString('Reason', 1, 500) }, { reviewed_by: boundedString('ReviewedBy', 1, 100) })

export const DEFAULT_REVIEWER = 'internal'

/** What the review use cases need. */
export type ReviewDeps = {
  readonly sessions: Pick<OnboardingSessionRepository, 'findById' | 'save' | 'saveApproved'>
  /** The world of the sessions: the `party.ready` event says it. */
  readonly world: World
  readonly ids: IdGenerator
  readonly clock: Clock
}
const ApproveCommand = commandOf(['sessionId'], ApproveSessionInput)
const RejectCommand = commandOf(['sessionId'], RejectSessionInput)

/** `InvalidState` for a session not `SUBMITTED`, deciding twice included. */
export type ReviewError = InvalidRequest | NotFound | StoreUnavailable | InvalidState | ConcurrentUpdate

const loadForReview = (deps: { readonly sessions: Pick<OnboardingSessionRepository, 'findById'> }, sessionId: SessionId) =>
  pipe(deps.sessions.findById(sessionId), TE.chainW(TE.fromOption(() => notFound('onboarding_session'))))

/**
 * Approves a submitted session (operators). In one transaction: the session `APPROVED`, the party
 * created, `party.ready` queued with the party as of approval, and the audit event written.
 */
export const approveOnboardingSession =
  (deps: ReviewDeps) =>
  (command: unknown, context: AuditContext = OPERATOR_CONTEXT): TE.TaskEither<ReviewError, { readonly session: OnboardingSession; readonly party: Party }> =>
    pipe(
      TE.fromEither(decode(ApproveCommand)(command)),
      TE.chainW((cmd) =>
        pipe(
          loadForReview(deps, cmd.sessionId),
          TE.chainW((session) =>
            pipe(
              TE.fromEither(transition(session.status, 'approve')),
              TE.chainW((status) => {
                const now = deps.clock.now()
                const party = partyFromSession(session, newId(deps.ids), () => newId(deps.ids), now)
                const approved: OnboardingSession = {
                  ...session,
                  status,
                  partyId: party.id,
                  review: { decision: 'APPROVED', reviewedBy: cmd.reviewed_by ?? DEFAULT_REVIEWER, reason: null, decidedAt: now },
                  updatedAt: now,
                }
                const ready = partyReady(deps.ids.next(), session.id, partyView(party), now, deps.world)
                const audit = sessionApprovedEvent(deps.ids.next(), context, approved, ready.logged.id, now)
                return pipe(
                  deps.sessions.saveApproved(approved, party, ready, audit),
                  TE.map((saved) => ({ session: saved, party })),
                )
              }),
            ),
          ),
        ),
      ),
    )

/** Rejects a submitted session (operators), audited with the reason. */
export const rejectOnboardingSession =
  (deps: ReviewDeps) =>
  (command: unknown, context: AuditContext = OPERATOR_CONTEXT): TE.TaskEither<ReviewError, OnboardingSession> =>
    pipe(
      TE.fromEither(decode(RejectCommand)(command)),
      TE.chainW((cmd) =>
        pipe(
          loadForReview(deps, cmd.sessionId),
          TE.chainW((session) =>
            pipe(
              TE.fromEither(transition(session.status, 'reject')),
              TE.chainW((status) => {
                const now = deps.clock.now()
                const rejected: OnboardingSession = {
                  ...session,
                  status,
                  review: { decision: 'REJECTED', reviewedBy: cmd.reviewed_by ?? DEFAULT_REVIEWER, reason: cmd.reason, decidedAt: now },
                  updatedAt: now,
                }
                return deps.sessions.save(rejected, sessionRejectedEvent(deps.ids.next(), context, rejected, now))
              }),
            ),
          ),
        ),
      ),
    )

/** Optionally one `status`. */
export const SessionStatusFilter = queryFilters('SessionStatusFilter', { status: oneOf('Status', ONBOARDING_STATUSES) })

/** The reviewers' work list: every client's sessions, oldest first (operators). */
export const listOnboardingSessionsForReview =
  (deps: { readonly sessions: Pick<OnboardingSessionRepository, 'list'> }) =>
  (command: unknown): TE.TaskEither<InvalidRequest | StoreUnavailable, Page<OnboardingSession>> =>
    pipe(
      TE.fromEither(decodeFilteredPageRequest(SessionStatusFilter, command)),
      TE.chainW(({ filter, page }) => pipe(deps.sessions.list(filter.status, page), TE.map((rows) => pageOf(rows, page.limit)))),
    )

/** The party made from the caller's session at approval; `NotFound` before. */
export const getPartyBySessionId =
  (deps: { readonly sessions: Pick<OnboardingSessionRepository, 'findForClient'>; readonly parties: PartyRepository }) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoadOwnSessionError, Party> =>
    pipe(
      loadOwnSession(deps.sessions)(caller, command),
      TE.chainW((session): TE.TaskEither<LoadOwnSessionError, O.Option<Party>> =>
        session.partyId === null ? TE.left(notFound('party')) : deps.parties.findById(session.partyId),
      ),
      TE.chainW(TE.fromOption(() => notFound('party'))),
    )

/** The partner view plus the review details. */
export const reviewView = (s: OnboardingSession) => ({
  session_id: s.id,
  client_id: s.clientId,
  type: s.type,
  country_of_incorporation: s.countryOfIncorporation,
  locale: s.locale,
  status: s.status,
  current_step: s.currentStep,
  submitted_at: instantTextOrNull(s.submittedAt),
  party_id: s.partyId,
  review:
    s.review === null
      ? null
      : { decision: s.review.decision, reviewed_by: s.review.reviewedBy, reason: s.review.reason, decided_at: instantText(s.review.decidedAt) },
  created_at: instantText(s.createdAt),
  updated_at: instantText(s.updatedAt),
})

const SessionParams = pathParameters('sessionId')

/** Any client's session `sessionId`, for a reviewer (`reviewDetailView`). */
export const getOnboardingSessionForReview =
  (deps: { readonly sessions: Pick<OnboardingSessionRepository, 'findById'> }) =>
  (command: unknown): TE.TaskEither<InvalidRequest | NotFound | StoreUnavailable, OnboardingSession> =>
    pipe(
      TE.fromEither(decode(SessionParams)(command)),
      TE.chainW(({ sessionId }) => loadForReview(deps, sessionId)),
    )

/** Any client's session's documents, oldest first, a page at a time, in any status: what a reviewer reads before deciding. */
export const listOnboardingDocumentsForReview =
  (deps: { readonly sessions: Pick<OnboardingSessionRepository, 'findById'>; readonly documents: Pick<DocumentRepository, 'listForSession'> }) =>
  (command: unknown): TE.TaskEither<InvalidRequest | NotFound | StoreUnavailable, Page<DocumentMetadata>> =>
    pipe(
      TE.fromEither(decodePageRequest(command, ['sessionId'])),
      TE.chainW((page) =>
        pipe(
          getOnboardingSessionForReview(deps)(command),
          TE.chainW((session) => deps.documents.listForSession(session.id, page)),
          TE.map((rows) => pageOf(rows, page.limit)),
        ),
      ),
    )

const contactView = (c: Contact | null) => (c === null ? null : { value: c.value, verified: c.verifiedAt !== null, verified_at: instantTextOrNull(c.verifiedAt) })

/** `reviewView` with what the session holds: its contacts and whether each is verified, the profile (tax id masked) and the addresses. */
export const reviewDetailView = (s: OnboardingSession) => ({
  ...reviewView(s),
  entry_channel: s.entryChannel,
  email: contactView(s.email),
  phone: contactView(s.phone),
  applicant_profile: s.profile === null ? null : applicantProfileView(s.profile),
  addresses: s.addresses.map(addressView),
})
