import * as TE from 'fp-ts/lib/TaskEither.js'
import { verificationDeliveryFailed, type VerificationCodeSender, type VerificationMessage } from '../ports/verification-code-sender.js'

/** Keeps every message; `failNext` makes the next send fail. */
export type RecordingCodeSender = VerificationCodeSender & {
  /** A send made to fail is not recorded. */
  readonly sent: () => readonly VerificationMessage[]
  /** The next send fails with `VerificationDeliveryFailed`. */
  readonly failNext: () => void
}

/** Keeps every message it is given; `failNext` makes the next send fail. */
export const recordingCodeSender = (): RecordingCodeSender => {
  const sent: VerificationMessage[] = []
  let fail = false
  return {
    sent: () => sent,
    failNext: () => {
      fail = true
    },
    send: (message) => {
      if (fail) {
        fail = false
        return TE.left(verificationDeliveryFailed('recording sender told to fail'))
      }
      sent.push(message)
      return TE.right(undefined)
    },
  }
}
