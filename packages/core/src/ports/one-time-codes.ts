import type * as T from 'fp-ts/lib/Task.js'

/**
 * Makes one-time codes and checks them against their stored hash. The hash is slow and salted
 * (the challenge id), so a leaked table does not give the codes away within their lifetime.
 */
export type OneTimeCodes = {
  /** A fresh code of `CODE_LENGTH` digits from a CSPRNG. */
  readonly generate: () => string
  /** The stored hash of `code`, salted with `salt` (the challenge id). */
  readonly hash: (code: string, salt: string) => T.Task<string>
  /** Constant-time comparison. */
  readonly matches: (code: string, salt: string, hash: string) => T.Task<boolean>
}
