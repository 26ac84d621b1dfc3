import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { PaymentId } from '../domain/foundations/ids.js'

/** Nothing is known to have moved. */
export type ProcessorUnavailable = { readonly _tag: 'ProcessorUnavailable'; readonly cause: unknown }

/**
 * Settled (`SUCCEEDED`), failed with the processor's `failureCode`, or accepted for a rail that
 * moves the money later (`PENDING`: a bank debit waiting for its file; nothing is posted until it
 * is submitted).
 */
export type ChargeOutcome = { readonly status: 'SUCCEEDED' } | { readonly status: 'PENDING' } | { readonly status: 'FAILED'; readonly failureCode: string }

/**
 * Debits a tokenised bank account or card once per `idempotencyKey`: a request repeating a key
 * moves nothing more and answers the first request's outcome.
 */
export type PaymentProcessor = {
  /** Debits (or accepts to debit) `amount` from the method behind `token`, unless a charge under `idempotencyKey` was made. */
  readonly charge: (request: {
    /** The same for every attempt at one payment: the client's id and its `Idempotency-Key` (`paymentChargeKey`). */
    readonly idempotencyKey: string
    readonly paymentId: PaymentId
    readonly amount: number
    readonly currency: string
    readonly token: string
    /** What the token stands for: a rail is chosen by it (bank debits and cards move differently). */
    readonly methodType: 'bank_account' | 'card'
  }) => TE.TaskEither<ProcessorUnavailable, ChargeOutcome>
}
