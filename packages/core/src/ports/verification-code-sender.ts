import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { ContactChannel } from '../domain/verification.js'
import type { SessionId } from '../domain/ids.js'

/** What is handed over for delivery (CONTRACT.md: POSTed as this JSON, with snake_case keys). */
export type VerificationMessage = {
  readonly sessionId: SessionId
  readonly channel: ContactChannel
  readonly destination: string
  readonly code: string
  readonly expiresAt: Date
}

/** The code could not be handed to the delivery service; `reason` is for logs. */
export type VerificationDeliveryFailed = { readonly _tag: 'VerificationDeliveryFailed'; readonly reason: string }
export const verificationDeliveryFailed = (reason: string): VerificationDeliveryFailed => ({ _tag: 'VerificationDeliveryFailed', reason })

/** Delivers verification codes by SMS or email (through whatever service the deployment uses). */
export type VerificationCodeSender = {
  readonly send: (message: VerificationMessage) => TE.TaskEither<VerificationDeliveryFailed, void>
}
