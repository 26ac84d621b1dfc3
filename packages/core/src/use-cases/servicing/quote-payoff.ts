import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Caller } from '../../domain/keys/api-key.js'
import { CalendarDate, decode, strictObject } from '../../domain/foundations/codecs.js'
import { invalidRequest, invalidState, type InvalidState } from '../../domain/foundations/errors.js'
import { addDays, type PayoffQuote } from '../../lending/index.js'
import { commandOf } from '../../domain/foundations/path-parameters.js'
import { requireCommandParty } from '../api-keys/authorize.js'
import type { Clock } from '../../ports/clock.js'
import { derivedOwnLoan, type LoanReadError, type Loans } from './loan-reads.js'

/** How far ahead a payoff quote may be good through: 60 days. */
export const PAYOFF_QUOTE_DAYS = 60

/** The fields of a payoff quote: optionally `as_of` (`YYYY-MM-DD`, today to 60 days ahead; today when left out). */
export const PayoffQuery = strictObject('PayoffQuery', {}, { as_of: CalendarDate })
const PayoffCommand = commandOf(['partyId', 'loanId'], PayoffQuery)

/** A payoff quote and the bank debits still waiting for their file (`PENDING`), which count against it. */
export type PartyPayoffQuote = PayoffQuote & { readonly pendingAmount: number }

/** The payoff quote on `as_of` (up to `PAYOFF_QUOTE_DAYS` ahead): docs/servicing.md "Payoff quote"; none once charged off. */
export const getLoanPayoffForParty =
  (deps: Loans<'servicing' | 'payments'> & { readonly clock: Clock }) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoanReadError | InvalidState, PartyPayoffQuote> =>
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
      TE.chainW(({ record, derived }) =>
        pipe(
          deps.loans.payments.pending(record.loan.id),
          TE.map((pending) => ({ loan: record.loan, asOf: derived.asOf, outstanding: derived.outstanding, payoff: derived.payoff, pendingAmount: pending.reduce((sum, p) => sum + p.amount, 0) })),
        ),
      ),
    )
