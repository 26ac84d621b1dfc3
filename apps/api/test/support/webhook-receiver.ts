import { randomUUID } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export type ReceivedWebhook = { readonly headers: IncomingHttpHeaders; readonly body: string }

export type WebhookReceiver = {
  readonly url: string
  /** Every request that arrived, in order, held ones included. */
  readonly received: readonly ReceivedWebhook[]
  /** Resolves with the `n`-th request (1-based) once it has arrived, or fails after `ms`. */
  readonly arrival: (n: number, ms?: number) => Promise<ReceivedWebhook>
  readonly close: () => Promise<void>
}

/**
 * A partner's webhook endpoint: records each request and answers 204. With `holdFirst`, the
 * first request is never answered: while it is held, the sender is in the middle of a delivery.
 * Its URL has a random path: a request for another path (an event of an earlier test whose
 * receiver had this port) is answered 410, which stops its retries, and not recorded.
 */
export const startWebhookReceiver = async (options: { readonly holdFirst?: boolean } = {}): Promise<WebhookReceiver> => {
  const received: ReceivedWebhook[] = []
  const held: ServerResponse[] = []
  const waiting: (() => void)[] = []
  const path = `/lendgate/${randomUUID()}`
  const server = createServer((req, res) => {
    if (req.url !== path) {
      res.statusCode = 410
      res.end()
      return
    }
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString()))
    req.on('end', () => {
      received.push({ headers: req.headers, body })
      for (const wake of waiting.splice(0)) wake()
      if (options.holdFirst === true && received.length === 1) {
        held.push(res)
        return
      }
      res.statusCode = 204
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const arrival = async (n: number, ms = 15_000): Promise<ReceivedWebhook> => {
    const until = Date.now() + ms
    while (received.length < n) {
      const left = until - Date.now()
      if (left <= 0) throw new Error(`webhook request ${n} did not arrive within ${ms} ms (got ${received.length})`)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left)
        waiting.push(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    }
    return received[n - 1]!
  }
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    received,
    arrival,
    close: async () => {
      for (const res of held) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
