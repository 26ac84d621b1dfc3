import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { PartyScope } from '../../domain/keys/api-key.js'
import { decode, oneOf } from '../../domain/foundations/codecs.js'
import { invalidRequest, notFound, type InvalidRequest, type NotFound, type StoreUnavailable } from '../../domain/foundations/errors.js'
import { PartyId } from '../../domain/foundations/ids.js'
import { pathParameters } from '../../domain/foundations/path-parameters.js'
import type { Loan, LoanSummary } from '../../domain/loans/loan.js'
import { DELINQUENCY_BUCKETS } from '../../lending/index.js'
import { decodeFilteredPageRequest, pageOf, queryFilters, type Page } from '../../domain/foundations/pagination.js'
import type { Clock } from '../../ports/clock.js'
import type { Loans } from './loan-reads.js'

/** Operators' reads of every party's loans (docs/console.md): the delinquency queue, a loan, and its records. */

/** The filters of `listLoansForOperator`: a `delinquency` bucket (`DELINQUENCY_BUCKETS`) and a `party_id`, each optional. */
export const OperatorLoanFilters = queryFilters('OperatorLoanFilter', { delinquency: oneOf('DelinquencyBucket', DELINQUENCY_BUCKETS), party_id: PartyId })

/**
 * Every party's loans, oldest first, a page at a time, optionally one party's and optionally of one
 * `delinquency` bucket today (each loan's today, in its time zone): the delinquency queue.
 */
export const listLoansForOperator =
  (deps: Loans<'list'> & { readonly clock: Clock }) =>
  (command: unknown): TE.TaskEither<InvalidRequest | StoreUnavailable, Page<LoanSummary>> =>
    pipe(
      TE.fromEither(decodeFilteredPageRequest(OperatorLoanFilters, command)),
      TE.chainW(({ filter: { party_id, delinquency }, page }) =>
        pipe(
          deps.loans.list({ ...(party_id === undefined ? {} : { partyId: party_id }), ...(delinquency === undefined ? {} : { delinquency }), now: deps.clock.now() }, page),
          TE.map((rows) => pageOf(rows, page.limit)),
        ),
      ),
    )

const LoanParams = pathParameters('loanId')

/** The loan `loanId`, whoever's it is. */
export const getLoanForOperator =
  (deps: Loans<'find'>) =>
  (command: unknown): TE.TaskEither<InvalidRequest | NotFound | StoreUnavailable, Loan> =>
    pipe(
      TE.fromEither(decode(LoanParams)(command)),
      TE.chainW(({ loanId }) => deps.loans.find(loanId)),
      TE.chainW(TE.fromOption(() => notFound('loan'))),
    )

/**
 * An operator's read of the loan `loanId` through the party's own read `read` (its schedule,
 * ledger, payments, balances): the loan's party stands in for a key's, so an operator sees what
 * the partner sees, read the same way. The command names no party: the loan says whose it is.
 */
export const asLoansParty =
  <E, A>(deps: Loans<'find'>, read: (scope: PartyScope, command: unknown) => TE.TaskEither<E, A>) =>
  (command: unknown): TE.TaskEither<E | InvalidRequest | NotFound | StoreUnavailable, A> =>
    typeof command === 'object' && command !== null && 'partyId' in command
      ? TE.left(invalidRequest("partyId is not a parameter of an operator's read: the loan names its party.", 'partyId'))
      : pipe(
          getLoanForOperator(deps)(command),
          TE.chainW(({ partyId }) => read({ partyId }, { ...(command as object), partyId })),
        )
