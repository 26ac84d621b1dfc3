import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { AuditEvent } from '../domain/audit-event.js'
import type { CollateralItem } from '../domain/collateral.js'
import type { StoreUnavailable } from '../domain/errors.js'
import type { LoanDocument } from '../domain/loan-document.js'
import type { BalanceSnapshot, BookedLoan, LedgerTransaction, Loan, LoanStatus, TransactionType } from '../domain/loan.js'
import type { LoanState, ServicedInstallment } from '../domain/loan-servicing.js'
import type { PageRequest } from '../domain/pagination.js'
import type { Payment } from '../domain/payment.js'

/** A ledger entry as stored: `sequence` orders the whole ledger (entries written together share a time). */
export type PostedTransaction = LedgerTransaction & { readonly sequence: number }
/** A balance snapshot as stored; the latest of a loan has the highest `sequence`. */
export type PostedBalance = BalanceSnapshot & { readonly sequence: number }

export type TransactionFilter = { readonly type?: TransactionType; readonly from?: string; readonly to?: string }

/** A loan as servicing changes it: its state and its latest snapshot, read under the loan's lock. */
export type LockedLoan = LoanState & { readonly latest: BalanceSnapshot }

/** Everything one servicing change writes, in one transaction. */
export type Posting = {
  /** New ledger entries, in ledger order. */
  readonly transactions: readonly LedgerTransaction[]
  /** The whole schedule after the change (rows that did not change are left alone). */
  readonly installments: readonly ServicedInstallment[]
  /** The snapshot after the change, or null when nothing changed. */
  readonly balance: BalanceSnapshot | null
  /** A payment to insert, or (same id) to update. */
  readonly payment?: Payment
  /** The loan's status after the change, when it changes (`PAID_OFF` once nothing is owed). */
  readonly loanStatus?: LoanStatus
  /**
   * The audit event of the change (an operator's correction), written with it; null for a
   * change that is not an audited action (a borrower's payment, one loan's accrual; decision 45).
   */
  readonly audit: AuditEvent | null
}

/** Reads of payments. */
export type PaymentReads = {
  /** A payment by the API client's Idempotency-Key. */
  readonly paymentByKey: (clientId: string, idempotencyKey: string) => TE.TaskEither<StoreUnavailable, O.Option<Payment>>
  readonly paymentById: (id: string) => TE.TaskEither<StoreUnavailable, O.Option<Payment>>
}

/**
 * Booked loans and their servicing records (written first by
 * LoanApplicationRepository.saveApproved). Reads never lock; `change` does.
 */
export type LoanRepository = {
  /** The loan as booked: schedule (by number), ledger (in order) and latest balance snapshot. */
  readonly findById: (id: string) => TE.TaskEither<StoreUnavailable, O.Option<BookedLoan>>
  /** The loan if it belongs to `partyId`; another party's is none. */
  readonly findForParty: (partyId: string, id: string) => TE.TaskEither<StoreUnavailable, O.Option<Loan>>
  /** One page of the party's loans in `(createdAt, id)` order, at most `page.limit + 1`. */
  readonly listForParty: (partyId: string, page: PageRequest) => TE.TaskEither<StoreUnavailable, readonly Loan[]>
  /** The schedule, by installment number. */
  readonly schedule: (loanId: string) => TE.TaskEither<StoreUnavailable, readonly ServicedInstallment[]>
  /** One page of the ledger in `(createdAt, sequence)` order (the cursor's id is the zero-padded sequence). */
  readonly listTransactions: (loanId: string, filter: TransactionFilter, page: PageRequest) => TE.TaskEither<StoreUnavailable, readonly PostedTransaction[]>
  /** One page of snapshots in `(createdAt, sequence)` order. */
  readonly listBalances: (loanId: string, page: PageRequest) => TE.TaskEither<StoreUnavailable, readonly PostedBalance[]>
  /** The latest snapshot: one indexed read, whatever the length of the ledger. */
  readonly latestBalance: (loanId: string) => TE.TaskEither<StoreUnavailable, O.Option<PostedBalance>>
  /**
   * The latest snapshot of loan `loanId` if the loan is `partyId`'s: none when it is not (or
   * does not exist). One read, where finding the loan and then its snapshot took two.
   */
  readonly latestBalanceForParty: (partyId: string, loanId: string) => TE.TaskEither<StoreUnavailable, O.Option<PostedBalance>>
  /**
   * Locks the loan (other changes to it wait), reads its state, and writes the posting that
   * `change` returns, all in one transaction; a Left from `change` writes nothing. A missing
   * loan reaches `change` as none. `reads` read inside that same transaction (an embedded
   * database has one connection: a read from outside would wait for the lock it is under).
   */
  readonly change: <E, A>(
    loanId: string,
    change: (loan: O.Option<LockedLoan>, reads: PaymentReads) => TE.TaskEither<E | StoreUnavailable, { readonly posting: Posting; readonly result: A }>,
  ) => TE.TaskEither<E | StoreUnavailable, A>
  /** Active loans' ids after `afterId` in id order (for jobs that visit every loan). */
  readonly activeLoanIds: (afterId: string | null, limit: number) => TE.TaskEither<StoreUnavailable, readonly string[]>
  /** Payment reads outside any change. */
  readonly payments: PaymentReads
  /** Stores the item and its `audit` event in one transaction (so for `addDocument`). */
  readonly addCollateral: (item: CollateralItem, audit: AuditEvent) => TE.TaskEither<StoreUnavailable, void>
  readonly listCollateral: (loanId: string, page: PageRequest) => TE.TaskEither<StoreUnavailable, readonly CollateralItem[]>
  readonly addDocument: (document: LoanDocument, audit: AuditEvent) => TE.TaskEither<StoreUnavailable, void>
  readonly listDocuments: (loanId: string, page: PageRequest) => TE.TaskEither<StoreUnavailable, readonly LoanDocument[]>
}
