import type { WebhookSender, WebhookUrlGuard } from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'

/**
 * Checks the URL again right before every attempt, so a host whose DNS was changed to point
 * inside the network after registration is refused (recorded as a failed attempt). This
 * narrows, but does not close, the DNS-rebinding window between this check and the connect.
 */
export const guardedSender = (guard: WebhookUrlGuard, sender: WebhookSender): WebhookSender => ({
  send: (request) => async () => {
    const allowed = await guard.check(request.url, 'the URL')()
    if (E.isLeft(allowed)) return { statusCode: null, error: `refused: ${allowed.left.detail}`, durationMs: 0 }
    return sender.send(request)()
  },
})
