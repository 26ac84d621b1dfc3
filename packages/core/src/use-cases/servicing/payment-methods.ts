import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Caller } from '../../domain/keys/api-key.js'
import { decode, merged } from '../../domain/foundations/codecs.js'
import { invalidRequest, notFound, type InvalidRequest, type NotFound, type StoreUnavailable } from '../../domain/foundations/errors.js'
import { utcDate } from '../../domain/foundations/instant.js'
import type { Page } from '../../domain/foundations/pagination.js'
import { commandOf, pathParameters } from '../../domain/foundations/path-parameters.js'
import { decodePartyCommand } from '../api-keys/authorize.js'
import {
  checkNotExpired,
  PaymentMethodInput,
  PaymentMethodPatch,
  type PaymentMethod,
} from '../../domain/loans/payment-method.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { LoanRepository } from '../../ports/loan-repository.js'
import type { PaymentMethodRepository } from '../../ports/payment-method-repository.js'
import type { ProcessorUnavailable } from '../../ports/payment-processor.js'
import type { PaymentTokenizer } from '../../ports/payment-tokenizer.js'
import { listOfOwnLoan, loadOwnLoan, type LoanReadError } from './loan-reads.js'
import { newId, type PaymentMethodId } from '../../domain/foundations/ids.js'

/** Payment methods of a party's loan (docs/servicing.md "Payment methods"). */

/** What the payment method use cases need. */
export type PaymentMethodDeps = {
  readonly loans: Pick<LoanRepository, 'findForParty'>
  readonly paymentMethods: Pick<PaymentMethodRepository, 'listForPartyLoan' | 'countForLoan' | 'insert' | 'findForLoan' | 'update'>
  readonly tokenizer: Pick<PaymentTokenizer, 'tokenizeBankAccount'>
  readonly ids: IdGenerator
  readonly clock: Clock
}

/** The payment methods of the loan `loanId` of the party `partyId`, oldest first, a page at a time. */
export const listPaymentMethodsForPartyLoan = (
  deps: Pick<PaymentMethodDeps, 'paymentMethods'>,
): ((caller: Caller, command: unknown) => TE.TaskEither<LoanReadError, Page<PaymentMethod>>) => listOfOwnLoan((partyId, loanId, page) => deps.paymentMethods.listForPartyLoan(partyId, loanId, page))

const CreateMethodCommand = commandOf(['partyId', 'loanId'], PaymentMethodInput)

/**
 * Registers a payment method on the loan `loanId` of the party `partyId`; the rest of the command
 * is `PaymentMethodInput`. A bank account is tokenised at once (only the token and last four are
 * kept; `ProcessorUnavailable` if the tokenizer cannot be reached); an expired card is refused. The
 * loan's first method is its default. Not idempotent: each call adds a method.
 */
export const createPaymentMethodForPartyLoan =
  (deps: PaymentMethodDeps) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoanReadError | ProcessorUnavailable, PaymentMethod> =>
    pipe(
      TE.fromEither(decodePartyCommand(CreateMethodCommand)(caller, command)),
      TE.chainEitherKW((cmd) => checkNotExpired(cmd, utcDate(deps.clock.now()))),
      TE.chainW((cmd) =>
        pipe(
          loadOwnLoan(deps.loans)(caller, command),
          TE.chainW((loan) =>
            pipe(
              deps.paymentMethods.countForLoan(loan.id),
              TE.chainW((count) => {
                const now = deps.clock.now()
                const base = { id: newId<PaymentMethodId>(deps.ids), loanId: loan.id, nickname: cmd.nickname ?? null, isDefault: count === 0 || cmd.is_default === true, status: 'active' as const, createdAt: now, updatedAt: now }
                if (cmd.type === 'card') {
                  return TE.right<ProcessorUnavailable, PaymentMethod>({
                    ...base,
                    type: 'card',
                    token: cmd.card_token,
                    last4: cmd.last4,
                    accountHolderName: null,
                    accountType: null,
                    brand: cmd.brand ?? null,
                    expMonth: cmd.exp_month,
                    expYear: cmd.exp_year,
                  })
                }
                return pipe(
                  deps.tokenizer.tokenizeBankAccount({ routingNumber: cmd.routing_number, accountNumber: cmd.account_number }),
                  TE.map(
                    ({ token, last4 }): PaymentMethod => ({
                      ...base,
                      type: 'bank_account',
                      token,
                      last4,
                      accountHolderName: cmd.account_holder_name,
                      accountType: cmd.account_type ?? 'checking',
                      brand: null,
                      expMonth: null,
                      expYear: null,
                    }),
                  ),
                )
              }),
            ),
          ),
          TE.chainFirstW(deps.paymentMethods.insert),
        ),
      ),
    )

const UpdateMethodCommand = commandOf(['partyId', 'loanId', 'paymentMethodId'], PaymentMethodPatch)

/**
 * Changes the nickname (`null` clears it) of the method `paymentMethodId` of the loan `loanId`, or
 * makes it the default (which unmarks the others), by the merge patch in the rest of the command
 * (`PaymentMethodPatch`). Unmarking the default is refused: make another method the default instead.
 * The identifiers are checked before anything is looked up.
 */
export const updatePaymentMethodForPartyLoan =
  (deps: Omit<PaymentMethodDeps, 'tokenizer' | 'ids'>) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoanReadError, PaymentMethod> =>
    pipe(
      TE.fromEither(decodePartyCommand(pathParameters('loanId', 'paymentMethodId'))(caller, command)),
      TE.chainW(({ paymentMethodId }) =>
        pipe(
          loadOwnLoan(deps.loans)(caller, command),
          TE.chainW((loan) => deps.paymentMethods.findForLoan(loan.id, paymentMethodId)),
          TE.chainW(TE.fromOption(() => notFound('payment_method'))),
        ),
      ),
      TE.chainW((method) =>
        pipe(
          TE.fromEither(decode(UpdateMethodCommand)(command)),
          TE.filterOrElseW(
            (patch) => !(patch.is_default === false && method.isDefault),
            () => invalidRequest('A loan always has one default payment method: make another method the default instead.', 'is_default'),
          ),
          TE.map(
            (patch): PaymentMethod => ({
              ...method,
              nickname: merged(patch.nickname, method.nickname),
              isDefault: merged(patch.is_default, method.isDefault),
              updatedAt: deps.clock.now(),
            }),
          ),
        ),
      ),
      TE.chainFirstW(deps.paymentMethods.update),
    )
