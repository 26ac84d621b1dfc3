import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { AuditEvent } from '../domain/audit/audit-event.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'
import type { PageRequest } from '../domain/foundations/pagination.js'
import type { PaymentMethod } from '../domain/loans/payment-method.js'
import type { OfPartyLoan } from './loan-repository.js'
import type { LoanId, PartyId, PaymentMethodId } from '../domain/foundations/ids.js'

/** A bank account as a correction was decided on: its `last4`, type and sealed numbers (null: none kept). */
export type AccountAsDecided = { readonly last4: string; readonly accountType: 'checking' | 'savings' | null; readonly sealed: string | null }

/**
 * A loan's payment methods; writing one with `isDefault` unmarks the others in the same
 * transaction. A bank account's sealed numbers (`AccountSeal`) are kept apart from the method's
 * row, never read with it.
 */
export type PaymentMethodRepository = {
  /** Unmarks the others if it is the default; keeps `sealedAccount` (a bank account's sealed numbers) with it, in the same transaction. */
  readonly insert: (method: PaymentMethod, sealedAccount: string | null) => TE.TaskEither<StoreUnavailable, void>
  /**
   * The sealed numbers a new debit of the method may use: none for a card, a bank account added
   * while no seal was configured, or a `blocked` method. (A file being built reads those of its
   * entries with `AchOriginations.debitsOf`, whatever became of the method since.)
   */
  readonly sealedAccount: (id: PaymentMethodId) => TE.TaskEither<StoreUnavailable, O.Option<string>>
  /**
   * Marks the method `blocked` (updated `at`): no new debit may use the account (`sealedAccount`
   * answers none), and the borrower gives a new authorization by adding it again. Its sealed numbers
   * stay for the files that hold its debits already. Repeatable: a blocked method is left as it is.
   */
  readonly block: (id: PaymentMethodId, at: Date) => TE.TaskEither<StoreUnavailable, void>
  /**
   * A bank account corrected by its bank (a notice of change), if it still is as `before` (its
   * `last4`, `accountType` and sealed numbers when the correction was decided): the method's
   * `last4`, `accountType` and `updatedAt` as `method` has them, its sealed numbers replaced by
   * `sealedAccount` (kept when null), and `audit` recorded, in one transaction under the method's
   * lock. False, writing nothing, when the account changed since: a correction decided twice at
   * once is written once.
   */
  readonly correct: (method: PaymentMethod, sealedAccount: string | null, audit: AuditEvent, before: AccountAsDecided) => TE.TaskEither<StoreUnavailable, boolean>
  /** Nickname and default flag. */
  readonly update: (method: PaymentMethod) => TE.TaskEither<StoreUnavailable, void>
  /** The loan's default method (`isDefault`); none when it has no method. */
  readonly defaultForLoan: (loanId: LoanId) => TE.TaskEither<StoreUnavailable, O.Option<PaymentMethod>>
  /** None if not the loan's. */
  readonly findForLoan: (loanId: LoanId, id: PaymentMethodId) => TE.TaskEither<StoreUnavailable, O.Option<PaymentMethod>>
  /** None when the loan is not the party's or does not exist (one read: decision 59). */
  readonly listForPartyLoan: (partyId: PartyId, loanId: LoanId, page: PageRequest) => OfPartyLoan<readonly PaymentMethod[]>
  /** How many methods the loan has. */
  readonly countForLoan: (loanId: LoanId) => TE.TaskEither<StoreUnavailable, number>
}
