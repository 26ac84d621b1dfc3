import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { ContactChannel } from '../domain/onboarding/verification.js'
import type { SessionId } from '../domain/foundations/ids.js'

/** What is handed over for delivery (CONTRACT.md: POSTed as this JSON, with snake_case keys). */
export type VerificationMessage = {
  readonly sessionId: SessionId
  readonly channel: ContactChannel
  readonly destination: string
  readonly code: string
  /** When the code stops verifying, for the message to say. */
  readonly expiresAt: Date
}

/** The code could not be handed to the delivery service; `reason` is for logs. */
export type VerificationDeliveryFailed = { readonly _tag: 'VerificationDeliveryFailed'; readonly reason: string }
/** A `VerificationDeliveryFailed` with a `reason` for logs. */
export const verificationDeliveryFailed = (reason: string): VerificationDeliveryFailed => ({ _tag: 'VerificationDeliveryFailed', reason })

/**
 * Delivers verification codes by SMS or email (through whatever service the deployment uses).
 *
 * @property send - Hands the message over for delivery; `VerificationDeliveryFailed` when the
 * service refused it or did not answer.
 */
export type VerificationCodeSender = {
  readonly send: (message: VerificationMessage) => TE.TaskEither<VerificationDeliveryFailed, void>
}
