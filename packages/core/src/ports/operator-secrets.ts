import type * as T from 'fp-ts/lib/Task.js'

/** A console session's token, to set as the cookie once, and its hash, to keep. */
export type NewSessionToken = { readonly token: string; readonly hash: string }

/**
 * Operators' passwords and sessions' tokens (decision 149), outside core to keep it free of node
 * modules: passwords under a slow salted hash, session tokens from the CSPRNG kept as a fast hash
 * (they are long and random), and each session's CSRF token derived from its token.
 */
export type OperatorSecrets = {
  /** A self-describing salted slow hash of `password`. */
  readonly hashPassword: (password: string) => T.Task<string>
  /** Whether `password` is the one `hash` was made from, in constant time; false for a malformed hash. */
  readonly passwordMatches: (password: string, hash: string) => T.Task<boolean>
  /**
   * A hash no password matches, as costly to check as a real one: checked when no operator has
   * the e-mail, so the answer's time does not tell which e-mails exist.
   */
  readonly decoyHash: string
  /** A strong random password, for an operator added without one. */
  readonly generatePassword: () => string
  /** A new session's token, from the CSPRNG, with its hash. */
  readonly newSessionToken: () => NewSessionToken
  /** The stored form of a presented token. */
  readonly sessionTokenHash: (token: string) => string
  /** The CSRF token of a session (`X-CSRF-Token`): derived from its token, so never stored. */
  readonly csrfTokenOf: (token: string) => string
  /** Whether `presented` is `token`'s CSRF token, in constant time. */
  readonly csrfMatches: (token: string, presented: string) => boolean
}
