import { bearer, type ApiClient, type Reply } from './api-client.js'
import { paymentRequest, sendPayment, type BookedLoan } from './journeys.js'

/** One request of the traffic: when it went out and came back (`Date.now()`), and what came back. */
export type Answered = {
  readonly what: string
  readonly sentAt: number
  readonly answeredAt: number
  /** 0 when no answer came (the connection failed or was cut). */
  readonly status: number
  /** The error code of a refusal, or the failure of a request without an answer. */
  readonly error: string | undefined
}

/** A payment the API acknowledged (2xx): what must be in the loan's records afterwards. */
export type AcknowledgedPayment = { readonly account: Account; readonly paymentId: string; readonly amount: number }

export type DisruptionTraffic = {
  readonly answers: readonly Answered[]
  readonly acknowledged: readonly AcknowledgedPayment[]
  /** Ends the traffic: each client finishes the request it is sending; resolves once all have. */
  readonly stop: () => Promise<void>
}

/** A borrower's key and one of its loans. */
export type Account = { readonly borrowerKey: string; readonly loan: BookedLoan }

/**
 * `clients` clients, each sending until stopped, one request at a time, to a randomly chosen API:
 * a payment with an Idempotency-Key of its own on its account's loan (each for its own amount,
 * so that a payment in the ledger names the request that made it), then a read of the loan's
 * latest balance. The clients share the accounts in turn (several keys keep each under the rate
 * limit). A client goes straight on after any answer, 5xx included.
 */
export const startDisruptionTraffic = (apis: readonly ApiClient[], accounts: readonly Account[], clients: number): DisruptionTraffic => {
  const answers: Answered[] = []
  const acknowledged: AcknowledgedPayment[] = []
  let running = true
  let nextAmount = 100
  const pick = (): ApiClient => apis[Math.floor(Math.random() * apis.length)] as ApiClient
  const record = async (what: string, send: () => Promise<Reply>): Promise<Reply | undefined> => {
    const sentAt = Date.now()
    try {
      const reply = await send()
      answers.push({ what, sentAt, answeredAt: Date.now(), status: reply.status, error: reply.body?.error })
      return reply
    } catch (error) {
      answers.push({ what, sentAt, answeredAt: Date.now(), status: 0, error: String((error as { cause?: unknown }).cause ?? error) })
      return undefined
    }
  }
  const client = async (index: number): Promise<void> => {
    const { borrowerKey, loan } = accounts[index % accounts.length] as Account
    while (running) {
      const payment = paymentRequest(loan, (nextAmount += 1))
      const api = pick()
      const paid = await record(`POST ${loan.path}/payments on ${api.name}`, () => sendPayment(api, borrowerKey, payment))
      if (paid !== undefined && paid.status >= 200 && paid.status < 300) acknowledged.push({ account: { borrowerKey, loan }, paymentId: paid.body.payment_id as string, amount: payment.body.amount })
      const reader = pick()
      await record(`GET ${loan.path}/balances/latest on ${reader.name}`, () => reader.send('GET', `${loan.path}/balances/latest`, { headers: bearer(borrowerKey) }))
    }
  }
  const done = Promise.all(Array.from({ length: clients }, (_, i) => client(i)))
  return {
    answers,
    acknowledged,
    stop: async () => {
      running = false
      await done
    },
  }
}
