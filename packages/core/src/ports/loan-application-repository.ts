import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { AuditEvent } from '../domain/audit/audit-event.js'
import type { AlreadyExists, ConcurrentUpdate, StoreUnavailable } from '../domain/foundations/errors.js'
import type { ApplicationStatus, LoanApplication } from '../domain/loans/loan-application.js'
import type { BookedLoan } from '../domain/loans/loan.js'
import type { PageRequest } from '../domain/foundations/pagination.js'
import type { ApplicationId, PartyId } from '../domain/foundations/ids.js'

/** Which applications `list` returns: of one party, of one status, both or neither. */
export type ApplicationFilter = { readonly partyId?: PartyId; readonly status?: ApplicationStatus }

/**
 * Loan applications, and the loans their approval books. Saves are conditional on
 * `application.version` (optimistic locking): a stale save is `ConcurrentUpdate` and writes
 * nothing; a successful one returns the application with the next version. A save writes its `audit`
 * event in the same transaction; `save` takes null only for a change that is not an audited
 * action (a partner's own application; decision 45).
 */
export type LoanApplicationRepository = {
  /** Stores a new application; `AlreadyExists` if its id is taken. */
  readonly insert: (application: LoanApplication) => TE.TaskEither<StoreUnavailable | AlreadyExists, void>
  /** Any party's application: for operators. */
  readonly findById: (id: ApplicationId) => TE.TaskEither<StoreUnavailable, O.Option<LoanApplication>>
  /** The application if it belongs to `partyId`; another party's is none. */
  readonly findForParty: (partyId: PartyId, id: ApplicationId) => TE.TaskEither<StoreUnavailable, O.Option<LoanApplication>>
  /** Writes the application if the stored version is still its `version`. */
  readonly save: (application: LoanApplication, audit: AuditEvent | null) => TE.TaskEither<StoreUnavailable | ConcurrentUpdate, LoanApplication>
  /**
   * In one transaction: the approved application (version-checked) and everything `booked`
   * holds (loan, installments, ledger entries, balance snapshot). All or nothing.
   */
  readonly saveApproved: (application: LoanApplication, booked: BookedLoan, audit: AuditEvent) => TE.TaskEither<StoreUnavailable | ConcurrentUpdate, LoanApplication>
  /** One page in `(createdAt, id)` order, at most `page.limit + 1` rows. */
  readonly list: (filter: ApplicationFilter, page: PageRequest) => TE.TaskEither<StoreUnavailable, readonly LoanApplication[]>
}
