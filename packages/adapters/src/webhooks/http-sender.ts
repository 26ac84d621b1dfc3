import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns'
import type { WebhookSender } from '@lendgate/core'
import { Agent, request } from 'undici'
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

/**
 * What a failed attempt records: the timeout in words, or the error's message; for an error
 * without one (Node's `AggregateError` when every address of a host refused), its code or name.
 */
export const attemptFailureOf = (error: unknown, timeoutMs: number): string => {
  if (!(error instanceof Error)) return String(error)
  if (error.name === 'TimeoutError') return `timed out after ${timeoutMs} ms`
  return error.message !== '' ? error.message : ((error as NodeJS.ErrnoException).code ?? error.name)
}

/**
 * Sends webhooks with undici's `request` (decisions 21 and 103): a JSON POST, redirects not
 * followed (a 3xx is the attempt's result), one timeout for the whole attempt, the answer read up
 * to about `MAX_RESPONSE_BYTES` and then dropped (an answer whose body breaks off after its status
 * still counts by its status: the receiver answered), and (unless private networks are allowed)
 * connections only to public addresses resolved by `publicOnlyLookup`. Never throws: errors
 * become the attempt's `error`.
 */
export const httpWebhookSender = (options: { readonly timeoutMs?: number; readonly allowPrivateNetworks?: boolean } = {}): WebhookSender => {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS
  const dispatcher = new Agent(options.allowPrivateNetworks === true ? {} : { connect: { lookup: publicOnlyLookup } })
  return {
    send: (outgoing) => async () => {
      const started = performance.now()
      const signal = AbortSignal.timeout(timeoutMs)
      try {
        const response = await request(outgoing.url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'User-Agent': 'Lendgate-Webhooks/1', ...outgoing.headers },
          body: outgoing.body,
          signal,
          dispatcher,
        })
        await response.body.dump({ limit: MAX_RESPONSE_BYTES, signal })
        return { statusCode: response.statusCode, error: null, durationMs: performance.now() - started }
      } catch (error) {
        return { statusCode: null, error: attemptFailureOf(error, timeoutMs), durationMs: performance.now() - started }
      }
    },
  }
}
