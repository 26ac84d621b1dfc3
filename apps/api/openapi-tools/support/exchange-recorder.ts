import { createServer, request, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A pass-through in front of Prism's validating proxy that records every exchange: its status,
 * the violations Prism reports in the `sl-violations` header, and the errors Prism answers
 * itself (`application/problem+json` of type `https://stoplight.io/prism/errors#…`, which
 * `--errors` turns a violation into). Bodies and headers pass unchanged.
 */

export type Violation = { readonly location: readonly string[]; readonly severity: string; readonly code: string; readonly message: string }

export type Exchange = {
  readonly method: string
  readonly path: string
  readonly status: number
  readonly violations: readonly Violation[]
  /** Prism's own error answer (`VIOLATIONS`, `UNPROCESSABLE_ENTITY`, `NO_PATH_MATCHED_ERROR`, …) with its detail. */
  readonly prismError?: string
}

export type ExchangeRecorder = { readonly url: string; readonly exchanges: readonly Exchange[]; readonly close: () => Promise<void> }

const bodyOf = async (message: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = []
  for await (const chunk of message) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/** The violations of an `sl-violations` header (Prism writes them as a JSON array). */
export const violationsIn = (header: string | string[] | null | undefined): Violation[] => {
  if (header === undefined || header === null) return []
  try {
    return JSON.parse(Array.isArray(header) ? header.join(',') : header) as Violation[]
  } catch {
    return [{ location: [], severity: 'Error', code: 'unreadable', message: `an sl-violations header that is not JSON: ${String(header)}` }]
  }
}

/** An error Prism answered itself (`application/problem+json` of its own type) in one line: its kind and the violations it lists. */
export const prismError = (body: string): string | undefined => {
  try {
    const problem = JSON.parse(body) as { type?: string; title?: string; detail?: string; validation?: Violation[] }
    if (!(problem.type ?? '').startsWith('https://stoplight.io/prism/errors#')) return undefined
    const listed = (problem.validation ?? []).map((v) => `${v.location.join('.')}: ${v.message}`).join('; ')
    return `${problem.type!.split('#')[1]}: ${problem.title ?? ''}${listed === '' ? ` (${problem.detail ?? ''})` : ` (${listed})`}`
  } catch {
    return undefined
  }
}

export const startExchangeRecorder = async (target: string): Promise<ExchangeRecorder> => {
  const exchanges: Exchange[] = []
  const server = createServer(async (req, res) => {
    const body = await bodyOf(req)
    const upstream = request(`${target}${req.url ?? '/'}`, { method: req.method, headers: req.headers }, async (reply) => {
      const replyBody = await bodyOf(reply)
      const ownError = (reply.headers['content-type'] ?? '').includes('application/problem+json') ? prismError(replyBody.toString('utf8')) : undefined
      exchanges.push({
        method: req.method ?? '?',
        path: req.url ?? '/',
        status: reply.statusCode ?? 0,
        violations: violationsIn(reply.headers['sl-violations']),
        ...(ownError === undefined ? {} : { prismError: ownError }),
      })
      res.writeHead(reply.statusCode ?? 502, reply.headers)
      res.end(replyBody)
    })
    upstream.on('error', (error) => {
      exchanges.push({ method: req.method ?? '?', path: req.url ?? '/', status: 502, violations: [], prismError: `no answer from Prism: ${String(error)}` })
      res.writeHead(502).end()
    })
    upstream.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exchanges,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
