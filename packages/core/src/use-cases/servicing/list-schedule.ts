import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { PartyScope } from '../../domain/keys/api-key.js'
import type { ScheduledInstallment, ServicedInstallment } from '../../lending/index.js'
import { isAfter, pageBy, type Page, type Position } from '../../domain/foundations/pagination.js'
import type { Clock } from '../../ports/clock.js'
import { derivedOwnLoan, loanPage, type InCurrency, type LoanReadError, type Loans } from './loan-reads.js'

/** Where an installment stands in the schedule list: its due date, then its number (padded). */
const installmentPosition = (i: ServicedInstallment): Position => ({
  createdAt: new Date(`${i.dueDate}T00:00:00.000Z`),
  id: String(i.number).padStart(3, '0'),
})

/** The schedule as of the loan's today, a page at a time: docs/servicing.md "Schedule". */
export const listLoanScheduleForParty =
  (deps: Loans<'servicing' | 'payments'> & { readonly clock: Clock }) =>
  (caller: PartyScope, command: unknown): TE.TaskEither<LoanReadError, Page<InCurrency<ScheduledInstallment>>> =>
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
