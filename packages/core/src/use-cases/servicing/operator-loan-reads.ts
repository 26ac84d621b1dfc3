import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { World } from '../../core-deps.js'
import type { PartyScope } from '../../domain/keys/api-key.js'
import { decode, oneOf } from '../../domain/foundations/codecs.js'
import { invalidRequest, notFound, type InvalidRequest, type NotFound, type StoreUnavailable } from '../../domain/foundations/errors.js'
import { PartyId } from '../../domain/foundations/ids.js'
import { pathParameters } from '../../domain/foundations/path-parameters.js'
import { daysPastDue, type Loan, type LoanSummary } from '../../domain/loans/loan.js'
import { dateIn } from '../../domain/loans/servicing-terms.js'
import { DELINQUENCY_BUCKETS, delinquencyBucketOf, type DelinquencyBucket } from '../../lending/index.js'
import { decodeFilteredPageRequest, pageBy, type Page, type PageRequest, queryFilters } from '../../domain/foundations/pagination.js'
import type { Clock } from '../../ports/clock.js'
import type { LoanFilter } from '../../ports/loan-repository.js'
import type { TestClockRepository } from '../../ports/test-clock-repository.js'
import { partyClock } from '../testing/party-clock.js'
import type { Loans } from './loan-reads.js'

/**
 * Operators' reads of every party's loans (docs/console.md): the delinquency queue, a loan, and
 * its records. Each loan is read on its party's today: in the test world a party on a test clock
 * lives at the clock's time (decision 131), as its own keys' reads do.
 */

/** What the operator reads need: the loans, and the clocks of the world's parties. */
export type OperatorLoanDeps = Loans<'list' | 'find'> & {
  readonly world: World
  readonly testClocks: Pick<TestClockRepository, 'findForParty'>
  readonly clock: Clock
}

/** A loan as an operator reads it, with its party's today (`YYYY-MM-DD` in the loan's time zone). */
export type OperatorLoan<L extends Loan | LoanSummary = LoanSummary> = { readonly loan: L; readonly today: string }

/** `loan` with its party's today; one clock read per party (`clocks` remembers them for a page). */
const onItsToday =
  (deps: Pick<OperatorLoanDeps, 'world' | 'testClocks' | 'clock'>, clocks: Map<PartyId, Clock> = new Map()) =>
  <L extends Loan | LoanSummary>(loan: L): TE.TaskEither<StoreUnavailable, OperatorLoan<L>> => {
    const known = clocks.get(loan.partyId)
    const clock = known === undefined ? pipe(partyClock(deps)(loan.partyId), TE.tap((c) => TE.fromIO(() => void clocks.set(loan.partyId, c)))) : TE.right(known)
    return pipe(clock, TE.map((c) => ({ loan, today: dateIn(loan.timeZone, c.now()) })))
  }

/** The filters of `listLoansForOperator`: a `delinquency` bucket (`DELINQUENCY_BUCKETS`) and a `party_id`, each optional. */
export const OperatorLoanFilters = queryFilters('OperatorLoanFilter', { delinquency: oneOf('DelinquencyBucket', DELINQUENCY_BUCKETS), party_id: PartyId })

/** How many loans the test world's queue reads at a time while it looks for a bucket's. */
const TEST_WORLD_SCAN = 100

/**
 * The test world's loans of `bucket`, each judged on its party's clock, a page after `page.after`:
 * read in order and kept when in the bucket until the page is full. The test world is a
 * partner's sandbox, where this reads few loans; the live world's queue is one query.
 */
const testWorldQueue = (deps: OperatorLoanDeps, filter: Omit<LoanFilter, 'delinquency'>, bucket: DelinquencyBucket, page: PageRequest): TE.TaskEither<StoreUnavailable, readonly OperatorLoan[]> => async () => {
  const today = onItsToday(deps)
  const kept: OperatorLoan[] = []
  let after = page.after
  for (;;) {
    const rows = await deps.loans.list(filter, { limit: TEST_WORLD_SCAN, after })()
    if (E.isLeft(rows)) return rows
    for (const loan of rows.right.slice(0, TEST_WORLD_SCAN)) {
      const read = await today(loan)()
      if (E.isLeft(read)) return read
      if (delinquencyBucketOf(daysPastDue(loan, read.right.today)) === bucket) kept.push(read.right)
      if (kept.length > page.limit) return E.right(kept)
    }
    const last = rows.right[TEST_WORLD_SCAN - 1]
    if (rows.right.length <= TEST_WORLD_SCAN || last === undefined) return E.right(kept)
    after = O.some({ createdAt: last.createdAt, id: last.id })
  }
}

/**
 * Every party's loans, oldest first, a page at a time, optionally one party's and optionally of one
 * `delinquency` bucket on each loan's today (in its time zone, on its party's clock): the delinquency queue.
 */
export const listLoansForOperator =
  (deps: OperatorLoanDeps) =>
  (command: unknown): TE.TaskEither<InvalidRequest | StoreUnavailable, Page<OperatorLoan>> =>
    pipe(
      TE.fromEither(decodeFilteredPageRequest(OperatorLoanFilters, command)),
      TE.chainW(({ filter: { party_id, delinquency }, page }) => {
        const filter = { ...(party_id === undefined ? {} : { partyId: party_id }), now: deps.clock.now() }
        const rows: TE.TaskEither<StoreUnavailable, readonly OperatorLoan[]> =
          deps.world === 'test' && delinquency !== undefined
            ? testWorldQueue(deps, filter, delinquency, page)
            : pipe(deps.loans.list({ ...filter, ...(delinquency === undefined ? {} : { delinquency }) }, page), TE.chainW(TE.traverseSeqArray(onItsToday(deps))))
        return pipe(
          rows,
          TE.map((found) => pageBy(found, page.limit, ({ loan }) => loan)),
        )
      }),
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
