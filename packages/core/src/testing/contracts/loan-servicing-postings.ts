import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { NOT_AUDITED, OPERATOR_CONTEXT, paymentReversedEvent } from '../../domain/audit/audit-event.js'
import { notFound } from '../../domain/foundations/errors.js'
import type { BookedLoan } from '../../domain/loans/loan.js'
import { post as postEvent, settled } from '../../use-cases/servicing/posting.js'
import { utcDate } from '../../domain/foundations/instant.js'
import type { Payment } from '../../domain/loans/payment.js'
import type { LoanRepository, LockedLoan, Posting } from '../../ports/loan-repository.js'
import { freshId, right } from './run.js'
import type { ClientId, LoanId, PaymentMethodId } from '../../domain/foundations/ids.js'

/** What `change` hands its callback for a just-booked loan. */
export const bookedLocked = (booked: BookedLoan): LockedLoan => ({ loan: booked.loan, installments: booked.installments, latest: booked.balance, pendingAmount: 0 })

/** The locked loan after `posting` is written on `locked`; the `PENDING` payments it writes are new ones. */
export const afterPosting = (locked: LockedLoan, posting: Posting): LockedLoan => {
  return {
    loan: {
      ...locked.loan,
      ...(posting.loanStatus === undefined ? {} : { status: posting.loanStatus }),
      ...(posting.oldestUnpaidDueDate === undefined ? {} : { oldestUnpaidDueDate: posting.oldestUnpaidDueDate }),
      ...(posting.chargedOffOn === undefined ? {} : { chargedOffOn: posting.chargedOffOn }),
      ...(posting.checkpoint === undefined ? {} : { checkpoint: posting.checkpoint }),
    },
    installments: posting.installments,
    latest: posting.balance ?? locked.latest,
    pendingAmount: posting.payments.filter((p) => p.status === 'PENDING').reduce((sum, p) => sum + p.amount, locked.pendingAmount),
  }
}

/** A successful payment of `amount` on `now`'s date, as the payment use case posts it. */
export const paymentPosting = (
  locked: LockedLoan,
  amount: number,
  now: Date,
  methodId: PaymentMethodId,
  clientId: ClientId,
  idempotencyKey: string = freshId(),
  taken: { readonly id: Payment['id']; readonly createdAt: Date } = { id: freshId(), createdAt: now },
): { readonly state: LockedLoan; readonly payment: Payment; readonly posting: Posting } => {
  const today = utcDate(now)
  const base = { id: taken.id, loanId: locked.loan.id, clientId, idempotencyKey, paymentMethodId: methodId, amount, currency: locked.loan.currency, effectiveDate: today, createdAt: taken.createdAt }
  const { posting, change } = postEvent({ ...locked, payments: null, returned: null }, { type: 'PAYMENT', payment: settled(base) }, today, { ids: freshId, now })
  const { allocation, perInstallment, transactionId } = change.allocation!
  const payment: Payment = { ...base, status: 'SUCCEEDED', failureCode: null, allocation, perInstallment, transactionId }
  const full: Posting = { ...posting, payments: [payment, ...posting.payments], audit: NOT_AUDITED }
  return { state: afterPosting(locked, full), payment, posting: full }
}

/** Interest accrual alone as of `now`'s date, as the daily job posts it. */
export const accrualPosting = (locked: LockedLoan, now: Date): { readonly state: LockedLoan; readonly posting: Posting } => {
  const { posting } = postEvent({ ...locked, payments: null, returned: null }, { type: 'TIME' }, utcDate(now), { ids: freshId, now })
  if (posting.transactions.length === 0) throw new Error('accrualPosting: nothing to accrue')
  return { state: afterPosting(locked, posting), posting }
}

/** The reversal of `payment` on `now`'s date, as the reversal use case posts it (`payments`: the loan's successful ones). */
export const reversalPosting = (
  locked: LockedLoan,
  payment: Payment,
  payments: readonly Payment[],
  now: Date,
): { readonly state: LockedLoan; readonly payment: Payment; readonly posting: Posting } => {
  const { posting, change } = postEvent({ ...locked, payments, returned: [] }, { type: 'REVERSAL', payment }, utcDate(now), { ids: freshId, now })
  const reversed: Payment = { ...payment, status: 'REVERSED' }
  const reversal = change.transactions.find((t) => t.type === 'REVERSAL')!
  const full: Posting = {
    ...posting,
    payments: [reversed, ...posting.payments],
    audit: paymentReversedEvent(freshId(), OPERATOR_CONTEXT, reversed, locked.loan, reversal.id, null, now),
  }
  return { state: afterPosting(locked, full), payment: reversed, posting: full }
}

/** Runs `change` with a callback that records what it was handed and returns `posting` with `result`. */
export const post = async <A>(
  loans: LoanRepository,
  loanId: LoanId,
  posting: (locked: LockedLoan) => Posting,
  result: A,
): Promise<{ readonly handed: O.Option<LockedLoan>; readonly result: A }> => {
  let handed: O.Option<LockedLoan> = O.none
  const returned = await right(
    loans.change({ loanId }, (loan) => {
      handed = loan
      return O.isNone(loan) ? TE.left(notFound('loan')) : TE.right({ posting: posting(loan.value), result })
    }),
  )
  return { handed, result: returned }
}

