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
import { derivedOn } from '../../lending/index.js'
import type { Clock } from '../../ports/clock.js'
import type { Change, LoanRepository } from '../../ports/loan-repository.js'
import type { PaymentMethodRepository } from '../../ports/payment-method-repository.js'
import type { ProcessorUnavailable } from '../../ports/payment-processor.js'
import { decodePartyCommand } from '../api-keys/authorize.js'
import { loadOwnLoan, type LoanReadError } from './loan-reads.js'
import { failedPayment, planPayment, type PaymentRefusal } from './plan-payment.js'
import { loadFor, nothing, postingDate, replayInputsOf, type LoadedLoan } from './posting.js'
import { charge, type PaymentDeps } from './take-payment.js'

/** A loan's autopay (docs/ach.md "Scheduled (autopay) debits"): turned on and off by a partner, its debits made by the origination job. */

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
 * (whichever client turned it on). Only an `ACTIVE` loan's may be turned on, and only where the
 * world's ACH rails run (`debitsAutopay`; InvalidState `autopay` `unavailable` otherwise); any may
 * be turned off.
 */
export const setLoanAutopayForParty =
  (deps: AutopayDeps) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoanReadError | InvalidState, AutopayState> =>
    pipe(
      TE.fromEither(decodePartyCommand(AutopayCommand)(caller, command)),
      TE.bindTo('cmd'),
      TE.bindW('loan', () => loadOwnLoan(deps.loans)(caller, command)),
      TE.bindW('current', ({ loan }) => deps.loans.autopay.of(loan.id)),
      TE.chainW(({ cmd, loan, current }): TE.TaskEither<InvalidState | StoreUnavailable, AutopayState> => {
        if (!cmd.enabled) return pipe(O.isNone(current) ? TE.right(undefined) : deps.loans.autopay.set(loan.id, null), TE.map(() => ({ loanId: loan.id, autopay: null })))
        if (O.isSome(current)) return TE.right({ loanId: loan.id, autopay: current.value })
        if (loan.status !== 'ACTIVE') return TE.left(invalidState('loan', loan.status, 'turn autopay on'))
        if (!deps.debitsAutopay) return TE.left(invalidState('autopay', 'unavailable', 'turn autopay on where the lender does not collect by ACH'))
        const autopay: LoanAutopay = { loanId: loan.id, clientId: caller.clientId, enabledAt: deps.clock.now() }
        return pipe(deps.loans.autopay.set(loan.id, autopay), TE.map(() => ({ loanId: loan.id, autopay })))
      }),
    )

/** What an autopay debit is taken with: a payment's deps, with the loan's default method to read. */
export type AutopayDebitDeps = Omit<PaymentDeps, 'paymentMethods'> & { readonly paymentMethods: Pick<PaymentMethodRepository, 'defaultForLoan'> }

/** Why an autopay debit is not taken: the loan is gone or has no method, a payment's refusal, the processor or the store. */
export type AutopayDebitError = PaymentRefusal | ProcessorUnavailable | StoreUnavailable

/** Why an autopay debit was refused for its loan alone, for the operators' log. */
export const autopayRefusal = (refused: Exclude<AutopayDebitError, StoreUnavailable>): string => {
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
    case 'ProcessorUnavailable':
      return `the processor is unavailable: ${refused.cause instanceof Error ? refused.cause.message : String(refused.cause)}`
  }
}

/** Whether `method` may be debited by autopay: an active bank account. */
const debitable = (method: PaymentMethod): boolean => method.type === 'bank_account' && method.status === 'active'

/** What installment `dueDate` of the loaded loan owes on its due date (its interest to that day), less the loan's pending debits; 0 at least. */
const owedFor = (loaded: LoadedLoan, dueDate: string): number => {
  const onDueDate = derivedOn(loaded.loan, replayInputsOf(loaded), dueDate)
  const owed = onDueDate.nextDueDate === dueDate ? (onDueDate.nextDueAmount ?? 0) : 0
  return Math.max(0, owed - loaded.pendingAmount)
}

/**
 * Takes the autopay debit of installment `due` (docs/ach.md "Scheduled (autopay) debits"), under
 * its loan's lock, as a partner's payment is taken (`planPayment`, then the processor): what the
 * installment owes on its due date less the loan's pending debits, from the loan's default method,
 * under `autopayKey` for the setting's client. None is taken when one was under that key (whatever
 * it became), when the loan is no longer `ACTIVE`, or when the installment owes nothing more (paid
 * ahead, or pending debits cover it). A default method autopay may not debit (a card, a blocked
 * account) gives a `FAILED` payment (`payment_method_unusable`, `payment.failed`), so the partner
 * learns of it; the setting stays. Answers the payment taken.
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
          const key = autopayKey(due.loanId, due.dueDate)
          const none: Change<O.Option<Payment>> = { posting: nothing(locked), result: O.none }
          if (locked.loan.status !== 'ACTIVE') return TE.right(none)
          const date = postingDate(locked.loan, now, locked.latest)
          return pipe(
            reads.paymentByKey(due.clientId, key),
            TE.chainW((taken) =>
              O.isSome(taken)
                ? TE.right(none)
                : pipe(
                    // Loaded for the earlier of the posting date and the due date: both are derived from it.
                    loadFor(locked, reads, { type: 'TIME' }, due.dueDate < date ? due.dueDate : date),
                    TE.chainW((loaded): TE.TaskEither<AutopayDebitError, Change<O.Option<Payment>>> => {
                      const amount = owedFor(loaded, due.dueDate)
                      if (amount === 0) return TE.right(none)
                      if (!debitable(method)) {
                        const payment: Payment = {
                          id: newId<PaymentId>(deps.ids),
                          loanId: due.loanId,
                          clientId: due.clientId,
                          idempotencyKey: key,
                          paymentMethodId: method.id,
                          amount,
                          currency: locked.loan.currency,
                          effectiveDate: date,
                          createdAt: now,
                          status: 'PENDING',
                          failureCode: null,
                          allocation: null,
                          perInstallment: [],
                          transactionId: null,
                        }
                        const failed = failedPayment(locked, payment, 'payment_method_unusable', deps.ids, now)
                        return TE.right({ posting: failed.posting, result: O.some(failed.result) })
                      }
                      const order = { clientId: due.clientId, idempotencyKey: key, amount, currency: locked.loan.currency, paymentMethodId: method.id, ids: deps.ids }
                      return pipe(
                        TE.fromEither(planPayment(O.some(loaded), O.none, order, O.some(method), now)),
                        TE.chainW((plan) => (plan._tag === 'Replay' ? TE.right(plan.change) : charge(deps.processor, plan, deps.ids))),
                        TE.map((change) => ({ posting: change.posting, result: O.some(change.result) })),
                      )
                    }),
                  ),
            ),
          )
        }),
      ),
    )

