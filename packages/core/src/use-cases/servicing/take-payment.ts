import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type * as t from 'io-ts'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Caller } from '../../domain/keys/api-key.js'
import { idempotencyKeyRequired, type IdempotencyKeyRequired, type PartyMismatch, type StoreUnavailable } from '../../domain/foundations/errors.js'
import { commandOf } from '../../domain/foundations/path-parameters.js'
import { KeyedPaymentInput, type Payment } from '../../domain/loans/payment.js'
import type { PaymentMethod } from '../../domain/loans/payment-method.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { Change, LoanRepository, LockedLoan, PaymentReads } from '../../ports/loan-repository.js'
import type { PaymentMethodRepository } from '../../ports/payment-method-repository.js'
import type { PaymentProcessor, ProcessorUnavailable } from '../../ports/payment-processor.js'
import { decodePartyCommand } from '../api-keys/authorize.js'
import { accepted, declined, planPayment, type Charge, type PaymentRefusal } from './plan-payment.js'
import { loadFor, postingDate } from './posting.js'

/** What taking a payment needs. */
export type PaymentDeps = {
  readonly loans: Pick<LoanRepository, 'change'>
  readonly paymentMethods: Pick<PaymentMethodRepository, 'findForLoan'>
  readonly processor: Pick<PaymentProcessor, 'charge'>
  readonly ids: IdGenerator
  readonly clock: Clock
}

/**
 * Why a payment is refused: no `idempotency_key`, a refusal of `planPayment`, the party's
 * (`PartyMismatch`), the processor unreachable (`ProcessorUnavailable`: nothing is recorded), or the store.
 */
export type PaymentError = PaymentRefusal | IdempotencyKeyRequired | PartyMismatch | ProcessorUnavailable | StoreUnavailable

/** A payment's command: the loan (`partyId`, `loanId`), the payment and its `idempotency_key`. */
const PaymentCommand = commandOf(['partyId', 'loanId'], KeyedPaymentInput)

/** Whether the command has an `idempotency_key` (of any form: the codec judges that). */
const hasKey = (command: unknown): boolean =>
  typeof command === 'object' && command !== null && (command as Record<string, unknown>)['idempotency_key'] !== undefined && (command as Record<string, unknown>)['idempotency_key'] !== null

/**
 * The processor's idempotency key of a payment: the same for every attempt under one client's
 * `Idempotency-Key`, so a retry after a charge whose commit failed moves no money twice.
 */
const paymentChargeKey = (payment: Pick<Payment, 'clientId' | 'idempotencyKey'>): string => `${payment.clientId}/${payment.idempotencyKey}`

/** Charges the plan's payment: what a settled charge writes, a charge the rail debits later (`PENDING`), or a declined one. */
export const charge = (processor: PaymentDeps['processor'], plan: Charge, ids: IdGenerator): TE.TaskEither<ProcessorUnavailable, Change<Payment>> => {
  const { id, amount, currency } = plan.succeeded.result
  return pipe(
    processor.charge({ idempotencyKey: paymentChargeKey(plan.succeeded.result), paymentId: id, amount, currency, token: plan.token, methodType: plan.methodType }),
    TE.map((outcome) => (outcome.status === 'FAILED' ? declined(plan, outcome.failureCode, ids) : outcome.status === 'PENDING' ? accepted(plan) : plan.succeeded)),
  )
}

/** A decoded payment command. */
type PaymentCommand = t.TypeOf<typeof PaymentCommand>

/** Under the loan's lock: load (the loan with what its replay needs, the payment under the key), decide, charge. */
const takePayment =
  (deps: PaymentDeps, caller: Caller, cmd: PaymentCommand, method: O.Option<PaymentMethod>) =>
  (found: O.Option<LockedLoan>, reads: PaymentReads): TE.TaskEither<PaymentError, Change<Payment>> => {
    const now = deps.clock.now()
    const order = { clientId: caller.clientId, idempotencyKey: cmd.idempotency_key, amount: cmd.amount, currency: cmd.currency, paymentMethodId: cmd.payment_method_id, ids: deps.ids }
    return pipe(
      found,
      O.traverse(TE.ApplicativeSeq)((locked) => loadFor(locked, reads, { type: 'TIME' }, postingDate(locked.loan, now, locked.latest))),
      TE.bindTo('locked'),
      TE.bind('taken', () => reads.paymentByKey(caller.clientId, cmd.idempotency_key)),
      TE.chainEitherKW(({ locked, taken }) => planPayment(locked, taken, order, method, now)),
      TE.chainW((plan) => (plan._tag === 'Replay' ? TE.right(plan.change) : charge(deps.processor, plan, deps.ids))),
    )
  }

/**
 * Takes a payment on the loan `loanId` of the party `partyId`; the rest of the command is
 * `PaymentInput` and the `idempotency_key`. Load: the loan under its lock (none if not the
 * party's), the payment already under the key, the method. Decide: `planPayment`. Then charge,
 * and commit in the same transaction: a declined charge is a `FAILED` payment that changes no
 * balance, a charge the rail debits later a `PENDING` one. Idempotent: the same client and key always give the same payment.
 */
export const createPaymentIntentForPartyLoan =
  (deps: PaymentDeps) =>
  (caller: Caller, command: unknown): TE.TaskEither<PaymentError, Payment> =>
    pipe(
      TE.fromEither(hasKey(command) ? decodePartyCommand(PaymentCommand)(caller, command) : E.left<PaymentError>(idempotencyKeyRequired)),
      TE.chainW((cmd) =>
        pipe(
          deps.paymentMethods.findForLoan(cmd.loanId, cmd.payment_method_id),
          TE.chainW((method) => deps.loans.change({ loanId: cmd.loanId, partyId: caller.partyId }, takePayment(deps, caller, cmd, method))),
        ),
      ),
    )
