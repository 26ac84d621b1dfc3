import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Caller } from '../../domain/keys/api-key.js'
import { utcDate } from '../../domain/foundations/instant.js'
import { commandOf } from '../../domain/foundations/path-parameters.js'
import { decodePartyCommand } from '../api-keys/authorize.js'
import { checkNotExpired, PaymentMethodInput, type PaymentMethod } from '../../domain/loans/payment-method.js'
import type { ProcessorUnavailable } from '../../ports/payment-processor.js'
import { loadOwnLoan, type LoanReadError } from './loan-reads.js'
import { newId, type PaymentMethodId } from '../../domain/foundations/ids.js'
import type { PaymentMethodDeps } from './payment-method-deps.js'

const CreateMethodCommand = commandOf(['partyId', 'loanId'], PaymentMethodInput)

/** A new method, with its account's numbers sealed when it is a bank account and a seal is configured. */
type Sealed = { readonly method: PaymentMethod; readonly sealedAccount: string | null }

/**
 * Registers a payment method on the loan `loanId` of the party `partyId`; the rest of the command
 * is `PaymentMethodInput`. A bank account is tokenised at once (the method keeps the token and last
 * four; `ProcessorUnavailable` if the tokenizer cannot be reached), and its numbers are kept only
 * sealed (`AccountSeal`), apart from the method, when a seal is configured; an expired card is
 * refused. The loan's first method is its default. Not idempotent: each call adds a method.
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
                  const card: PaymentMethod = {
                    ...base,
                    type: 'card',
                    token: cmd.card_token,
                    last4: cmd.last4,
                    accountHolderName: null,
                    accountType: null,
                    brand: cmd.brand ?? null,
                    expMonth: cmd.exp_month,
                    expYear: cmd.exp_year,
                  }
                  return TE.right<ProcessorUnavailable, Sealed>({ method: card, sealedAccount: null })
                }
                const account = { routingNumber: cmd.routing_number, accountNumber: cmd.account_number }
                return pipe(
                  deps.tokenizer.tokenizeBankAccount(account),
                  TE.map(({ token, last4 }): Sealed => {
                    const bankAccount: PaymentMethod = {
                      ...base,
                      type: 'bank_account',
                      token,
                      last4,
                      accountHolderName: cmd.account_holder_name,
                      accountType: cmd.account_type ?? 'checking',
                      brand: null,
                      expMonth: null,
                      expYear: null,
                    }
                    return { method: bankAccount, sealedAccount: deps.accountSeal === undefined ? null : deps.accountSeal.seal(base.id, account) }
                  }),
                )
              }),
            ),
          ),
          TE.chainFirstW(({ method, sealedAccount }) => deps.paymentMethods.insert(method, sealedAccount)),
          TE.map(({ method }) => method),
        ),
      ),
    )
