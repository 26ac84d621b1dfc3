import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Caller } from '../../domain/keys/api-key.js'
import { decode, merged } from '../../domain/foundations/codecs.js'
import { invalidRequest, notFound } from '../../domain/foundations/errors.js'
import { commandOf, pathParameters } from '../../domain/foundations/path-parameters.js'
import { decodePartyCommand } from '../api-keys/authorize.js'
import { PaymentMethodPatch, type PaymentMethod } from '../../domain/loans/payment-method.js'
import { loadOwnLoan, type LoanReadError } from './loan-reads.js'
import type { PaymentMethodDeps } from './payment-method-deps.js'

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
