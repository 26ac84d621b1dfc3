import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { PaymentId } from '../domain/ids.js'

/** The processor could not be reached or answered nonsense: nothing is known to have moved. */
export type ProcessorUnavailable = { readonly _tag: 'ProcessorUnavailable'; readonly cause: unknown }

export type ChargeOutcome = { readonly status: 'SUCCEEDED' } | { readonly status: 'FAILED'; readonly failureCode: string }

/** Moves a borrower's money: a debit of a tokenised bank account or card. */
export type PaymentProcessor = {
  readonly charge: (request: {
    readonly paymentId: PaymentId
    readonly amount: number
    readonly currency: string
    readonly token: string
  }) => TE.TaskEither<ProcessorUnavailable, ChargeOutcome>
}
