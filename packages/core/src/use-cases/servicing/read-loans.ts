import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Caller } from '../../domain/keys/api-key.js'
import { oneOf } from '../../domain/foundations/codecs.js'
import type { InvalidRequest, PartyMismatch, StoreUnavailable } from '../../domain/foundations/errors.js'
import type { Loan, LoanSummary } from '../../domain/loans/loan.js'
import { DELINQUENCY_BUCKETS } from '../../lending/index.js'
import { requireCommandParty } from '../api-keys/authorize.js'
import { decodeFilteredPageRequest, pageOf, queryFilters, type Page } from '../../domain/foundations/pagination.js'
import type { Clock } from '../../ports/clock.js'
import { oldestFirst } from '../../domain/loans/loan-order.js'
import { loadOwnLoan, type LoanReadError, type Loans } from './loan-reads.js'

/** The filter of `listLoansForParty`: optionally a `delinquency` bucket (`DELINQUENCY_BUCKETS`). */
export const LoanFilters = queryFilters('LoanFilter', { delinquency: oneOf('DelinquencyBucket', DELINQUENCY_BUCKETS) })

/**
 * The loans of the key's party `partyId`, oldest first, a page at a time (`limit`, `cursor`),
 * optionally only those in one `delinquency` bucket today (each loan's today, in its time zone).
 */
export const listLoansForParty =
  (deps: Loans<'list'> & { readonly clock: Clock }) =>
  (caller: Caller, command: unknown): TE.TaskEither<InvalidRequest | PartyMismatch | StoreUnavailable, Page<LoanSummary>> =>
    pipe(
      TE.fromEither(requireCommandParty(caller, command)),
      TE.chainEitherKW(() => decodeFilteredPageRequest(LoanFilters, command, ['partyId'])),
      TE.chainW(({ filter, page }) =>
        pipe(
          deps.loans.list({ of: 'party', ...filter, partyId: caller.partyId, now: deps.clock.now() }, oldestFirst(page)),
          TE.map((rows) => pageOf(rows, page.limit)),
        ),
      ),
    )

/** The loan `loanId` of the key's party `partyId` (a read of one record: other fields are ignored). */
export const getLoanForParty =
  (deps: Loans<'findForParty'>) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoanReadError, Loan> =>
    loadOwnLoan(deps.loans)(caller, command)
