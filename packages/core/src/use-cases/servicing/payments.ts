import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Caller } from '../../domain/keys/api-key.js'
import { NOT_AUDITED, OPERATOR_CONTEXT, paymentReversedEvent, type AuditContext } from '../../domain/audit/audit-event.js'
import { boundedString, decode, strictObject } from '../../domain/foundations/codecs.js'
import {
  idempotencyKeyRequired,
  idempotencyKeyReused,
  invalidRequest,
  invalidState,
  notFound,
  overpayment,
  type IdempotencyKeyRequired,
  type IdempotencyKeyReused,
  type InvalidRequest,
  type InvalidState,
  type NotFound,
  type Overpayment,
  type PartyMismatch,
  type StoreUnavailable,
} from '../../domain/foundations/errors.js'
import type { Loan } from '../../domain/loans/loan.js'
import { derivedOn } from '../../lending/index.js'
import { paymentsFor, post, postingDate, settled } from './posting.js'
import { commandOf } from '../../domain/foundations/path-parameters.js'
import { KeyedPaymentInput, type PaymentInput, type Payment } from '../../domain/loans/payment.js'
import type { PaymentMethod } from '../../domain/loans/payment-method.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { LoanRepository, LockedLoan, PaymentReads, Posting } from '../../ports/loan-repository.js'
import type { PaymentMethodRepository } from '../../ports/payment-method-repository.js'
import type { PaymentProcessor, ProcessorUnavailable } from '../../ports/payment-processor.js'
import { decodePartyCommand } from '../api-keys/authorize.js'
import { listOfOwnLoan, loadOwnLoan, type LoanReadError } from './loans.js'
import type { Page } from '../../domain/foundations/pagination.js'
import { type LoanId, newId, type PaymentId } from '../../domain/foundations/ids.js'

/** Borrower payments and their reversal (docs/servicing.md "Payments"). */

/** What the payment use cases need. */
export type PaymentDeps = {
  readonly loans: LoanRepository
  readonly paymentMethods: Pick<PaymentMethodRepository, 'findForLoan'>
  readonly processor: PaymentProcessor
  readonly ids: IdGenerator
  readonly clock: Clock
}

/**
 * Why a payment is refused: no `idempotency_key` (`IdempotencyKeyRequired`), a key already used for
 * another payment (`IdempotencyKeyReused`), an invalid command (a currency other than the loan's,
 * a method not of the loan), the party's (`PartyMismatch`) or the loan (`NotFound`), more than the
 * payoff (`Overpayment`), a charged-off loan (`InvalidState`), the processor unreachable
 * (`ProcessorUnavailable`: nothing is recorded), or the store.
 */
export type PaymentError =
  | InvalidRequest
  | PartyMismatch
  | NotFound
  | StoreUnavailable
  | Overpayment
  | InvalidState
  | ProcessorUnavailable
  | IdempotencyKeyRequired
  | IdempotencyKeyReused

/**
 * Whether a payment already taken under the request's Idempotency-Key is this request's: same
 * loan, amount, currency and payment method. The HTTP layer compares whole requests for 24
 * hours; the key stays on the payment for good, so this holds after that too.
 */
const sameRequest = (existing: Payment, loanId: LoanId, cmd: PaymentInput, method: PaymentMethod): boolean =>
  existing.loanId === loanId && existing.amount === cmd.amount && existing.currency === cmd.currency && existing.paymentMethodId === method.id

/** A posting that writes nothing but (maybe) a payment. */
const nothing = (locked: LockedLoan, payment?: Payment): Posting => ({
  transactions: [],
  installments: locked.installments,
  balance: null,
  audit: NOT_AUDITED,
  payments: payment === undefined ? [] : [payment],
})

const checked = (loan: Loan, method: PaymentMethod, cmd: PaymentInput) =>
  cmd.currency !== loan.currency ? TE.left(invalidRequest(`currency must be ${loan.currency}, the currency of the loan.`, 'currency')) : TE.right(method)

/** A payment's command: the loan (`partyId`, `loanId`), the payment and its `idempotency_key`. */
const PaymentCommand = commandOf(['partyId', 'loanId'], KeyedPaymentInput)

/** The command's `idempotency_key`, if it has one (of any form: the codec judges that). */
const idempotencyKeyOf = (command: unknown): unknown =>
  typeof command === 'object' && command !== null ? (command as Record<string, unknown>)['idempotency_key'] : undefined

/**
 * Takes a payment on the loan `loanId` of the party `partyId`; the rest of the command is
 * `PaymentInput` and the `idempotency_key`. Under the loan's lock, interest due by today is
 * accrued, the amount is checked against the payoff, charged through the processor, allocated by
 * the waterfall and posted (ledger entry, installments, snapshot, payment) in one transaction. A
 * declined charge is recorded as a `FAILED` payment and changes no balance. Idempotent: the same
 * client and `idempotency_key` always give the same payment, and a different payment (another
 * loan, amount, currency or method) under a key already used is `IdempotencyKeyReused`, however
 * long ago the key was used.
 */
export const createPaymentIntentForPartyLoan =
  (deps: PaymentDeps) =>
  (caller: Caller, command: unknown): TE.TaskEither<PaymentError, Payment> =>
    pipe(
      TE.fromOption((): PaymentError => idempotencyKeyRequired)(O.fromNullable(idempotencyKeyOf(command))),
      TE.chainW(() =>
        pipe(
          TE.fromEither(decodePartyCommand(PaymentCommand)(caller, command)),
          TE.chainW((cmd) =>
            pipe(
              loadOwnLoan(deps.loans)(caller, command),
              TE.chainW((loan) =>
                pipe(
                  deps.paymentMethods.findForLoan(loan.id, cmd.payment_method_id),
                  TE.chainW(TE.fromOption(() => invalidRequest(`payment_method_id ${cmd.payment_method_id} is not a payment method of this loan.`, 'payment_method_id'))),
                  TE.chainW((method) => checked(loan, method, cmd)),
                  TE.chainW((method) => deps.loans.change(loan.id, (locked, reads) => takePayment(deps, reads, caller, cmd.idempotency_key, cmd, method, locked))),
                ),
              ),
            ),
          ),
        ),
      ),
    )

const takePayment = (
  deps: PaymentDeps,
  reads: PaymentReads,
  caller: Caller,
  key: string,
  cmd: PaymentInput,
  method: PaymentMethod,
  found: O.Option<LockedLoan>,
): TE.TaskEither<PaymentError, { readonly posting: Posting; readonly result: Payment }> => {
  if (O.isNone(found)) return TE.left(notFound('loan'))
  const locked = found.value
  return pipe(
    reads.paymentByKey(caller.clientId, key),
    TE.chainW((existing): TE.TaskEither<PaymentError, { readonly posting: Posting; readonly result: Payment }> => {
      if (O.isSome(existing)) {
        return sameRequest(existing.value, locked.loan.id, cmd, method) ? TE.right({ posting: nothing(locked), result: existing.value }) : TE.left(idempotencyKeyReused)
      }
      if (locked.loan.status === 'CHARGED_OFF') return TE.left(invalidState('loan', 'CHARGED_OFF', 'pay'))
      const now = deps.clock.now()
      const date = postingDate(locked.loan, now, locked.latest)
      // A payment dated today resumes from the checkpoint as the passing of time to today does.
      return pipe(
        paymentsFor(locked, reads, { type: 'TIME' }, date),
        TE.chainW((payments) => chargeAndPost(deps, locked, payments, caller, key, cmd, method, date, now)),
      )
    }),
  )
}

/** Checks the amount against the payoff on `date`, works out the posting, then charges (docs/servicing.md "Taking a payment"). */
const chargeAndPost = (
  deps: PaymentDeps,
  locked: LockedLoan,
  payments: readonly Payment[] | null,
  caller: Caller,
  key: string,
  cmd: PaymentInput,
  method: PaymentMethod,
  date: string,
  now: Date,
): TE.TaskEither<PaymentError, { readonly posting: Posting; readonly result: Payment }> => {
  const payoff = derivedOn(locked.loan, payments === null ? null : payments.map(settled), date).payoff
  if (cmd.amount > payoff) return TE.left(overpayment(payoff))
  const paymentId = newId<PaymentId>(deps.ids)
  const base = {
    id: paymentId,
    loanId: locked.loan.id,
    clientId: caller.clientId,
    idempotencyKey: key,
    paymentMethodId: method.id,
    amount: cmd.amount,
    currency: cmd.currency,
    effectiveDate: date,
    createdAt: now,
  }
  // The posting of a successful charge is worked out before the money moves: whatever it
  // finds wrong, it finds before anything is charged.
  const { posting, change } = post(locked, payments, { type: 'PAYMENT', payment: settled(base) }, date, { ids: () => deps.ids.next(), now })
  const { allocation, perInstallment, transactionId } = change.allocation!
  const succeeded: Payment = { ...base, status: 'SUCCEEDED', failureCode: null, allocation, perInstallment, transactionId }
  return pipe(
    deps.processor.charge({ paymentId, amount: cmd.amount, currency: cmd.currency, token: method.token }),
    TE.map((outcome) => {
      if (outcome.status === 'FAILED') {
        const failed: Payment = { ...base, status: 'FAILED', failureCode: outcome.failureCode, allocation: null, perInstallment: [], transactionId: null }
        return { posting: nothing(locked, failed), result: failed }
      }
      return { posting: { ...posting, payments: [succeeded, ...posting.payments], audit: NOT_AUDITED }, result: succeeded }
    }),
  )
}

/** The fields of a reversal: optionally a `reason` (1 to 500 characters), kept in the audit event. */
export const ReversePaymentInput = strictObject('ReversePaymentInput', {}, { reason: boundedString('Reason', 1, 500) })
const ReverseCommand = commandOf(['paymentId'], ReversePaymentInput)

/**
 * Reverses the successful payment `paymentId` (an operator's correction; the rest of the command
 * is `ReversePaymentInput`): a `REVERSAL` entry with the opposite signs, the installments' paid
 * amounts undone exactly, a new snapshot; the payment becomes `REVERSED`. Nothing is deleted. The
 * `payment.reversed` audit event is written in the same transaction. A payment that is not
 * `SUCCEEDED` (reversing twice included), or one of a charged-off loan, is `InvalidState`.
 */
export const reverseLoanPayment =
  (deps: Omit<PaymentDeps, 'paymentMethods' | 'processor'>) =>
  (command: unknown, context: AuditContext = OPERATOR_CONTEXT): TE.TaskEither<InvalidRequest | NotFound | InvalidState | StoreUnavailable, Payment> =>
    pipe(
      TE.fromEither(decode(ReverseCommand)(command)),
      TE.map(({ paymentId, reason }) => ({ paymentId, reason: reason ?? null })),
      TE.chainW(({ paymentId, reason }) =>
        pipe(
          deps.loans.payments.paymentById(paymentId),
          TE.chainW(TE.fromOption(() => notFound('payment'))),
          TE.map((payment) => ({ payment, reason })),
        ),
      ),
      TE.chainW(({ payment, reason }) =>
        deps.loans.change(payment.loanId, (found, reads): TE.TaskEither<NotFound | InvalidState | StoreUnavailable, { readonly posting: Posting; readonly result: Payment }> => {
          if (O.isNone(found)) return TE.left(notFound('loan'))
          const locked = found.value
          if (locked.loan.status === 'CHARGED_OFF') return TE.left(invalidState('loan', 'CHARGED_OFF', 'reverse a payment of'))
          return pipe(
            reads.paymentById(payment.id),
            TE.chainW(TE.fromOption(() => notFound('payment'))),
            TE.filterOrElseW(
              (current) => current.status === 'SUCCEEDED' && current.transactionId !== null,
              (current) => invalidState('payment', current.status, 'reverse'),
            ),
            TE.chainW((current) => pipe(reads.succeeded(locked.loan.id), TE.map((payments) => ({ current, payments })))),
            TE.map(({ current, payments }) => {
              const now = deps.clock.now()
              const payment: Payment = { ...current, status: 'REVERSED' }
              const { posting, change } = post(locked, payments, { type: 'REVERSAL', payment: current }, postingDate(locked.loan, now, locked.latest), { ids: () => deps.ids.next(), now })
              const reversal = change.transactions.find((t) => t.type === 'REVERSAL')!
              return {
                posting: {
                  ...posting,
                  payments: [payment, ...posting.payments],
                  audit: paymentReversedEvent(deps.ids.next(), context, payment, locked.loan, reversal.id, reason, now),
                },
                result: payment,
              }
            }),
          )
        }),
      ),
    )

/**
 * The payments of the loan `loanId` of the key's party `partyId`, oldest first, a page at a
 * time, whatever their status: a declined charge (`FAILED`, with its `failureCode`) and a
 * reversed payment (`REVERSED`) stay listed, each with how it was allocated.
 */
export const listPaymentsForPartyLoan = (
  deps: { readonly loans: Pick<LoanRepository, 'listPayments'> },
): ((caller: Caller, command: unknown) => TE.TaskEither<LoanReadError, Page<Payment>>) => listOfOwnLoan((partyId, loanId, page) => deps.loans.listPayments(partyId, loanId, page))
