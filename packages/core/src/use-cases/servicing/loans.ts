import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Caller } from '../../domain/keys/api-key.js'
import { CalendarDate, decode, oneOf, strictObject } from '../../domain/foundations/codecs.js'
import { invalidRequest, invalidState, notFound, type InvalidRequest, type InvalidState, type NotFound, type PartyMismatch, type StoreUnavailable } from '../../domain/foundations/errors.js'
import type { CollateralItem } from '../../domain/loans/collateral.js'
import type { LoanDocument } from '../../domain/loans/loan-document.js'
import type { Payment } from '../../domain/loans/payment.js'
import { TRANSACTION_TYPES, type Loan, type LoanSummary } from '../../domain/loans/loan.js'
import { DELINQUENCY_BUCKETS, addDays, derivedOn, snapshotOf, type DerivedLoan, type PayoffQuote, type ScheduledInstallment, type ServicedInstallment, type SettledPayment } from '../../lending/index.js'
import { loanToday, settled } from './posting.js'
import { commandOf, pathParameters } from '../../domain/foundations/path-parameters.js'
import { requireCommandParty } from '../api-keys/authorize.js'
import {
  decodeFilteredPageRequest,
  decodePageRequest,
  isAfter,
  isSequenceId,
  pageBy,
  pageOf,
  queryFilters,
  sequencePosition,
  type Page,
  type PageRequest,
  type Position,
} from '../../domain/foundations/pagination.js'
import type { Clock } from '../../ports/clock.js'
import type { LoanRepository, OfPartyLoan, PostedBalance, PostedTransaction, ServicingRecord } from '../../ports/loan-repository.js'
import type { LoanId, PartyId } from '../../domain/foundations/ids.js'

/**
 * Reading a party's loans (spec §4.5). Each use case checks the command's `partyId` against the
 * key's party (`PartyMismatch`), as the HTTP edge does before; every loan is then looked up within
 * the key's party, so another party's is NotFound.
 */

/**
 * Why a read of one of the party's loans fails: the command's `partyId` is not the key's party
 * (`PartyMismatch`) or the command is otherwise invalid, the loan is not the party's (`NotFound`
 * `loan`), or the store.
 */
export type LoanReadError = InvalidRequest | PartyMismatch | NotFound | StoreUnavailable

const LoanParams = pathParameters('loanId')

/**
 * The page a list of a party's loan asks for, once the command's `partyId` is the caller's
 * party; `isId` says what a row id of the list looks like.
 */
export const loanPage = (caller: Caller, command: unknown, isId?: (id: string) => boolean): E.Either<InvalidRequest | PartyMismatch, PageRequest> =>
  pipe(
    requireCommandParty(caller, command),
    E.chainW(() => decodePageRequest(command, ['partyId', 'loanId'], isId)),
  )

/**
 * What `read` finds of the caller's party's loan named by the command (`partyId`, `loanId`), in
 * one read (the repository's `OfPartyLoan` reads): none, for an unknown loan and another
 * party's alike, is NotFound `loan`. The command's other fields are the use case's to decode.
 */
export const readOfOwnLoan =
  <A>(read: (partyId: PartyId, loanId: LoanId) => OfPartyLoan<A>) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoanReadError, A> =>
    pipe(
      TE.fromEither(requireCommandParty(caller, command)),
      TE.chainEitherKW(() => decode(LoanParams)(command)),
      TE.chainW(({ loanId }) => read(caller.partyId, loanId)),
      TE.chainW(TE.fromOption(() => notFound('loan'))),
    )

/** The caller's party's loan named by the command (`partyId`, `loanId`). */
export const loadOwnLoan = (loans: Pick<LoanRepository, 'findForParty'>): ((caller: Caller, command: unknown) => TE.TaskEither<LoanReadError, Loan>) =>
  readOfOwnLoan((partyId, loanId) => loans.findForParty(partyId, loanId))

/** What a loan read needs: the repository's reads `K` (all of them by default). */
export type Loans<K extends keyof LoanRepository = keyof LoanRepository> = { readonly loans: Pick<LoanRepository, K> }

/** The filter of `listLoansForParty`: optionally a `delinquency` bucket (`DELINQUENCY_BUCKETS`). */
export const LoanFilters = queryFilters('LoanFilter', { delinquency: oneOf('DelinquencyBucket', DELINQUENCY_BUCKETS) })

/**
 * The loans of the key's party `partyId`, oldest first, a page at a time (`limit`, `cursor`),
 * optionally only those in one `delinquency` bucket today (each loan's today, in its time zone).
 */
export const listLoansForParty =
  (deps: Loans<'listForParty'> & { readonly clock: Clock }) =>
  (caller: Caller, command: unknown): TE.TaskEither<InvalidRequest | PartyMismatch | StoreUnavailable, Page<LoanSummary>> =>
    pipe(
      TE.fromEither(requireCommandParty(caller, command)),
      TE.chainEitherKW(() => decodeFilteredPageRequest(LoanFilters, command, ['partyId'])),
      TE.chainW(({ filter, page }) =>
        pipe(
          deps.loans.listForParty(caller.partyId, { ...filter, now: deps.clock.now() }, page),
          TE.map((rows) => pageOf(rows, page.limit)),
        ),
      ),
    )

/** The loan `loanId` of the key's party `partyId` (a read of one record: other fields are ignored). */
export const getLoanForParty =
  (deps: Loans<'findForParty'>) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoanReadError, Loan> =>
    loadOwnLoan(deps.loans)(caller, command)

/** A record of a loan with the loan's currency, which the record does not store. */
export type InCurrency<A> = A & { readonly currency: string }

/**
 * The balance snapshots of the loan `loanId` of the party `partyId`, oldest first, a page at a time:
 * one per ledger change, each with the loan's currency.
 */
export const listLoanBalancesForParty =
  (deps: Loans<'listBalances'>) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoanReadError, Page<InCurrency<PostedBalance>>> =>
    pipe(
      TE.fromEither(loanPage(caller, command, isSequenceId)),
      TE.chainW((page) =>
        pipe(
          readOfOwnLoan((partyId, loanId) => deps.loans.listBalances(partyId, loanId, page))(caller, command),
          TE.map(({ currency, balances }) => pageBy(balances.map((b) => ({ ...b, currency })), page.limit, sequencePosition)),
        ),
      ),
    )

/**
 * The filters of `listTransactionsForPartyLoan`: optionally a `type` (`TRANSACTION_TYPES`) and
 * effective dates `from` and `to` (`YYYY-MM-DD`, inclusive; `from` not after `to`).
 */
export const TransactionFilters = queryFilters('TransactionFilter', {
  type: oneOf('TransactionType', TRANSACTION_TYPES),
  from: CalendarDate,
  to: CalendarDate,
})

/**
 * The ledger of the loan `loanId` of the party `partyId`, oldest first, a page at a time, optionally
 * of one `type` and within effective dates `from` and `to` (inclusive). Each entry carries the loan's currency.
 */
export const listTransactionsForPartyLoan =
  (deps: Loans<'listTransactions'>) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoanReadError, Page<PostedTransaction & { readonly currency: string }>> =>
    pipe(
      TE.fromEither(requireCommandParty(caller, command)),
      TE.chainEitherKW(() => decodeFilteredPageRequest(TransactionFilters, command, ['partyId', 'loanId'], isSequenceId)),
      TE.filterOrElseW(
        ({ filter }) => filter.from === undefined || filter.to === undefined || filter.from <= filter.to,
        () => invalidRequest('from must not be after to.', 'from'),
      ),
      TE.chainW(({ filter, page }) =>
        pipe(
          readOfOwnLoan((partyId, loanId) => deps.loans.listTransactions(partyId, loanId, filter, page))(caller, command),
          TE.map(({ currency, transactions }) => pageBy(transactions.map((r) => ({ ...r, currency })), page.limit, sequencePosition)),
        ),
      ),
    )

/** Where an installment stands in the schedule list: its due date, then its number (padded). */
const installmentPosition = (i: ServicedInstallment): Position => ({
  createdAt: new Date(`${i.dueDate}T00:00:00.000Z`),
  id: String(i.number).padStart(3, '0'),
})

/**
 * The caller's party's loan named by the command with its today (the date in its business time
 * zone), derived as of `asOf(today)` (today when left out); a charged-off loan as of the day it
 * was charged off at the latest (nothing accrues on it since).
 */
const derivedOwnLoan =
  (deps: Loans<'servicing' | 'payments'> & { readonly clock: Clock }) =>
  (
    caller: Caller,
    command: unknown,
    asOf: (today: string) => string = (today) => today,
  ): TE.TaskEither<LoanReadError, { readonly record: ServicingRecord; readonly today: string; readonly derived: DerivedLoan }> =>
    pipe(
      readOfOwnLoan((partyId, loanId) => deps.loans.servicing(partyId, loanId))(caller, command),
      TE.chainW((record) => {
        const today = loanToday(record.loan, deps.clock.now())
        const wanted = asOf(today)
        const { chargedOffOn, checkpoint } = record.loan
        const date = chargedOffOn !== null && chargedOffOn < wanted ? chargedOffOn : wanted
        // From the latest posting's checkpoint; a loan without one (or a date before it) from booking.
        const payments: TE.TaskEither<StoreUnavailable, readonly SettledPayment[] | null> =
          checkpoint !== null && date >= checkpoint.date ? TE.right(null) : pipe(deps.loans.payments.succeeded(record.loan.id), TE.map((ps) => ps.map(settled)))
        return pipe(
          payments,
          TE.map((settledPayments) => ({ record, today, derived: derivedOn(record.loan, settledPayments, date) })),
        )
      }),
    )

/**
 * The schedule of the loan `loanId` of the party `partyId` as it stands today (in the loan's
 * business time zone), in due-date order, a page at a time: each installment with what is due
 * (interest accrued to today, and projected to its due date while it is open), what is paid and
 * its status.
 */
export const listLoanScheduleForParty =
  (deps: Loans<'servicing' | 'payments'> & { readonly clock: Clock }) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoanReadError, Page<InCurrency<ScheduledInstallment>>> =>
    pipe(
      TE.fromEither(loanPage(caller, command, (id) => /^\d{3}$/.test(id))),
      TE.chainW((page) =>
        pipe(
          derivedOwnLoan(deps)(caller, command),
          TE.map(({ record, derived }) =>
            pageBy(
              derived.installments
                .filter((r) => O.isNone(page.after) || isAfter(installmentPosition(r), page.after.value))
                .map((i) => ({ ...i, currency: record.loan.currency })),
              page.limit,
              installmentPosition,
            ),
          ),
        ),
      ),
    )

/**
 * The latest balance of the loan `loanId` of the party `partyId`, brought forward to today (in the
 * loan's business time zone): the latest snapshot's identity (`id`, `transactionId`, `sequence`)
 * with the figures as of today, interest accrued since the last posting included. A loan that is
 * not `ACTIVE` (paid off, charged off) owes nothing more: its latest snapshot as it is.
 */
export const getLatestLoanBalanceForParty =
  (deps: Loans<'servicing' | 'payments'> & { readonly clock: Clock }) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoanReadError, InCurrency<PostedBalance>> =>
    pipe(
      derivedOwnLoan(deps)(caller, command),
      TE.map(({ record, derived }) => ({
        ...(record.loan.status === 'CHARGED_OFF'
          ? record.latest
          : {
              ...snapshotOf(derived, record.loan.id, record.latest.transactionId, record.latest.id, record.latest.createdAt),
              sequence: record.latest.sequence,
            }),
        currency: record.loan.currency,
      })),
    )

/** How far ahead a payoff quote may be good through: 60 days. */
export const PAYOFF_QUOTE_DAYS = 60

/** The fields of a payoff quote: optionally `as_of` (`YYYY-MM-DD`, today to 60 days ahead; today when left out). */
export const PayoffQuery = strictObject('PayoffQuery', {}, { as_of: CalendarDate })
const PayoffCommand = commandOf(['partyId', 'loanId'], PayoffQuery)

/**
 * The payoff quote of the loan `loanId` of the party `partyId` on `as_of` (today in the loan's
 * business time zone by default; up to `PAYOFF_QUOTE_DAYS` ahead as a good-through quote):
 * principal, interest accrued to that date and fees assessed by it, assuming no payment before
 * then. A payment of exactly the quote on that date pays the loan off. A date before today, or
 * further ahead, is `InvalidRequest`; a charged-off loan has no payoff (`InvalidState`).
 */
export const getLoanPayoffForParty =
  (deps: Loans<'servicing' | 'payments'> & { readonly clock: Clock }) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoanReadError | InvalidState, PayoffQuote> =>
    pipe(
      TE.fromEither(requireCommandParty(caller, command)),
      TE.chainEitherKW(() => decode(PayoffCommand)(command)),
      TE.chainW(({ as_of }) => derivedOwnLoan(deps)(caller, command, (today) => as_of ?? today)),
      TE.filterOrElseW(
        ({ record }) => record.loan.status !== 'CHARGED_OFF',
        ({ record }): LoanReadError | InvalidState => invalidState('loan', record.loan.status, 'quote a payoff for'),
      ),
      TE.filterOrElseW(
        ({ derived, today }) => derived.asOf >= today && derived.asOf <= addDays(today, PAYOFF_QUOTE_DAYS),
        ({ today }) => invalidRequest(`as_of must be from today (${today}) to ${PAYOFF_QUOTE_DAYS} days ahead.`, 'as_of'),
      ),
      TE.map(({ record, derived }) => ({ loan: record.loan, asOf: derived.asOf, outstanding: derived.outstanding, payoff: derived.payoff })),
    )

/**
 * A list of records of the caller's party's loan named by the command, oldest first, a page at
 * a time: `read` gives the page's rows (`limit + 1` of them), none for another party's loan.
 */
export const listOfOwnLoan =
  <A extends Position>(read: (partyId: PartyId, loanId: LoanId, page: PageRequest) => OfPartyLoan<readonly A[]>) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoanReadError, Page<A>> =>
    pipe(
      TE.fromEither(loanPage(caller, command)),
      TE.chainW((page) =>
        pipe(
          readOfOwnLoan((partyId, loanId) => read(partyId, loanId, page))(caller, command),
          TE.map((rows) => pageOf(rows, page.limit)),
        ),
      ),
    )

/** The collateral of the loan `loanId` of the party `partyId`, oldest first, a page at a time. */
export const listCollateralForPartyLoan = (deps: Loans<'listCollateral'>): ((caller: Caller, command: unknown) => TE.TaskEither<LoanReadError, Page<CollateralItem>>) =>
  listOfOwnLoan((partyId, loanId, page) => deps.loans.listCollateral(partyId, loanId, page))

/** The documents of the loan `loanId` of the party `partyId`, oldest first, a page at a time. */
export const listDocumentsForPartyLoan = (deps: Loans<'listDocuments'>): ((caller: Caller, command: unknown) => TE.TaskEither<LoanReadError, Page<LoanDocument>>) =>
  listOfOwnLoan((partyId, loanId, page) => deps.loans.listDocuments(partyId, loanId, page))

/**
 * The payments of the loan `loanId` of the key's party `partyId`, oldest first, a page at a
 * time, whatever their status: a declined charge (`FAILED`, with its `failureCode`) and a
 * reversed payment (`REVERSED`) stay listed, each with how it was allocated.
 */
export const listPaymentsForPartyLoan = (deps: Loans<'listPayments'>): ((caller: Caller, command: unknown) => TE.TaskEither<LoanReadError, Page<Payment>>) =>
  listOfOwnLoan((partyId, loanId, page) => deps.loans.listPayments(partyId, loanId, page))
