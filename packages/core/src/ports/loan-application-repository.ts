import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { AuditEvent } from '../domain/audit/audit-event.js'
import type { EventDraft } from '../domain/events/event.js'
import type { AlreadyExists, ConcurrentUpdate, StoreUnavailable } from '../domain/foundations/errors.js'
import type { ApplicationStatus, LoanApplication } from '../domain/loans/loan-application.js'
import type { BookedLoan } from '../domain/loans/loan.js'
import type { PageRequest } from '../domain/foundations/pagination.js'
import type { ApplicationId, PartyId } from '../domain/foundations/ids.js'

/**
 * Which applications `list` returns, optionally of one status: `party`, one party's (its own
 * routes); `book`, every party's (an operator's read). Whose list it is is never left out.
 */
export type ApplicationFilter =
  | { readonly of: 'party'; readonly partyId: PartyId; readonly status?: ApplicationStatus }
  | { readonly of: 'book'; readonly status?: ApplicationStatus }

/** Loan applications and the loans their approval books; saves are version-checked (`ConcurrentUpdate`) and write `audit` with them. */
export type LoanApplicationRepository = {
  /** `AlreadyExists` if the id is taken. */
  readonly insert: (application: LoanApplication) => TE.TaskEither<StoreUnavailable | AlreadyExists, void>
  /** Any party's: for operators. */
  readonly findById: (id: ApplicationId) => TE.TaskEither<StoreUnavailable, O.Option<LoanApplication>>
  /** Another party's is none. */
  readonly findForParty: (partyId: PartyId, id: ApplicationId) => TE.TaskEither<StoreUnavailable, O.Option<LoanApplication>>
  /** If the stored version is still the application's; with its `events`. */
  readonly save: (application: LoanApplication, audit: AuditEvent | null, events: readonly EventDraft[]) => TE.TaskEither<StoreUnavailable | ConcurrentUpdate, LoanApplication>
  /** The approved application, everything `booked` holds and the `events`, in one transaction. */
  readonly saveApproved: (application: LoanApplication, booked: BookedLoan, audit: AuditEvent, events: readonly EventDraft[]) => TE.TaskEither<StoreUnavailable | ConcurrentUpdate, LoanApplication>
  /** In `(createdAt, id)` order, at most `page.limit + 1`. */
  readonly list: (filter: ApplicationFilter, page: PageRequest) => TE.TaskEither<StoreUnavailable, readonly LoanApplication[]>
}
