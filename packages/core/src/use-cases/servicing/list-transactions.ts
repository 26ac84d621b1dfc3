import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { PartyScope } from '../../domain/keys/api-key.js'
import { CalendarDate, oneOf } from '../../domain/foundations/codecs.js'
import { invalidRequest } from '../../domain/foundations/errors.js'
import { TRANSACTION_TYPES } from '../../domain/loans/loan.js'
import { requireCommandParty } from '../api-keys/authorize.js'
import { decodeFilteredPageRequest, isSequenceId, pageBy, queryFilters, sequencePosition, type Page } from '../../domain/foundations/pagination.js'
import type { PostedTransaction } from '../../ports/loan-repository.js'
import { readOfOwnLoan, type LoanReadError, type Loans } from './loan-reads.js'

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
  (caller: PartyScope, command: unknown): TE.TaskEither<LoanReadError, Page<PostedTransaction & { readonly currency: string }>> =>
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
