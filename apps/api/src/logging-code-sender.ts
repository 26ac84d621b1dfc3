import type { VerificationCodeSender } from '@lendgate/core'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { Logger } from 'pino'

/**
 * Development only (CONTRACT.md): with no VERIFICATION_DELIVERY_URL outside production, codes
 * are written to the log so a developer can complete verification locally. compose.ts never
 * uses this in production.
 *
 * The line is written at once rather than with the log's next batch (logger.ts batches every
 * 250 ms): the code is in the log before the response saying it was sent, so the README's
 * one-liner can read it from the log file right after that request.
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
      logger.flush()
    }),
})
