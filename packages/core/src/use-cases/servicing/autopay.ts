import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Caller } from '../../domain/keys/api-key.js'
import { invalidState, notFound, type InvalidState, type StoreUnavailable } from '../../domain/foundations/errors.js'
import { newId, type LoanId, type PaymentId } from '../../domain/foundations/ids.js'
import { commandOf } from '../../domain/foundations/path-parameters.js'
import { AutopayInput, autopayKey, type AutopayDue, type LoanAutopay } from '../../domain/loans/autopay.js'
import type { Payment } from '../../domain/loans/payment.js'
import type { PaymentMethod } from '../../domain/loans/payment-method.js'
import { derivedOn, unpaidOf } from '../../lending/index.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { Change, LoanRepository } from '../../ports/loan-repository.js'
import type { PaymentMethodRepository } from '../../ports/payment-method-repository.js'
import type { ProcessorUnavailable } from '../../ports/payment-processor.js'
import { decodePartyCommand } from '../api-keys/authorize.js'
import { loadOwnLoan, type LoanReadError } from './loan-reads.js'
import { failedPayment, planPayment, type Charge, type PaymentRefusal } from './plan-payment.js'
import { loadFor, nothing, postingDate, replayInputsOf, type LoadedLoan } from './posting.js'
import { charge, type PaymentDeps } from './take-payment.js'

/** A loan's autopay (docs/ach.md "Scheduled (autopay) debits"): turned on and off by a partner, its debits taken by the origination runs. */

/** A loan's autopay as it stands: its setting, null while it is off. */
export type AutopayState = { readonly loanId: LoanId; readonly autopay: LoanAutopay | null }

/**
 * What reading and setting a loan's autopay needs; `debitsAutopay`: whether the world's ACH rails
 * run, whose origination takes autopay debits (without them, autopay would debit nothing).
 */
export type AutopayDeps = { readonly loans: Pick<LoanRepository, 'findForParty' | 'autopay'>; readonly clock: Clock; readonly debitsAutopay: boolean }

const AutopayCommand = commandOf(['partyId', 'loanId'], AutopayInput)

/** The autopay of the caller's party's loan named by the command (`partyId`, `loanId`). */
export const getLoanAutopayForParty =
  (deps: AutopayDeps) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoanReadError, AutopayState> =>
    pipe(
      loadOwnLoan(deps.loans)(caller, command),
      TE.chainW((loan) => pipe(deps.loans.autopay.of(loan.id), TE.map((autopay) => ({ loanId: loan.id, autopay: O.toNullable(autopay) })))),
    )

/**
 * Turns the autopay of the caller's party's loan on (`enabled: true`) or off. Turned on, it is the
 * caller's client's (the client of the debits it makes) from now; on already, it is left as it is
 * (whichever client turned it on, whichever request came first). Only an `ACTIVE` loan's may be
 * turned on, and only where the world's ACH rails run (`debitsAutopay`; InvalidState `autopay`
 * `unavailable` otherwise); any may be turned off.
 */
export const setLoanAutopayForParty =
  (deps: AutopayDeps) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoanReadError | InvalidState, AutopayState> =>
    pipe(
      TE.fromEither(decodePartyCommand(AutopayCommand)(caller, command)),
      TE.bindTo('cmd'),
      TE.bindW('loan', () => loadOwnLoan(deps.loans)(caller, command)),
      TE.chainW(({ cmd, loan }): TE.TaskEither<InvalidState | StoreUnavailable, AutopayState> => {
        if (!cmd.enabled) return pipe(deps.loans.autopay.turnOff(loan.id), TE.map(() => ({ loanId: loan.id, autopay: null })))
        if (loan.status !== 'ACTIVE') return TE.left(invalidState('loan', loan.status, 'turn autopay on'))
        if (!deps.debitsAutopay) return TE.left(invalidState('autopay', 'unavailable', 'turn autopay on where the lender does not collect by ACH'))
        return pipe(
          deps.loans.autopay.turnOn({ loanId: loan.id, clientId: caller.clientId, enabledAt: deps.clock.now() }),
          TE.map((autopay) => ({ loanId: loan.id, autopay })),
        )
      }),
    )

/** What an autopay debit is taken with: a payment's deps, with the loan's default method to read. */
export type AutopayDebitDeps = Omit<PaymentDeps, 'paymentMethods'> & { readonly paymentMethods: Pick<PaymentMethodRepository, 'defaultForLoan'> }

/** Why an autopay debit is not taken: the loan is gone or has no method, a payment's refusal, the processor or the store. */
export type AutopayDebitError = PaymentRefusal | ProcessorUnavailable | StoreUnavailable

/** Why an autopay debit was refused for its loan alone, for the operators' log. */
export const autopayRefusal = (refused: PaymentRefusal): string => {
  switch (refused._tag) {
    case 'NotFound':
      return `the loan has no ${refused.resource}`
    case 'InvalidRequest':
      return refused.detail
    case 'InvalidState':
      return `the ${refused.resource} is ${refused.status}`
    case 'Overpayment':
      return `it would take the loan past its payoff (${refused.payoffAmount}, ${refused.pendingAmount} pending)`
    case 'IdempotencyKeyReused':
      return 'its key names another payment'
  }
}

/** Whether `method` may be debited by autopay: an active bank account. */
const debitable = (method: PaymentMethod): boolean => method.type === 'bank_account' && method.status === 'active'

/**
 * What the autopay debit of the installment due on `dueDate` asks, on the loan loaded for a
 * posting on `date`: what the installment owes on its due date (its interest to that day), or,
 * fallen due already (a day caught up), what it still owes on `date` when less (a payment since);
 * less the loan's pending debits; at most what a payment may ask on `date` (`planPayment`: up to
 * the payoff, or up to the bill when that is more, and only up to the payoff beside pending
 * debits), so a last installment's interest to its due date never makes it an over-payment; 0 at
 * least.
 */
const autopayAmount = (loaded: LoadedLoan, dueDate: string, date: string): number => {
  const inputs = replayInputsOf(loaded)
  const onDueDate = derivedOn(loaded.loan, inputs, dueDate)
  const today = derivedOn(loaded.loan, inputs, date)
  const owedThen = onDueDate.nextDueDate === dueDate ? (onDueDate.nextDueAmount ?? 0) : 0
  const stillOwed = today.installments.find((i) => i.dueDate === dueDate)
  const owed = dueDate < date ? Math.min(owedThen, stillOwed === undefined ? 0 : unpaidOf(stillOwed)) : owedThen
  const { pendingAmount } = loaded
  const most = pendingAmount > 0 ? today.payoff - pendingAmount : Math.max(today.payoff, today.pastDueAmount + (today.nextDueAmount ?? 0))
  return Math.max(0, Math.min(owed - pendingAmount, most))
}

/** What an autopay debit does: nothing, the `FAILED` payment of a method it may not debit, or a charge (`planPayment`). */
type AutopayPlan = { readonly _tag: 'Nothing' } | { readonly _tag: 'Failed'; readonly change: Change<Payment> } | Charge

/**
 * Decides the autopay debit of `due` on its loan, loaded for a posting at `now`: nothing when one
 * was taken under its key (`taken`, whatever it became), when the loan is no longer `ACTIVE`, or
 * when the installment owes nothing more (`autopayAmount`); a `FAILED` payment
 * (`payment_method_unusable`) when the default `method` is not an active bank account; else the
 * payment as a partner's is planned.
 */
const planAutopayDebit = (loaded: LoadedLoan, taken: O.Option<Payment>, due: AutopayDue, method: PaymentMethod, order: { readonly ids: IdGenerator; readonly now: Date }): E.Either<PaymentRefusal, AutopayPlan> => {
  const { loan } = loaded
  if (O.isSome(taken) || loan.status !== 'ACTIVE') return E.right({ _tag: 'Nothing' })
  const date = postingDate(loan, order.now, loaded.latest)
  const amount = autopayAmount(loaded, due.dueDate, date)
  if (amount === 0) return E.right({ _tag: 'Nothing' })
  const key = autopayKey(due.loanId, due.dueDate)
  if (!debitable(method)) {
    const base = { id: newId<PaymentId>(order.ids), loanId: loan.id, clientId: due.clientId, idempotencyKey: key, paymentMethodId: method.id, amount, currency: loan.currency, effectiveDate: date, createdAt: order.now }
    const payment: Payment = { ...base, status: 'PENDING', failureCode: null, allocation: null, perInstallment: [], transactionId: null }
    return E.right({ _tag: 'Failed', change: failedPayment(loaded, payment, 'payment_method_unusable', order.ids, order.now) })
  }
  return pipe(
    planPayment(O.some(loaded), O.none, { clientId: due.clientId, idempotencyKey: key, amount, currency: loan.currency, paymentMethodId: method.id, ids: order.ids }, O.some(method), order.now),
    // Nothing was taken under the key: planPayment has no payment to replay.
    E.map((plan) => (plan._tag === 'Replay' ? { _tag: 'Nothing' as const } : plan)),
  )
}

/**
 * Takes the autopay debit of installment `due` (docs/ach.md "Scheduled (autopay) debits") in one
 * transaction under its loan's lock: load (the loan for a posting now, and for its due date; the
 * payment under `autopayKey` for the setting's client), decide (`planAutopayDebit`), then charge
 * the processor as a partner's payment is charged. A default method autopay may not debit (a card,
 * a blocked account) gives a `FAILED` payment and `payment.failed`, so the partner learns of it;
 * the setting stays. Answers the payment taken; none when nothing was.
 */
export const takeAutopayDebit =
  (deps: AutopayDebitDeps) =>
  (due: AutopayDue): TE.TaskEither<AutopayDebitError, O.Option<Payment>> =>
    pipe(
      deps.paymentMethods.defaultForLoan(due.loanId),
      TE.chainW(TE.fromOption(() => notFound('payment_method'))),
      TE.chainW((method) =>
        deps.loans.change({ loanId: due.loanId, partyId: due.partyId }, (found, reads): TE.TaskEither<AutopayDebitError, Change<O.Option<Payment>>> => {
          if (O.isNone(found)) return TE.left(notFound('loan'))
          const locked = found.value
          const now = deps.clock.now()
          const date = postingDate(locked.loan, now, locked.latest)
          return pipe(
            // Loaded for the earlier of the posting date and the due date: both are derived from it.
            loadFor(locked, reads, { type: 'TIME' }, due.dueDate < date ? due.dueDate : date),
            TE.bindTo('loaded'),
            TE.bind('taken', () => reads.paymentByKey(due.clientId, autopayKey(due.loanId, due.dueDate))),
            TE.chainEitherKW(({ loaded, taken }) => planAutopayDebit(loaded, taken, due, method, { ids: deps.ids, now })),
            TE.chainW((plan): TE.TaskEither<ProcessorUnavailable, Change<O.Option<Payment>>> => {
              if (plan._tag === 'Nothing') return TE.right({ posting: nothing(locked), result: O.none })
              const change = plan._tag === 'Failed' ? TE.right(plan.change) : charge(deps.processor, plan, deps.ids)
              return TE.map((made: Change<Payment>) => ({ posting: made.posting, result: O.some(made.result) }))(change)
            }),
          )
        }),
      ),
    )
