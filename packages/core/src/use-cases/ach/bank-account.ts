import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { StoreUnavailable } from '../../domain/foundations/errors.js'
import type { PaymentMethodId } from '../../domain/foundations/ids.js'
import type { AccountSeal, BankAccountNumbers } from '../../ports/account-seal.js'
import type { PaymentMethodRepository } from '../../ports/payment-method-repository.js'

/** A bank account's sealed numbers that do not open: sealed under another key, or altered. Nothing can be debited from it until it is added again. */
export type AccountUnreadable = { readonly _tag: 'AccountUnreadable'; readonly paymentMethodId: PaymentMethodId }

/** What reading a bank account's numbers needs. */
export type BankAccountDeps = {
  readonly paymentMethods: Pick<PaymentMethodRepository, 'sealedAccount'>
  readonly accountSeal: Pick<AccountSeal, 'open'>
}

/**
 * The numbers of the bank account behind payment method `id`, opened from their seal: none for a
 * card or an account added while no seal was configured. Only a bank file's writer reads them.
 */
export const bankAccountOf =
  (deps: BankAccountDeps) =>
  (id: PaymentMethodId): TE.TaskEither<StoreUnavailable | AccountUnreadable, O.Option<BankAccountNumbers>> =>
    pipe(
      deps.paymentMethods.sealedAccount(id),
      TE.chainEitherKW(
        O.match(
          () => E.right(O.none),
          (sealed) =>
            pipe(
              deps.accountSeal.open(id, sealed),
              O.match(
                (): E.Either<AccountUnreadable, O.Option<BankAccountNumbers>> => E.left({ _tag: 'AccountUnreadable', paymentMethodId: id }),
                (account) => E.right(O.some(account)),
              ),
            ),
        ),
      ),
    )
