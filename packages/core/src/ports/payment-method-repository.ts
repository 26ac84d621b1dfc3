import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'
import type { PageRequest } from '../domain/foundations/pagination.js'
import type { PaymentMethod } from '../domain/loans/payment-method.js'
import type { OfPartyLoan } from './loan-repository.js'
import type { LoanId, PartyId, PaymentMethodId } from '../domain/foundations/ids.js'

/**
 * A loan's payment methods; writing one with `isDefault` unmarks the others in the same
 * transaction. A bank account's sealed numbers (`AccountSeal`) are kept apart from the method's
 * row, never read with it.
 */
export type PaymentMethodRepository = {
  /** Unmarks the others if it is the default; keeps `sealedAccount` (a bank account's sealed numbers) with it, in the same transaction. */
  readonly insert: (method: PaymentMethod, sealedAccount: string | null) => TE.TaskEither<StoreUnavailable, void>
  /** The sealed numbers kept with the method; none for a card, or a bank account added while no seal was configured. */
  readonly sealedAccount: (id: PaymentMethodId) => TE.TaskEither<StoreUnavailable, O.Option<string>>
  /** Nickname and default flag. */
  readonly update: (method: PaymentMethod) => TE.TaskEither<StoreUnavailable, void>
  /** None if not the loan's. */
  readonly findForLoan: (loanId: LoanId, id: PaymentMethodId) => TE.TaskEither<StoreUnavailable, O.Option<PaymentMethod>>
  /** None when the loan is not the party's or does not exist (one read: decision 59). */
  readonly listForPartyLoan: (partyId: PartyId, loanId: LoanId, page: PageRequest) => OfPartyLoan<readonly PaymentMethod[]>
  /** How many methods the loan has. */
  readonly countForLoan: (loanId: LoanId) => TE.TaskEither<StoreUnavailable, number>
}
