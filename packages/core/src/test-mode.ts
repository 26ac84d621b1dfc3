import * as TE from 'fp-ts/lib/TaskEither.js'
import type { OneTimeCodes } from './ports/one-time-codes.js'
import type { VerificationCodeSender } from './ports/verification-code-sender.js'

/** The verification code of every challenge in the test world (decision 130): the convention partners know. */
export const TEST_VERIFICATION_CODE = '000000'

/**
 * How the test world verifies contacts (decision 130): every code is `TEST_VERIFICATION_CODE`,
 * hashed, limited and checked by `codes` as a live one is, and no message leaves: a test
 * session's phone and email are nobody's.
 */
export const testModeVerification = (codes: OneTimeCodes): { readonly codes: OneTimeCodes; readonly sender: VerificationCodeSender } => ({
  codes: { ...codes, generate: () => TEST_VERIFICATION_CODE },
  sender: { send: () => TE.right(undefined) },
})
