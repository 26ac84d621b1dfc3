import type * as T from 'fp-ts/lib/Task.js'

/** One-time codes and their slow hash salted with the challenge id, so a leaked table gives nothing away in time. */
export type OneTimeCodes = {
  /** `CODE_LENGTH` digits from a CSPRNG. */
  readonly generate: () => string
  /** Salted with the challenge id. */
  readonly hash: (code: string, salt: string) => T.Task<string>
  /** Constant-time. */
  readonly matches: (code: string, salt: string, hash: string) => T.Task<boolean>
}
