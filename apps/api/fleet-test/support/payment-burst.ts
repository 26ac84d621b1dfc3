import { bearer, type ApiClient, type Reply } from './api-client.js'
import { allPages, sendPayment, type Call, type PaymentRequest } from './journeys.js'
import { sleep } from './waiting.js'

/** What became of one payment request of the burst: its answer, or none (the connection failed or was cut). */
export type PaymentOutcome = { readonly request: PaymentRequest; readonly reply: Reply | undefined }

/**
 * Sends every payment to `api`, `concurrency` at a time, each once; `onAnswer` is told how many
 * have been answered so far (to pick the moment of a kill).
 */
export const burst = async (
  api: ApiClient,
  borrowerKey: string,
  requests: readonly PaymentRequest[],
  concurrency: number,
  onAnswer: (answered: number) => void,
): Promise<PaymentOutcome[]> => {
  const queue = [...requests]
  const outcomes: PaymentOutcome[] = []
  let answered = 0
  const client = async (): Promise<void> => {
    for (let request = queue.shift(); request !== undefined; request = queue.shift()) {
      const reply = await sendPayment(api, borrowerKey, request).catch(() => undefined)
      outcomes.push({ request, reply })
      if (reply !== undefined) onAnswer((answered += 1))
    }
  }
  await Promise.all(Array.from({ length: concurrency }, client))
  return outcomes
}

const IN_USE_RETRY_MS = 3_000

/**
 * Sends a payment again, as a client that lost the answer does: while the key is still claimed
 * by the request a crash cut short (409 `idempotency_key_in_use`, until the claim's lease ends)
 * it waits and tries again, for at most `ms`. Returns the last answer.
 */
export const replayUntilSettled = async (api: ApiClient, borrowerKey: string, request: PaymentRequest, ms: number): Promise<Reply> => {
  const deadline = Date.now() + ms
  for (;;) {
    const reply = await sendPayment(api, borrowerKey, request)
    if (reply.status !== 409 || reply.body?.error !== 'idempotency_key_in_use' || Date.now() > deadline) return reply
    await sleep(IN_USE_RETRY_MS)
  }
}

export type LoanRecords = {
  readonly payments: readonly { readonly payment_id: string; readonly status: string; readonly amount: number }[]
  readonly transactions: readonly { readonly type: string; readonly payment_id: string | null; readonly principal: number; readonly interest: number; readonly fees: number }[]
  /** The latest balance snapshot (the last of the history). */
  readonly latestSnapshot: { readonly principal_outstanding: number; readonly interest_outstanding: number; readonly fees_outstanding: number }
}

/** A loan's payments, ledger and latest balance snapshot, every page of each. */
export const loanRecords = async (call: Call, borrowerKey: string, loanPath: string): Promise<LoanRecords> => {
  const as = bearer(borrowerKey)
  const snapshots = await allPages<LoanRecords['latestSnapshot']>(call, `${loanPath}/balances`, as)
  const latestSnapshot = snapshots.at(-1)
  if (latestSnapshot === undefined) throw new Error(`${loanPath} has no balance snapshot`)
  return {
    payments: await allPages(call, `${loanPath}/payments`, as),
    transactions: await allPages(call, `${loanPath}/transactions`, as),
    latestSnapshot,
  }
}
