import type { VerificationCodeSender } from '@lendgate/core'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { Logger } from 'pino'

/**
 * Development only (CONTRACT.md): with no VERIFICATION_DELIVERY_URL outside production, codes
 * are written to the log so a developer can complete verification locally. compose.ts never
 * uses this in production.
 */
export const loggingCodeSender = (logger: Logger): VerificationCodeSender => ({
  send: (message) =>
    TE.fromIO(() => {
      logger.warn(
        {
          session_id: message.sessionId,
          channel: message.channel,
          destination: message.destination,
          verification_code: message.code,
          expires_at: message.expiresAt.toISOString(),
        },
        'verification code (development: set VERIFICATION_DELIVERY_URL to deliver it instead)',
      )
    }),
})
