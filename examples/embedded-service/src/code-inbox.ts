import type { VerificationCodeSender } from '@lendgate/core'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'

/**
 * The service's own verification-code adapter: where an SMS or email service would deliver
 * the code, this keeps the last code sent to each destination, for the journey to type in.
 */
export type CodeInbox = VerificationCodeSender & {
  /** The code last sent to `destination`, if any was. */
  readonly lastCodeFor: (destination: string) => O.Option<string>
}

/** A `CodeInbox` in memory. */
export const codeInbox = (): CodeInbox => {
  const last = new Map<string, string>()
  return {
    send: (message) =>
      TE.fromIO(() => {
        last.set(message.destination, message.code)
      }),
    lastCodeFor: (destination) => O.fromNullable(last.get(destination)),
  }
}
