import type { WebhookSender } from '@lendgate/core'

/** Delivery timeout (CONTRACT: 15 s) and how much of a receiver's answer is read. */
export const WEBHOOK_TIMEOUT_MS = 15_000
const MAX_RESPONSE_BYTES = 64 * 1024

/** Reads at most `MAX_RESPONSE_BYTES` of the response so a huge answer costs nothing, then lets go. */
const drain = async (response: Response): Promise<void> => {
  const reader = response.body?.getReader()
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
 * Sends webhooks with `fetch`: JSON POST, redirects not followed (a 3xx is a failed attempt),
 * a timeout, the answer read but capped. Never throws: errors become the attempt's `error`.
 */
export const fetchWebhookSender = (timeoutMs = WEBHOOK_TIMEOUT_MS): WebhookSender => ({
  send: (request) => async () => {
    const started = performance.now()
    try {
      const response = await fetch(request.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'User-Agent': 'Lendgate-Webhooks/1', ...request.headers },
        body: request.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      })
      await drain(response)
      return { statusCode: response.status, error: null, durationMs: performance.now() - started }
    } catch (error) {
      const message = error instanceof Error ? (error.name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : error.message) : String(error)
      return { statusCode: null, error: message, durationMs: performance.now() - started }
    }
  },
})
