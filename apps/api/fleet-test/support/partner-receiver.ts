import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import { sleep } from './waiting.js'

/**
 * A `party.ready` delivery whose signature verified against its session's endpoint secret, and
 * the sender's end of the connection it came on.
 */
export type Delivery = { readonly sessionId: string; readonly webhookId: string; readonly type: string; readonly partyId: string; readonly senderPort: number }

/**
 * A partner's backend as the fleet sees it: verification codes arrive at `/codes`
 * (`VERIFICATION_DELIVERY_URL`) and each session's webhooks at `/hooks/<sessionId>`.
 */
export type PartnerReceiver = {
  /** The port it listens on (127.0.0.1). */
  readonly port: number
  readonly codesUrl: string
  readonly webhookUrlFor: (sessionId: string) => string
  /** The code last sent for a session's phone or email (waits a little for it). */
  readonly codeFor: (sessionId: string, channel: 'phone' | 'email') => Promise<string>
  /** The signing secret a session's endpoint was registered with: its deliveries are verified against it. */
  readonly expectSignedWith: (sessionId: string, secret: string) => void
  /** Every verified delivery, in arrival order (redeliveries included). */
  readonly deliveries: readonly Delivery[]
  /** Requests to `/hooks/…` that did not verify, each with the reason. */
  readonly refused: readonly string[]
  /** The sessions that have had at least one verified delivery. */
  readonly deliveredSessions: () => ReadonlySet<string>
  /**
   * From now on, webhook requests are received (and recorded) but not answered, so their
   * senders stay in the middle of delivering them; `held` lists them.
   */
  readonly holdAnswers: () => void
  readonly held: () => readonly Delivery[]
  /** Answers the held requests (204) and answers at once again. */
  readonly releaseAnswers: () => void
  readonly close: () => Promise<void>
}

const bodyOf = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

type Code = { readonly session_id: string; readonly channel: string; readonly code: string }

export const startPartnerReceiver = async (): Promise<PartnerReceiver> => {
  const codes: Code[] = []
  const verifiers = new Map<string, Webhook>()
  const deliveries: Delivery[] = []
  const delivered = new Set<string>()
  const refused: string[] = []

  let holding = false
  const held: { readonly delivery: Delivery; readonly res: ServerResponse }[] = []

  const receiveWebhook = (sessionId: string, req: IncomingMessage, body: string): Delivery | undefined => {
    const verifier = verifiers.get(sessionId)
    if (verifier === undefined) {
      refused.push(`a delivery for session ${sessionId}, which registered no secret`)
      return undefined
    }
    try {
      const headers = { 'webhook-id': String(req.headers['webhook-id']), 'webhook-timestamp': String(req.headers['webhook-timestamp']), 'webhook-signature': String(req.headers['webhook-signature']) }
      const event = verifier.verify(body, headers) as { type: string; data: { session_id: string; party_id: string } }
      if (event.data.session_id !== sessionId) {
        refused.push(`session ${sessionId}'s endpoint got an event of session ${event.data.session_id}`)
        return undefined
      }
      const delivery = { sessionId, webhookId: headers['webhook-id'], type: event.type, partyId: event.data.party_id, senderPort: req.socket.remotePort ?? 0 }
      deliveries.push(delivery)
      delivered.add(sessionId)
      return delivery
    } catch (error) {
      refused.push(`session ${sessionId}: ${String(error)}`)
      return undefined
    }
  }

  const server = createServer(async (req, res) => {
    const body = await bodyOf(req)
    const hook = /^\/hooks\/([0-9a-f-]+)$/.exec(req.url ?? '')
    if (req.url === '/codes') codes.push(JSON.parse(body) as Code)
    else if (hook !== null) {
      const delivery = receiveWebhook(hook[1] as string, req, body)
      if (holding && delivery !== undefined) {
        held.push({ delivery, res })
        return
      }
    }
    res.statusCode = 204
    res.end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const base = `http://127.0.0.1:${port}`

  return {
    port,
    codesUrl: `${base}/codes`,
    webhookUrlFor: (sessionId) => `${base}/hooks/${sessionId}`,
    codeFor: async (sessionId, channel) => {
      const deadline = Date.now() + 5_000
      for (;;) {
        const code = codes.findLast((c) => c.session_id === sessionId && c.channel === channel)
        if (code !== undefined) return code.code
        if (Date.now() > deadline) throw new Error(`no ${channel} code arrived for session ${sessionId}`)
        await sleep(20)
      }
    },
    expectSignedWith: (sessionId, secret) => {
      verifiers.set(sessionId, new Webhook(secret))
    },
    deliveries,
    refused,
    deliveredSessions: () => delivered,
    holdAnswers: () => {
      holding = true
    },
    held: () => held.map((h) => h.delivery),
    releaseAnswers: () => {
      holding = false
      for (const { res } of held.splice(0)) res.writeHead(204).end()
    },
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
