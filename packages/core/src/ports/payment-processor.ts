import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { PaymentId } from '../domain/foundations/ids.js'

/** The processor could not be reached or answered nonsense: nothing is known to have moved. */
export type ProcessorUnavailable = { readonly _tag: 'ProcessorUnavailable'; readonly cause: unknown }

/** What the processor decided: the money moved, or it did not, with the processor's `failureCode`. */
export type ChargeOutcome = { readonly status: 'SUCCEEDED' } | { readonly status: 'FAILED'; readonly failureCode: string }

/**
 * Moves a borrower's money: a debit of a tokenised bank account or card.
 *
 * @property charge - Debits `amount` (minor units of `currency`) from the method behind `token`, once per `paymentId`.
 */
export type PaymentProcessor = {
  readonly charge: (request: {
    readonly paymentId: PaymentId
    readonly amount: number
    readonly currency: string
    readonly token: string
  }) => TE.TaskEither<ProcessorUnavailable, ChargeOutcome>
}
