import * as E from 'fp-ts/lib/Either.js'
import type { ChargeOutcome, PaymentProcessor, ProcessorUnavailable } from '../ports/payment-processor.js'

/** What a charge was asked to move. */
export type ChargeRequest = Parameters<PaymentProcessor['charge']>[0]

/** The sandbox-like processor, with what it was asked and a switch to make it unreachable. */
export type FakePaymentProcessor = PaymentProcessor & {
  /** Every charge that reached the processor (none while it is down), in order. */
  readonly charges: () => readonly ChargeRequest[]
  /** From now on every charge is `ProcessorUnavailable` with `cause`, and nothing is recorded. */
  readonly down: (cause: unknown) => void
  /** Reachable again. */
  readonly up: () => void
}

/**
 * The bank account number the sandbox's test methods (docs/servicing.md "Sandbox payment
 * methods") make fail: its token starts `btok_insufficient_funds`, and every charge of it fails
 * with `insufficient_funds`.
 */
export const SANDBOX_INSUFFICIENT_FUNDS_ACCOUNT = '000111111113'

/**
 * The outcome of a charge on the sandbox rails, chosen by the payment method, never by the
 * amount: a method whose token starts `btok_insufficient_funds` or `tok_insufficient_funds`
 * fails with `insufficient_funds`, one whose token starts `tok_card_declined` with
 * `card_declined`; every other settles at once. The adapters' `sandboxPaymentProcessor` follows
 * the same rule (a test there holds them together).
 */
export const sandboxChargeOutcome = (token: string): ChargeOutcome =>
  token.startsWith('btok_insufficient_funds') || token.startsWith('tok_insufficient_funds')
    ? { status: 'FAILED', failureCode: 'insufficient_funds' }
    : token.startsWith('tok_card_declined')
      ? { status: 'FAILED', failureCode: 'card_declined' }
      : { status: 'SUCCEEDED' }

/** A `PaymentProcessor` in memory that answers like the sandbox (`sandboxChargeOutcome`) and records every charge. */
export const fakePaymentProcessor = (): FakePaymentProcessor => {
  const charges: ChargeRequest[] = []
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
      charges.push(request)
      return E.right(sandboxChargeOutcome(request.token))
    },
  }
}
