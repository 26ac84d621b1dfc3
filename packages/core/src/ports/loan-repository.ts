import type * as E from 'fp-ts/lib/Either.js'
import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { BookTime } from '../domain/loans/book-time.js'
import type { LoanPage } from '../domain/loans/loan-order.js'
import type { AuditEvent } from '../domain/audit/audit-event.js'
import type { EventDraft } from '../domain/events/event.js'
import type { CollateralItem } from '../domain/loans/collateral.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'
import type { LoanDocument } from '../domain/loans/loan-document.js'
import type { AutopayDue, AutopayWindow, LoanAutopay } from '../domain/loans/autopay.js'
import type { BalanceSnapshot, BookedLoan, LedgerTransaction, Loan, LoanStatus, LoanSummary, TransactionType } from '../domain/loans/loan.js'
import type { DelinquencyBucket, ServicedInstallment, ServicingCheckpoint } from '../lending/index.js'
import type { PageRequest } from '../domain/foundations/pagination.js'
import type { Payment } from '../domain/loans/payment.js'
import type { ClientId, LoanId, OperatorRequestId, PartyId, PaymentId } from '../domain/foundations/ids.js'
import type { OperatorRequest, OperatorRequestState } from '../domain/operators/operator-request.js'

/** A ledger entry as stored: `sequence` orders the whole ledger (entries written together share a time). */
export type PostedTransaction = LedgerTransaction & { readonly sequence: number }
/** A balance snapshot as stored; the latest of a loan has the highest `sequence`. */
export type PostedBalance = BalanceSnapshot & { readonly sequence: number }

/**
 * Which loans `list` returns, by whose reading:
 * - `party`: the loans of `partyId` (its own routes), judged at `now` (its clock); `delinquency`
 *   matches the bucket the loan view shows, which for a charged-off loan is its charge-off day's.
 * - `book`: every party's loans (an operator's read), optionally one party's or of one `status`,
 *   each judged at its party's time; `delinquency` matches active loans only, the queue operators
 *   collect from (a paid-off or charged-off loan is in no bucket of it).
 */
export type LoanFilter =
  | { readonly of: 'party'; readonly partyId: PartyId; readonly now: Date; readonly delinquency?: DelinquencyBucket }
  | { readonly of: 'book'; readonly time: BookTime; readonly partyId?: PartyId; readonly status?: LoanStatus; readonly delinquency?: DelinquencyBucket }

/** The active loans of one currency with the same days past due, and what their latest snapshots add up to. */
export type DelinquencyCount = {
  readonly currency: string
  readonly daysPastDue: number
  readonly loans: number
  readonly principalOutstanding: number
  readonly pastDueAmount: number
}

/** Which ledger entries `listTransactions` returns: of `type`, effective `from`..`to` (inclusive, `YYYY-MM-DD`). */
export type TransactionFilter = { readonly type?: TransactionType; readonly from?: string; readonly to?: string }

/** A read of one of a party's loans, none when the loan is not the party's: ownership and data in one read. */
export type OfPartyLoan<A> = TE.TaskEither<StoreUnavailable, O.Option<A>>

/** What a read derives a loan's state from (`replay`): the loan with its checkpoint, and its latest snapshot. */
export type ServicingRecord = {
  readonly loan: Loan
  readonly latest: PostedBalance
}

/** A page of a loan's snapshots and the loan's currency, which the snapshots do not store. */
export type PartyLoanBalances = { readonly currency: string; readonly balances: readonly PostedBalance[] }

/** A page of a loan's ledger and the loan's currency, which the entries do not store. */
export type PartyLoanLedger = { readonly currency: string; readonly transactions: readonly PostedTransaction[] }

/** A loan read under its lock: loan, latest snapshot and stored schedule (by number); payments via `PaymentReads`. */
export type LockedLoan = {
  readonly loan: Loan
  readonly latest: BalanceSnapshot
  readonly installments: readonly ServicedInstallment[]
  /** What its `PENDING` payments add up to: accepted, not yet posted. */
  readonly pendingAmount: number
}

/** Which loan a change locks: `loanId`, and only if it is `partyId`'s when a party is named. */
export type LoanKey = { readonly loanId: LoanId; readonly partyId?: PartyId }

/** What a change writes (`posting`) and what it answers (`result`). */
export type Change<A> = { readonly posting: Posting; readonly result: A }

/** Everything one servicing change writes, in one transaction. */
export type Posting = {
  readonly transactions: readonly LedgerTransaction[]
  /** The whole schedule after the change; rows past its end are deleted. */
  readonly installments: readonly ServicedInstallment[]
  /** The snapshot after the change, or null when nothing changed. */
  readonly balance: BalanceSnapshot | null
  /** Payments to insert or (same id) update, including those a replay re-allocated. */
  readonly payments: readonly Payment[]
  // The fields below are set only when the change changes them.
  readonly loanStatus?: LoanStatus
  readonly checkpoint?: ServicingCheckpoint
  readonly oldestUnpaidDueDate?: string | null
  readonly chargedOffOn?: string
  /** An operator correction's audit event; null for payments and accrual (decision 45). */
  readonly audit: AuditEvent | null
  /** The loan's maker-checker request as the change leaves it (decision 152): inserted, or updated by id. */
  readonly request?: OperatorRequest
  /** What partners are told of the change, in order (docs/events.md); numbered per loan on write. */
  readonly events: readonly EventDraft[]
}

/** Reads of payments. */
export type PaymentReads = {
  /** A payment by the API client's Idempotency-Key. */
  readonly paymentByKey: (clientId: ClientId, idempotencyKey: string) => TE.TaskEither<StoreUnavailable, O.Option<Payment>>
  /** Whoever took it. */
  readonly paymentById: (id: PaymentId) => TE.TaskEither<StoreUnavailable, O.Option<Payment>>
  /** Posted payments (`POSTED_PAYMENT_STATUSES`) by effective date, then in the order posted (what a replay takes). */
  readonly posted: (loanId: LoanId) => TE.TaskEither<StoreUnavailable, readonly Payment[]>
  /** `RETURNED` payments that charged a returned-payment fee, by the day returned, then in the order taken: what a replay takes beside the posted ones. */
  readonly returnedWithFee: (loanId: LoanId) => TE.TaskEither<StoreUnavailable, readonly Payment[]>
  /** `PENDING` payments in the order taken: accepted, not yet posted. */
  readonly pending: (loanId: LoanId) => TE.TaskEither<StoreUnavailable, readonly Payment[]>
}

/** What a change reads under the loan's lock: its payments, and its maker-checker requests (decision 152). */
export type ChangeReads = PaymentReads & {
  /** The loan's requests, oldest first (a loan has few). */
  readonly requests: (loanId: LoanId) => TE.TaskEither<StoreUnavailable, readonly OperatorRequest[]>
}

/** Which maker-checker requests `listRequests` returns: optionally those in one `state`. */
export type RequestFilter = { readonly state?: OperatorRequestState }

/** Loans' autopay settings, and the installments their debits are owed for. */
export type AutopaySettings = {
  /** The loan's setting; none while its autopay is off. */
  readonly of: (loanId: LoanId) => TE.TaskEither<StoreUnavailable, O.Option<LoanAutopay>>
  /** Turns the loan's autopay on as `setting` says, unless it is on already: answers the setting in force after (this one, or the one found). */
  readonly turnOn: (setting: LoanAutopay) => TE.TaskEither<StoreUnavailable, LoanAutopay>
  /** Turns the loan's autopay off (off already, it stays so). */
  readonly turnOff: (loanId: LoanId) => TE.TaskEither<StoreUnavailable, void>
  /**
   * The installments in `window` (`AutopayWindow`) of the `ACTIVE` loans whose autopay is on, due
   * after the loan's date when it was turned on (`enabledAt` in the loan's time zone), but those
   * whose debit was made (a payment of the setting's client under `autopayKey`), whatever they
   * still owe; in (loan id, due date) order after `from`, at most `limit`.
   */
  readonly due: (window: AutopayWindow, from: Pick<AutopayDue, 'loanId' | 'dueDate'> | null, limit: number) => TE.TaskEither<StoreUnavailable, readonly AutopayDue[]>
}

/** Booked loans and their servicing records (first written by `saveApproved`); only `change` locks. */
export type LoanRepository = {
  /** The loan with schedule (by number), ledger (in order) and latest snapshot. */
  readonly findById: (id: LoanId) => TE.TaskEither<StoreUnavailable, O.Option<BookedLoan>>
  /** The loan, whoever's it is (an operator's read: a partner's reads go through `findForParty`). */
  readonly find: (id: LoanId) => TE.TaskEither<StoreUnavailable, O.Option<Loan>>
  /** The loan if it is `partyId`'s. */
  readonly findForParty: (partyId: PartyId, id: LoanId) => TE.TaskEither<StoreUnavailable, O.Option<Loan>>
  /** A page in the page's order (`LOAN_SORTS`) without checkpoints; `delinquency` is judged on each loan's local today. */
  readonly list: (filter: LoanFilter, page: LoanPage) => TE.TaskEither<StoreUnavailable, readonly LoanSummary[]>
  /** The book's active loans counted by currency and days past due (each on its party's time), in no order; a group of no loans is not listed. */
  readonly delinquencyCounts: (time: BookTime) => TE.TaskEither<StoreUnavailable, readonly DelinquencyCount[]>
  // Pages hold at most `page.limit + 1` rows, in `(createdAt, id)` order unless said.
  /** What the loan's state is derived from. */
  readonly servicing: (partyId: PartyId, loanId: LoanId) => OfPartyLoan<ServicingRecord>
  /** In `(createdAt, sequence)` order; the cursor's id is the zero-padded sequence. */
  readonly listTransactions: (partyId: PartyId, loanId: LoanId, filter: TransactionFilter, page: PageRequest) => OfPartyLoan<PartyLoanLedger>
  /** In `(createdAt, sequence)` order. */
  readonly listBalances: (partyId: PartyId, loanId: LoanId, page: PageRequest) => OfPartyLoan<PartyLoanBalances>
  /** The snapshot with the highest sequence: one indexed read. */
  readonly latestBalanceForParty: (partyId: PartyId, loanId: LoanId) => OfPartyLoan<PostedBalance>
  /**
   * In one transaction: locks the loan, reads it (none when missing or not `key.partyId`'s) and writes the
   * posting `decide` returns (nothing on Left). Read with `reads`: the embedded database has one connection.
   */
  readonly change: <E, A>(key: LoanKey, decide: (loan: O.Option<LockedLoan>, reads: ChangeReads) => TE.TaskEither<E | StoreUnavailable, Change<A>>) => TE.TaskEither<E | StoreUnavailable, A>
  /**
   * `change` for several loans in one transaction: locks them (in id order), reads them a
   * statement per kind for all, runs `decide` on each in the order given (a loan named twice,
   * once) and writes every posting decided in one statement. A loan whose `decide` answers a Left of its own (`E`) has nothing
   * written and its Left answered; a StoreUnavailable from any of them, or a write the store
   * refuses, writes nothing for any and answers that StoreUnavailable. Answers by loan id.
   */
  readonly changeMany: <E extends { readonly _tag: string }, A>(
    loanIds: readonly LoanId[],
    decide: (loan: O.Option<LockedLoan>, reads: ChangeReads) => TE.TaskEither<E | StoreUnavailable, Change<A>>,
  ) => TE.TaskEither<StoreUnavailable, ReadonlyMap<LoanId, E.Either<Exclude<E, StoreUnavailable>, A>>>
  /** Reads and decides as `change` does, under the loan's lock, and writes nothing: what the change would do (a preview). */
  readonly dryRun: <E, A>(key: LoanKey, decide: (loan: O.Option<LockedLoan>, reads: ChangeReads) => TE.TaskEither<E | StoreUnavailable, Change<A>>) => TE.TaskEither<E | StoreUnavailable, Change<A>>
  /** A maker-checker request, whichever loan's. */
  readonly findRequest: (id: OperatorRequestId) => TE.TaskEither<StoreUnavailable, O.Option<OperatorRequest>>
  /** Maker-checker requests of every loan, oldest first. */
  readonly listRequests: (filter: RequestFilter, page: PageRequest) => TE.TaskEither<StoreUnavailable, readonly OperatorRequest[]>
  /** Ids after `afterId`, in id order, of the active loans that follow the calendar: none of a party on a test clock, which moves only with its clock (decision 131). */
  readonly activeLoanIds: (afterId: LoanId | null, limit: number) => TE.TaskEither<StoreUnavailable, readonly LoanId[]>
  /** Outside any change. */
  readonly payments: PaymentReads
  readonly autopay: AutopaySettings
  /** Whatever their status. */
  readonly listPayments: (partyId: PartyId, loanId: LoanId, page: PageRequest) => OfPartyLoan<readonly Payment[]>
  /** Stores the item and its `audit` event in one transaction (so does `addDocument`). */
  readonly addCollateral: (item: CollateralItem, audit: AuditEvent) => TE.TaskEither<StoreUnavailable, void>
  /** One page of collateral. */
  readonly listCollateral: (partyId: PartyId, loanId: LoanId, page: PageRequest) => OfPartyLoan<readonly CollateralItem[]>
  /** Stores the document's metadata and its `audit` event. */
  readonly addDocument: (document: LoanDocument, audit: AuditEvent) => TE.TaskEither<StoreUnavailable, void>
  /** One page of documents. */
  readonly listDocuments: (partyId: PartyId, loanId: LoanId, page: PageRequest) => OfPartyLoan<readonly LoanDocument[]>
}
