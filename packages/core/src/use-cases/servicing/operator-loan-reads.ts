import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { World } from '../../core-deps.js'
import type { PartyScope } from '../../domain/keys/api-key.js'
import { decode, oneOf } from '../../domain/foundations/codecs.js'
import { invalidRequest, notFound, type InvalidRequest, type NotFound, type StoreUnavailable } from '../../domain/foundations/errors.js'
import { PartyId } from '../../domain/foundations/ids.js'
import { pathParameters } from '../../domain/foundations/path-parameters.js'
import { timeOf } from '../../domain/loans/book-time.js'
import { decodeLoanPage, LOAN_SORTS, loanPageOf } from '../../domain/loans/loan-order.js'
import type { Loan, LoanSummary } from '../../domain/loans/loan.js'
import { dateIn } from '../../domain/loans/servicing-terms.js'
import { DELINQUENCY_BUCKETS, LOAN_STATUSES } from '../../lending/index.js'
import { decodeFilteredQuery, type Page, queryFilters } from '../../domain/foundations/pagination.js'
import type { Clock } from '../../ports/clock.js'
import type { TestClockRepository } from '../../ports/test-clock-repository.js'
import { bookTime, partyClock } from '../testing/party-clock.js'
import type { Loans } from './loan-reads.js'

/**
 * Operators' reads of every party's loans (docs/console.md): the delinquency queue, a loan, and
 * its records. Each loan is read on its party's today: in the test world a party on a test clock
 * lives at the clock's time (decision 131), as its own keys' reads do.
 */

/** What the operator reads need: the loans, and the clocks of the world's parties. */
export type OperatorLoanDeps = Loans<'list' | 'find'> & {
  readonly world: World
  readonly testClocks: Pick<TestClockRepository, 'findForParty' | 'partyTimes'>
  readonly clock: Clock
}

/** A loan as an operator reads it, with its party's today (`YYYY-MM-DD` in the loan's time zone). */
export type OperatorLoan<L extends Loan | LoanSummary = LoanSummary> = { readonly loan: L; readonly today: string }

/** `loan` with its party's today. */
const onItsToday =
  (deps: Pick<OperatorLoanDeps, 'world' | 'testClocks' | 'clock'>) =>
  <L extends Loan | LoanSummary>(loan: L): TE.TaskEither<StoreUnavailable, OperatorLoan<L>> =>
    pipe(partyClock(deps)(loan.partyId), TE.map((clock) => ({ loan, today: dateIn(loan.timeZone, clock.now()) })))

/**
 * The filters of `listLoansForOperator`, each optional: a `delinquency` bucket
 * (`DELINQUENCY_BUCKETS`, active loans only), a `status` and a `party_id`; and its `sort`
 * (`LOAN_SORTS`, `created_at` unless said).
 */
export const OperatorLoanFilters = queryFilters('OperatorLoanFilter', {
  delinquency: oneOf('DelinquencyBucket', DELINQUENCY_BUCKETS),
  status: oneOf('LoanStatus', LOAN_STATUSES),
  party_id: PartyId,
  sort: oneOf('LoanSort', LOAN_SORTS),
})

/**
 * Every party's loans, a page at a time in `sort` order (oldest first unless said), optionally one
 * party's, of one `status`, and of one `delinquency` bucket, each loan judged on its today (in its
 * time zone, on its party's clock): with a bucket, the delinquency queue of active loans. One
 * query in either world.
 */
export const listLoansForOperator =
  (deps: OperatorLoanDeps) =>
  (command: unknown): TE.TaskEither<InvalidRequest | StoreUnavailable, Page<OperatorLoan>> =>
    pipe(
      TE.fromEither(decodeFilteredQuery(OperatorLoanFilters, command)),
      TE.chainEitherKW(({ filter, limit, cursor }) => pipe(decodeLoanPage(filter.sort ?? 'created_at', limit, cursor), E.map((page) => ({ filter, page })))),
      TE.chainW(({ filter: { party_id, status, delinquency }, page }) =>
        pipe(
          bookTime(deps),
          TE.chainW((time) =>
            pipe(
              deps.loans.list(
                {
                  of: 'book',
                  time,
                  ...(party_id === undefined ? {} : { partyId: party_id }),
                  ...(status === undefined ? {} : { status }),
                  ...(delinquency === undefined ? {} : { delinquency }),
                },
                page,
              ),
              TE.map((rows) => rows.map((loan) => ({ loan, today: dateIn(loan.timeZone, timeOf(time, loan.partyId)) }))),
            ),
          ),
          TE.map((found) => loanPageOf(found, page, ({ loan }) => loan)),
        ),
      ),
    )

const LoanParams = pathParameters('loanId')

/** The loan `loanId`, whoever's it is. */
const findLoan =
  (deps: Loans<'find'>) =>
  (command: unknown): TE.TaskEither<InvalidRequest | NotFound | StoreUnavailable, Loan> =>
    pipe(
      TE.fromEither(decode(LoanParams)(command)),
      TE.chainW(({ loanId }) => deps.loans.find(loanId)),
      TE.chainW(TE.fromOption(() => notFound('loan'))),
    )

/** The loan `loanId`, whoever's it is, on its party's today. */
export const getLoanForOperator =
  (deps: OperatorLoanDeps) =>
  (command: unknown): TE.TaskEither<InvalidRequest | NotFound | StoreUnavailable, OperatorLoan<Loan>> =>
    pipe(findLoan(deps)(command), TE.chainW(onItsToday(deps)))

/**
 * An operator's read of the loan `loanId` through the party's own read (its schedule, ledger,
 * payments, balances), built by `readOn` on the party's clock: the loan's party stands in for a
 * key's, so an operator sees what the partner sees, read the same way. The command names no
 * party: the loan says whose it is.
 */
export const asLoansParty =
  <E, A>(deps: Pick<OperatorLoanDeps, 'loans' | 'world' | 'testClocks' | 'clock'>, readOn: (clock: Clock) => (scope: PartyScope, command: unknown) => TE.TaskEither<E, A>) =>
  (command: unknown): TE.TaskEither<E | InvalidRequest | NotFound | StoreUnavailable, A> =>
    typeof command === 'object' && command !== null && 'partyId' in command
      ? TE.left(invalidRequest("partyId is not a parameter of an operator's read: the loan names its party.", 'partyId'))
      : pipe(
          findLoan(deps)(command),
          TE.chainW(({ partyId }) => pipe(partyClock(deps)(partyId), TE.chainW((clock) => readOn(clock)({ partyId }, { ...(command as object), partyId })))),
        )
