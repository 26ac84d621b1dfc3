import { verificationDeliveryFailed, type VerificationCodeSender } from '@lendgate/core'
import * as TE from 'fp-ts/lib/TaskEither.js'

/**
 * POSTs each code as JSON to the delivery service (CONTRACT.md, pinned body:
 * `{session_id, channel, destination, code, expires_at}`). Any 2xx is success; anything else,
 * a network error or no answer within `timeoutMs` is `VerificationDeliveryFailed`.
 */
export const httpCodeSender = (url: string, timeoutMs = 5_000): VerificationCodeSender => ({
  send: (message) =>
    TE.tryCatchK(
      async () => {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            session_id: message.sessionId,
            channel: message.channel,
            destination: message.destination,
            code: message.code,
            expires_at: message.expiresAt.toISOString(),
          }),
          redirect: 'error',
          signal: AbortSignal.timeout(timeoutMs),
        })
        await response.body?.cancel()
        if (!response.ok) throw new Error(`delivery service answered ${response.status}`)
      },
      (error) => verificationDeliveryFailed(error instanceof Error ? error.message : String(error)),
    )(),
})
