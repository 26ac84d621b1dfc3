import * as E from 'fp-ts/lib/Either.js'
import type { ChargeOutcome, PaymentProcessor, ProcessorUnavailable } from '../ports/payment-processor.js'

/** What a charge was asked to move. */
export type ChargeRequest = Parameters<PaymentProcessor['charge']>[0]

/** With what it was asked, and a switch to make it unreachable. */
export type FakePaymentProcessor = PaymentProcessor & {
  /** Every charge that moved money, in order (a repeated `idempotencyKey` moves none). */
  readonly charges: () => readonly ChargeRequest[]
  /** Every later charge is `ProcessorUnavailable` with `cause`, recording nothing. */
  readonly down: (cause: unknown) => void
  /** Reachable again. */
  readonly up: () => void
}

/** The test account number whose charges fail with `insufficient_funds` (docs/testing.md "Magic values"). */
export const SANDBOX_INSUFFICIENT_FUNDS_ACCOUNT = '000222222227'

/**
 * A subset of the sandbox rails, chosen by the method's token alone: `btok_`/`tok_insufficient_funds`
 * and `tok_card_declined` fail so; others settle. The adapters' `sandboxPaymentProcessor` answers
 * these tokens the same and adds the rest of docs/testing.md's magic values (other failing
 * accounts, amount triggers).
 */
export const sandboxChargeOutcome = (token: string): ChargeOutcome =>
  token.startsWith('btok_insufficient_funds') || token.startsWith('tok_insufficient_funds')
    ? { status: 'FAILED', failureCode: 'insufficient_funds' }
    : token.startsWith('tok_card_declined')
      ? { status: 'FAILED', failureCode: 'card_declined' }
      : { status: 'SUCCEEDED' }

/**
 * Answers `outcomeOf` each charge (by default as the sandbox does), once per `idempotencyKey` (a
 * repeat answers the first outcome), and records every charge.
 */
export const fakePaymentProcessor = (outcomeOf: (request: ChargeRequest) => ChargeOutcome = (request) => sandboxChargeOutcome(request.token)): FakePaymentProcessor => {
  const charges: ChargeRequest[] = []
  const outcomes = new Map<string, ChargeOutcome>()
  let outage: { readonly cause: unknown } | null = null
  return {
    charges: () => [...charges],
    down: (cause) => {
      outage = { cause }
    },
    up: () => {
      outage = null
    },
    charge: (request) => async () => {
      if (outage !== null) return E.left<ProcessorUnavailable, ChargeOutcome>({ _tag: 'ProcessorUnavailable', cause: outage.cause })
      const first = outcomes.get(request.idempotencyKey)
      if (first !== undefined) return E.right(first)
      const outcome = outcomeOf(request)
      outcomes.set(request.idempotencyKey, outcome)
      charges.push(request)
      return E.right(outcome)
    },
  }
}
