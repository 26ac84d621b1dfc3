import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { ContactChannel } from '../domain/onboarding/verification.js'
import type { SessionId } from '../domain/foundations/ids.js'

/** POSTed as this JSON with snake_case keys (CONTRACT.md). */
export type VerificationMessage = {
  readonly sessionId: SessionId
  readonly channel: ContactChannel
  readonly destination: string
  readonly code: string
  readonly expiresAt: Date
}

/** `reason` is for logs. */
export type VerificationDeliveryFailed = { readonly _tag: 'VerificationDeliveryFailed'; readonly reason: string }
/** `reason` is for logs. */
export const verificationDeliveryFailed = (reason: string): VerificationDeliveryFailed => ({ _tag: 'VerificationDeliveryFailed', reason })

/** Delivers verification codes by SMS or email; `VerificationDeliveryFailed` when the service refused or did not answer. */
export type VerificationCodeSender = {
  /** Hands the message over for delivery. */
  readonly send: (message: VerificationMessage) => TE.TaskEither<VerificationDeliveryFailed, void>
}
