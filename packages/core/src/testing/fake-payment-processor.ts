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
 * The outcome of the sandbox rails' documented test amounts (docs/servicing.md "Payments"):
 * minor units ending in 13 fail with `insufficient_funds`, ending in 14 with `card_declined`;
 * every other amount settles at once. The adapters' `sandboxPaymentProcessor` follows the same
 * rule (a test there holds them together).
 */
export const sandboxChargeOutcome = (amount: number): ChargeOutcome =>
  amount % 100 === 13
    ? { status: 'FAILED', failureCode: 'insufficient_funds' }
    : amount % 100 === 14
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
      return E.right(sandboxChargeOutcome(request.amount))
    },
  }
}
