import { createServer, type IncomingMessage } from 'node:http'
import { performance } from 'node:perf_hooks'
import { Webhook } from 'standardwebhooks'

export type Delivery = { readonly webhookId: string; readonly sessionId: string; readonly at: number }

export type Receiver = {
  readonly url: string
  /** Verification codes the API delivered, newest last (`VERIFICATION_DELIVERY_URL`). */
  readonly codes: Record<string, unknown>[]
  /** Every `party.ready` delivery with a valid signature, in arrival order (`performance.now()`). */
  readonly deliveries: Delivery[]
  /** Deliveries whose signature did not verify. */
  readonly forged: () => number
  /** Resolves when a delivery for `sessionId` has arrived (at once if it already has). */
  readonly deliveredFor: (sessionId: string) => Promise<Delivery>
  readonly close: () => Promise<void>
}

const read = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/**
 * A local partner backend: takes verification codes at `/codes` and signed webhooks at
 * `/hooks`, checking each signature with `webhookSecret` the way a partner would.
 */
export const startReceiver = async (webhookSecret: string): Promise<Receiver> => {
  const verifier = new Webhook(webhookSecret)
  const codes: Record<string, unknown>[] = []
  const deliveries: Delivery[] = []
  const bySession = new Map<string, Delivery>()
  const waiting = new Map<string, (d: Delivery) => void>()
  let forged = 0
  const server = createServer(async (req, res) => {
    const body = await read(req)
    if (req.url === '/codes') codes.push(JSON.parse(body) as Record<string, unknown>)
    else if (req.url === '/hooks') {
      const at = performance.now()
      try {
        const event = verifier.verify(body, req.headers as Record<string, string>) as { data: { session_id: string } }
        const delivery = { webhookId: String(req.headers['webhook-id']), sessionId: event.data.session_id, at }
        deliveries.push(delivery)
        if (!bySession.has(delivery.sessionId)) bySession.set(delivery.sessionId, delivery)
        waiting.get(delivery.sessionId)?.(delivery)
        waiting.delete(delivery.sessionId)
      } catch {
        forged += 1
      }
    }
    res.statusCode = 204
    res.end()
  })
  server.keepAliveTimeout = 5_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    codes,
    deliveries,
    forged: () => forged,
    deliveredFor: (sessionId) => {
      const done = bySession.get(sessionId)
      return done !== undefined ? Promise.resolve(done) : new Promise((resolve) => waiting.set(sessionId, resolve))
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
