import { randomUUID } from 'node:crypto'
import { bearer, type ApiClient } from './api-client.js'
import { approveSession, bookedLoan, expected, mintKey, paymentRequest, submittedSession, type Call, type Operators } from './journeys.js'
import { sleep } from './waiting.js'

/** What the traffic phase saw: every answer by status, and everything that went wrong. */
export type TrafficTally = {
  /** Journeys walked to the end. */
  journeys: number
  readonly statuses: Map<number, number>
  /** Answers with a status the request did not expect (5xx included), and errors of the journeys themselves. */
  readonly unexpected: string[]
  /** Answers with status 500 or above. */
  readonly serverErrors: string[]
  /** Requests that got no answer (the connection failed or was cut, or a timeout). */
  readonly socketErrors: string[]
}

const emptyTally = (): TrafficTally => ({ journeys: 0, statuses: new Map(), unexpected: [], serverErrors: [], socketErrors: [] })

/** Thrown by a recording call to end a journey that met something unexpected (already recorded). */
class JourneyStopped extends Error {}

/** A call that sends each request to a randomly chosen API and records its outcome in `tally`. */
const recordingCall =
  (apis: readonly ApiClient[], tally: TrafficTally): Call =>
  async (method, path, options) => {
    const api = apis[Math.floor(Math.random() * apis.length)] as ApiClient
    const what = `${method} ${path} on ${api.name}`
    let reply
    try {
      reply = await api.send(method, path, options)
    } catch (error) {
      tally.socketErrors.push(`${what}: ${String(error)} ${String((error as { cause?: unknown }).cause ?? '')}`)
      throw new JourneyStopped()
    }
    tally.statuses.set(reply.status, (tally.statuses.get(reply.status) ?? 0) + 1)
    if (reply.status >= 500) tally.serverErrors.push(`${what}: ${reply.status} ${reply.text}`)
    if (!expected(options).includes(reply.status)) {
      tally.unexpected.push(`${what}: expected ${String(options.expect)}, got ${reply.status} ${reply.text}`)
      throw new JourneyStopped()
    }
    return reply
  }

/**
 * One borrower from a partner's first request to its payments, as the README walks it, with
 * the reads and refusals a real integration meets on the way: the partner mints a fresh key
 * (rotation: the same client), onboards, the operator approves, a key of the borrower's party
 * applies, the operator books the loan, then a bank account, three payments (one sent twice
 * with its Idempotency-Key), an overpayment (refused) and the servicing reads.
 */
const borrowerJourney = async (call: Call, ops: Operators, partner: { readonly partyId: string; readonly clientName: string }): Promise<void> => {
  const { apiKey } = await mintKey(call, ops, partner.partyId, partner.clientName)
  const sessionId = await submittedSession(call, ops, apiKey, { detours: true })
  const partyId = await approveSession(call, ops, sessionId)
  await call('GET', `/public/onboarding-sessions/${sessionId}/party`, { headers: bearer(apiKey), expect: 200 })

  const borrowerKey = (await mintKey(call, ops, partyId, 'borrower')).apiKey
  const borrower = bearer(borrowerKey)
  await call('GET', `/public/parties/${partyId}`, { headers: borrower, expect: 200 })
  await call('GET', `/public/parties/${partyId}/available-loan-products`, { headers: borrower, expect: 200 })
  const loan = await bookedLoan(call, ops, borrowerKey, partyId)
  for (const amount of [25_000, 10_000, 5_000]) {
    const payment = paymentRequest(loan, amount)
    const send = () => call('POST', `${loan.path}/payments`, { headers: { ...borrower, 'idempotency-key': payment.idempotencyKey }, json: payment.body, expect: 201 })
    await send()
    if (amount === 10_000) await send()
    await call('GET', `${loan.path}/balances/latest`, { headers: borrower, expect: 200 })
  }
  const overpayment = paymentRequest(loan, 100_000_000)
  await call('POST', `${loan.path}/payments`, { headers: { ...borrower, 'idempotency-key': overpayment.idempotencyKey }, json: overpayment.body, expect: 422 })
  for (const read of ['payments', 'schedule', 'transactions', 'payoff', 'balances']) await call('GET', `${loan.path}/${read}`, { headers: borrower, expect: 200 })
  await call('GET', `/public/parties/${partyId}/loans`, { headers: borrower, expect: 200 })
}

/**
 * `partners` partners, each walking borrower journeys one after another until `ms` have passed
 * (a journey under way then is finished), every request to a randomly chosen API.
 */
export const runTraffic = async (apis: readonly ApiClient[], ops: Operators, partners: number, ms: number): Promise<TrafficTally> => {
  const tally = emptyTally()
  const call = recordingCall(apis, tally)
  const until = Date.now() + ms
  const partner = async (index: number): Promise<void> => {
    const identity = { partyId: randomUUID(), clientName: `fleet-partner-${index}` }
    while (Date.now() < until) {
      try {
        await borrowerJourney(call, ops, identity)
        tally.journeys += 1
      } catch (error) {
        if (!(error instanceof JourneyStopped)) tally.unexpected.push(`partner ${index}: ${String(error)}`)
        await sleep(200)
      }
    }
  }
  await Promise.all(Array.from({ length: partners }, (_, i) => partner(i)))
  return tally
}
