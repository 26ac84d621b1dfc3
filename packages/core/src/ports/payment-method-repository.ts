import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'
import type { PageRequest } from '../domain/foundations/pagination.js'
import type { PaymentMethod } from '../domain/loans/payment-method.js'
import type { OfPartyLoan } from './loan-repository.js'
import type { LoanId, PartyId, PaymentMethodId } from '../domain/foundations/ids.js'

/**
 * A loan's payment methods. Exactly one is the default: writing a method with `isDefault`
 * unmarks the loan's other methods in the same transaction.
 */
export type PaymentMethodRepository = {
  /** Stores a new method (unmarking the others if it is the default). */
  readonly insert: (method: PaymentMethod) => TE.TaskEither<StoreUnavailable, void>
  /** Writes the method's nickname and default flag (unmarking the others if it becomes the default). */
  readonly update: (method: PaymentMethod) => TE.TaskEither<StoreUnavailable, void>
  /** The method `id` if it belongs to the loan `loanId`. */
  readonly findForLoan: (loanId: LoanId, id: PaymentMethodId) => TE.TaskEither<StoreUnavailable, O.Option<PaymentMethod>>
  /**
   * One page of the methods of the party's loan, in `(createdAt, id)` order, at most
   * `page.limit + 1` rows; none when the loan is not the party's or does not exist (one read,
   * as the loan's other records: decision 59).
   */
  readonly listForPartyLoan: (partyId: PartyId, loanId: LoanId, page: PageRequest) => OfPartyLoan<readonly PaymentMethod[]>
  /** How many methods the loan has. */
  readonly countForLoan: (loanId: LoanId) => TE.TaskEither<StoreUnavailable, number>
}
