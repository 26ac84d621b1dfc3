import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { AuditEvent } from '../domain/audit/audit-event.js'
import type { CollateralItem } from '../domain/loans/collateral.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'
import type { LoanDocument } from '../domain/loans/loan-document.js'
import type { BalanceSnapshot, BookedLoan, LedgerTransaction, Loan, LoanStatus, LoanSummary, TransactionType } from '../domain/loans/loan.js'
import type { DelinquencyBucket, ServicedInstallment, ServicingCheckpoint } from '../lending/index.js'
import type { PageRequest } from '../domain/foundations/pagination.js'
import type { Payment } from '../domain/loans/payment.js'
import type { ClientId, LoanId, PartyId, PaymentId } from '../domain/foundations/ids.js'

/** A ledger entry as stored: `sequence` orders the whole ledger (entries written together share a time). */
export type PostedTransaction = LedgerTransaction & { readonly sequence: number }
/** A balance snapshot as stored; the latest of a loan has the highest `sequence`. */
export type PostedBalance = BalanceSnapshot & { readonly sequence: number }

/** Which of a party's loans `listForParty` returns: optionally one delinquency bucket, judged at `now`. */
export type LoanFilter = { readonly delinquency?: DelinquencyBucket; readonly now: Date }

/**
 * Which ledger entries `listTransactions` returns: of one `type`, with an effective date from
 * `from` and up to `to` (inclusive, `YYYY-MM-DD`); each optional.
 */
export type TransactionFilter = { readonly type?: TransactionType; readonly from?: string; readonly to?: string }

/**
 * A read of one of a party's loans: none when loan `loanId` is not `partyId`'s (or does not
 * exist), so whether the loan is the party's and what is read of it come back from one read.
 */
export type OfPartyLoan<A> = TE.TaskEither<StoreUnavailable, O.Option<A>>

/**
 * What a read of a loan's state derives it from (loan-servicing.ts `replay`): the loan (with its
 * checkpoint) and its latest snapshot, whose figures are the ledger's sums.
 */
export type ServicingRecord = {
  readonly loan: Loan
  readonly latest: PostedBalance
}

/** A page of a loan's snapshots and the loan's currency, which the snapshots do not store. */
export type PartyLoanBalances = { readonly currency: string; readonly balances: readonly PostedBalance[] }

/** A page of a loan's ledger and the loan's currency, which the entries do not store. */
export type PartyLoanLedger = { readonly currency: string; readonly transactions: readonly PostedTransaction[] }

/**
 * A loan as servicing changes it, read under the loan's lock: the loan (with its checkpoint), its
 * latest snapshot and its schedule as stored. A change that must replay from booking reads the
 * loan's payments with `PaymentReads.succeeded`, in the same transaction.
 */
export type LockedLoan = {
  readonly loan: Loan
  readonly latest: BalanceSnapshot
  /** The schedule as the last change wrote it, by number. */
  readonly installments: readonly ServicedInstallment[]
}

/** Which loan a change locks: `loanId`, and only if it is `partyId`'s when a party is named. */
export type LoanKey = { readonly loanId: LoanId; readonly partyId?: PartyId }

/** What a change writes (`posting`) and what it answers (`result`). */
export type Change<A> = { readonly posting: Posting; readonly result: A }

/** Everything one servicing change writes, in one transaction. */
export type Posting = {
  /** New ledger entries, in ledger order. */
  readonly transactions: readonly LedgerTransaction[]
  /** The whole schedule after the change (rows that did not change are left alone; rows past its end are deleted). */
  readonly installments: readonly ServicedInstallment[]
  /** The snapshot after the change, or null when nothing changed. */
  readonly balance: BalanceSnapshot | null
  /** Payments to insert, or (same id) to update: the change's own and those a replay re-allocated. */
  readonly payments: readonly Payment[]
  /** The loan's status after the change, when it changes (`PAID_OFF` once nothing is owed). */
  readonly loanStatus?: LoanStatus
  /** The loan's checkpoint after the change (`Loan.checkpoint`). */
  readonly checkpoint?: ServicingCheckpoint
  /** The loan's oldest unpaid due date after the change, when it changes (`Loan.oldestUnpaidDueDate`). */
  readonly oldestUnpaidDueDate?: string | null
  /** The date the loan is charged off, for a charge-off. */
  readonly chargedOffOn?: string
  /**
   * The audit event of the change (an operator's correction), written with it; null for a
   * change that is not an audited action (a borrower's payment, one loan's accrual; decision 45).
   */
  readonly audit: AuditEvent | null
}

/** Reads of payments. */
export type PaymentReads = {
  /** A payment by the API client's Idempotency-Key. */
  readonly paymentByKey: (clientId: ClientId, idempotencyKey: string) => TE.TaskEither<StoreUnavailable, O.Option<Payment>>
  /** A payment by its id, whoever took it. */
  readonly paymentById: (id: PaymentId) => TE.TaskEither<StoreUnavailable, O.Option<Payment>>
  /**
   * The loan's `SUCCEEDED` payments by effective date, those of one date in the order they were
   * taken (what a replay from booking takes).
   */
  readonly succeeded: (loanId: LoanId) => TE.TaskEither<StoreUnavailable, readonly Payment[]>
}

/**
 * Booked loans and their servicing records (written first by
 * LoanApplicationRepository.saveApproved). Reads never lock; `change` does.
 */
export type LoanRepository = {
  /** The loan as booked: schedule (by number), ledger (in order) and latest balance snapshot. */
  readonly findById: (id: LoanId) => TE.TaskEither<StoreUnavailable, O.Option<BookedLoan>>
  /** The loan if it belongs to `partyId`; another party's is none. */
  readonly findForParty: (partyId: PartyId, id: LoanId) => TE.TaskEither<StoreUnavailable, O.Option<Loan>>
  /**
   * One page of the party's loans in `(createdAt, id)` order, at most `page.limit + 1`, without
   * their checkpoints (`LoanSummary`: a list does not replay them); with a
   * `delinquency`, only those in that bucket at the instant `now` (`daysPastDue` on each loan's
   * today in its time zone).
   */
  readonly listForParty: (partyId: PartyId, filter: LoanFilter, page: PageRequest) => TE.TaskEither<StoreUnavailable, readonly LoanSummary[]>
  // The reads below are of one of the party's loans (`OfPartyLoan`); pages hold at most `page.limit + 1` rows.
  /** What the loan's state is derived from: the loan, its successful payments and its latest snapshot. */
  readonly servicing: (partyId: PartyId, loanId: LoanId) => OfPartyLoan<ServicingRecord>
  /** One page of the ledger in `(createdAt, sequence)` order (the cursor's id is the zero-padded sequence). */
  readonly listTransactions: (partyId: PartyId, loanId: LoanId, filter: TransactionFilter, page: PageRequest) => OfPartyLoan<PartyLoanLedger>
  /** One page of snapshots in `(createdAt, sequence)` order. */
  readonly listBalances: (partyId: PartyId, loanId: LoanId, page: PageRequest) => OfPartyLoan<PartyLoanBalances>
  /** The latest snapshot (the one with the highest sequence): one indexed read, whatever the length of the ledger. */
  readonly latestBalanceForParty: (partyId: PartyId, loanId: LoanId) => OfPartyLoan<PostedBalance>
  /**
   * Locks the loan `key.loanId` (other changes to it wait), reads its state, and writes the
   * posting `decide` returns, all in one transaction; a Left from `decide` writes nothing. The
   * locked read is the ownership check: a loan that does not exist, or is not `key.partyId`'s
   * (when given), reaches `decide` as none. `reads` read inside that same transaction (an
   * embedded database has one connection: a read from outside would wait for the lock).
   */
  readonly change: <E, A>(key: LoanKey, decide: (loan: O.Option<LockedLoan>, reads: PaymentReads) => TE.TaskEither<E | StoreUnavailable, Change<A>>) => TE.TaskEither<E | StoreUnavailable, A>
  /** Active loans' ids after `afterId` in id order (for jobs that visit every loan). */
  readonly activeLoanIds: (afterId: LoanId | null, limit: number) => TE.TaskEither<StoreUnavailable, readonly LoanId[]>
  /** Payment reads outside any change. */
  readonly payments: PaymentReads
  /** One page of the loan's payments, whatever their status, in `(createdAt, id)` order. */
  readonly listPayments: (partyId: PartyId, loanId: LoanId, page: PageRequest) => OfPartyLoan<readonly Payment[]>
  /** Stores the item and its `audit` event in one transaction (so for `addDocument`). */
  readonly addCollateral: (item: CollateralItem, audit: AuditEvent) => TE.TaskEither<StoreUnavailable, void>
  /** One page of collateral in `(createdAt, id)` order. */
  readonly listCollateral: (partyId: PartyId, loanId: LoanId, page: PageRequest) => OfPartyLoan<readonly CollateralItem[]>
  /** Stores the document's metadata and its `audit` event in one transaction. */
  readonly addDocument: (document: LoanDocument, audit: AuditEvent) => TE.TaskEither<StoreUnavailable, void>
  /** One page of documents in `(createdAt, id)` order. */
  readonly listDocuments: (partyId: PartyId, loanId: LoanId, page: PageRequest) => OfPartyLoan<readonly LoanDocument[]>
}
