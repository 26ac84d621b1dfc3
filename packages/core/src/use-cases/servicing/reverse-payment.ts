import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { OPERATOR_CONTEXT, paymentReversedEvent, type AuditContext } from '../../domain/audit/audit-event.js'
import { boundedString, decode, strictObject } from '../../domain/foundations/codecs.js'
import { invalidState, notFound, type InvalidRequest, type InvalidState, type NotFound, type StoreUnavailable } from '../../domain/foundations/errors.js'
import { commandOf } from '../../domain/foundations/path-parameters.js'
import { REVERSIBLE_PAYMENT_STATUSES, type Payment, type PaymentStatus } from '../../domain/loans/payment.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { Change, LoanRepository } from '../../ports/loan-repository.js'
import { paymentEvent } from '../../views/events.js'
import { causedBy, changeOfPayment, loadFromBooking, post, postingDate, type LoadedLoan } from './posting.js'

/** The fields of a reversal: optionally a `reason` (1 to 500 characters), kept in the audit event. */
export const ReversePaymentInput = strictObject('ReversePaymentInput', {}, { reason: boundedString('Reason', 1, 500) })
const ReverseCommand = commandOf(['paymentId'], ReversePaymentInput)

/** What a reversal needs. */
export type ReversalDeps = { readonly loans: Pick<LoanRepository, 'change' | 'payments'>; readonly ids: IdGenerator; readonly clock: Clock }

/** Why a reversal is refused. */
export type ReversalError = InvalidRequest | NotFound | InvalidState | StoreUnavailable

/** What a reversal decides on: the loan (none if gone), the payment as it stands under the lock, who and why. */
type ReversalOrder = { readonly context: AuditContext; readonly reason: string | null; readonly ids: IdGenerator; readonly now: Date }

/**
 * A `REVERSAL` entry undoing the allocation, the replay's re-allocations, the payment `REVERSED`;
 * a `SUCCEEDED` or `SETTLED` payment (`REVERSIBLE_PAYMENT_STATUSES`) of a loan not charged off only.
 */
export const planReversal = (locked: O.Option<LoadedLoan>, current: O.Option<Payment>, order: ReversalOrder): E.Either<NotFound | InvalidState, Change<Payment>> => {
  if (O.isNone(locked)) return E.left(notFound('loan'))
  const loaded = locked.value
  if (loaded.loan.status === 'CHARGED_OFF') return E.left(invalidState('loan', 'CHARGED_OFF', 'reverse a payment of'))
  if (O.isNone(current)) return E.left(notFound('payment'))
  const paid = current.value
  if (!(REVERSIBLE_PAYMENT_STATUSES as readonly PaymentStatus[]).includes(paid.status) || paid.transactionId === null) return E.left(invalidState('payment', paid.status, 'reverse'))
  const { now, ids } = order
  const payment: Payment = { ...paid, status: 'REVERSED' }
  const { posting, change } = post(loaded, loaded.payments, { type: 'REVERSAL', payment: paid }, postingDate(loaded.loan, now, loaded.latest), { ids: () => ids.next(), now })
  const reversal = change.transactions.find((t) => t.type === 'REVERSAL')!
  const audit = paymentReversedEvent(ids.next(), order.context, payment, loaded.loan, reversal.id, order.reason, now)
  const reversed = causedBy({ ...posting, payments: [payment, ...posting.payments], audit }, paymentEvent(ids.next(), 'payment.reversed', payment, loaded.loan, now, { status: paid.status }))
  return E.right({ posting: reversed, result: payment })
}

/** Reverses a posted, settled payment (`planReversal`) with its `payment.reversed` audit event, in one transaction; nothing is deleted. */
export const reverseLoanPayment =
  (deps: ReversalDeps) =>
  (command: unknown, context: AuditContext = OPERATOR_CONTEXT): TE.TaskEither<ReversalError, Payment> =>
    pipe(
      TE.fromEither(decode(ReverseCommand)(command)),
      TE.chainW((cmd) =>
        changeOfPayment(deps.loans, cmd.paymentId, (found, current, reads) => {
          const order = { context, reason: cmd.reason ?? null, ids: deps.ids, now: deps.clock.now() }
          return pipe(
            found,
            // A reversal replays from booking.
            O.traverse(TE.ApplicativeSeq)((locked) => loadFromBooking(locked, reads)),
            TE.chainEitherKW((loaded) => planReversal(loaded, current, order)),
          )
        }),
      ),
    )
