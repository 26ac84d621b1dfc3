import type { OperatorSecrets } from '../ports/operator-secrets.js'

/**
 * Deterministic operator secrets, tests only: a password's "hash" is the password reversed behind
 * a marker, tokens count up, a CSRF token is its session token's with a prefix.
 */
export const fakeOperatorSecrets = (): OperatorSecrets => {
  let n = 0
  const hashOf = (text: string): string => `fake:${[...text].reverse().join('')}`
  return {
    hashPassword: (password) => async () => hashOf(password),
    passwordMatches: (password, hash) => async () => hashOf(password) === hash,
    decoyHash: 'decoy',
    generatePassword: () => {
      n += 1
      return `generated-password-${n}`
    },
    newSessionToken: () => {
      n += 1
      const token = `session-token-${n}`
      return { token, hash: hashOf(token) }
    },
    sessionTokenHash: hashOf,
    csrfTokenOf: (token) => `csrf:${token}`,
    csrfMatches: (token, presented) => presented === `csrf:${token}`,
  }
}
