import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns'
import type { WebhookSender } from '@lendgate/core'
import { Agent, fetch } from 'undici'
import { isPublicAddress } from './url-guard.js'

/** Delivery timeout (CONTRACT: 15 s) and how much of a receiver's answer is read. */
export const WEBHOOK_TIMEOUT_MS = 15_000
const MAX_RESPONSE_BYTES = 64 * 1024

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

/**
 * A DNS lookup for outgoing webhook connections that refuses any non-public address. The
 * connection is made to the very addresses checked here, so there is no window between the
 * check and the connect in which DNS could be re-pointed at an internal host (DNS rebinding).
 * IP-literal URLs skip DNS; the URL guard checks those before each attempt.
 */
export const publicOnlyLookup = (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err !== null) return callback(err, [])
    const refused = addresses.find((a) => !isPublicAddress(a.address))
    if (refused !== undefined || addresses.length === 0) {
      const error: NodeJS.ErrnoException = new Error(`refused: ${hostname} resolves to a non-public address`)
      error.code = 'EREFUSED_PRIVATE'
      return callback(error, [])
    }
    if ((options as LookupAllOptions).all === true) return callback(null, addresses)
    const first = addresses[0]!
    return callback(null, first.address, first.family)
  })
}

/** Reads at most `MAX_RESPONSE_BYTES` of the response so a huge answer costs nothing, then lets go. */
const drain = async (body: ReadableStream<Uint8Array> | null): Promise<void> => {
  const reader = body?.getReader()
  if (reader === undefined) return
  let read = 0
  while (read < MAX_RESPONSE_BYTES) {
    const { done, value } = await reader.read()
    if (done) return
    read += value.byteLength
  }
  await reader.cancel()
}

/**
 * Sends webhooks with undici's `fetch`: JSON POST, redirects not followed (a 3xx is a failed
 * attempt), a timeout, the answer read but capped, and (unless private networks are allowed)
 * connections only to public addresses resolved by `publicOnlyLookup`. Never throws: errors
 * become the attempt's `error`.
 */
export const fetchWebhookSender = (options: { readonly timeoutMs?: number; readonly allowPrivateNetworks?: boolean } = {}): WebhookSender => {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS
  const dispatcher = new Agent(options.allowPrivateNetworks === true ? {} : { connect: { lookup: publicOnlyLookup } })
  return {
    send: (request) => async () => {
      const started = performance.now()
      try {
        const response = await fetch(request.url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'User-Agent': 'Lendgate-Webhooks/1', ...request.headers },
          body: request.body,
          redirect: 'manual',
          signal: AbortSignal.timeout(timeoutMs),
          dispatcher,
        })
        await drain(response.body as ReadableStream<Uint8Array> | null)
        return { statusCode: response.status, error: null, durationMs: performance.now() - started }
      } catch (error) {
        const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error
        const message =
          cause instanceof Error ? (cause.name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : cause.message) : String(cause)
        return { statusCode: null, error: message, durationMs: performance.now() - started }
      }
    },
  }
}
