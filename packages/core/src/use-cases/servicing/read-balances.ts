import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { PartyScope } from '../../domain/keys/api-key.js'
import { snapshotOf } from '../../lending/index.js'
import { isSequenceId, pageBy, sequencePosition, type Page } from '../../domain/foundations/pagination.js'
import type { Clock } from '../../ports/clock.js'
import type { PostedBalance } from '../../ports/loan-repository.js'
import { derivedOwnLoan, loanPage, readOfOwnLoan, type InCurrency, type LoanReadError, type Loans } from './loan-reads.js'

/**
 * The balance snapshots of the loan `loanId` of the party `partyId`, oldest first, a page at a time:
 * one per ledger change, each with the loan's currency.
 */
export const listLoanBalancesForParty =
  (deps: Loans<'listBalances'>) =>
  (caller: PartyScope, command: unknown): TE.TaskEither<LoanReadError, Page<InCurrency<PostedBalance>>> =>
    pipe(
      TE.fromEither(loanPage(caller, command, isSequenceId)),
      TE.chainW((page) =>
        pipe(
          readOfOwnLoan((partyId, loanId) => deps.loans.listBalances(partyId, loanId, page))(caller, command),
          TE.map(({ currency, balances }) => pageBy(balances.map((b) => ({ ...b, currency })), page.limit, sequencePosition)),
        ),
      ),
    )

/** The latest snapshot with its figures brought forward to the loan's today; as stored once the loan is not `ACTIVE`. */
export const getLatestLoanBalanceForParty =
  (deps: Loans<'servicing' | 'payments'> & { readonly clock: Clock }) =>
  (caller: PartyScope, command: unknown): TE.TaskEither<LoanReadError, InCurrency<PostedBalance>> =>
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
