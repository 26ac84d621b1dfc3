/**
 * The suite-wide secret scan (issue 9, "secrets never logged"): every secret a test sends or
 * receives through `request` (partner keys, the mint secret, the internal token, generated
 * webhook secrets) is remembered, every log stream a test server writes is remembered, and after
 * the whole run a root hook fails the run if any log contains any of those secrets.
 */

/** Shorter values could match by accident (ids, words); every real secret here is longer. */
const MIN_SECRET_LENGTH = 16

type Registry = { readonly secrets: Set<string>; readonly logs: (() => string)[] }

// One registry per process, whichever copy of this module a file loaded.
const registry: Registry = ((globalThis as { __lendgateSecretScan?: Registry }).__lendgateSecretScan ??= { secrets: new Set(), logs: [] })

/** Remembers a secret the suite created or used; short or empty values are ignored. */
export const rememberSecret = (value: string | undefined | null): void => {
  if (typeof value === 'string' && value.length >= MIN_SECRET_LENGTH) registry.secrets.add(value)
}

/** Remembers a log stream to scan at the end of the run. */
export const rememberLog = (raw: () => string): void => {
  registry.logs.push(raw)
}

const BEARER = /^Bearer\s+(\S+)\s*$/i

/** The values of a `Cookie` or `Set-Cookie` header's cookies (a console session's token). */
const cookieValues = (header: string): readonly string[] =>
  header
    .split(';')
    .map((pair) => pair.slice(pair.indexOf('=') + 1).trim())
    .filter((value) => value !== '')

/** The secrets in request headers: a Bearer credential, `X-Api-Key`, `X-Partner-Mint-Key`, a cookie, `X-CSRF-Token`. */
export const rememberHeaderSecrets = (headers: Readonly<Record<string, string>>): void => {
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase()
    if (lower === 'authorization') rememberSecret(BEARER.exec(value)?.[1])
    else if (lower === 'x-api-key' || lower === 'x-partner-mint-key' || lower === 'x-csrf-token') rememberSecret(value.trim())
    else if (lower === 'cookie') cookieValues(value).forEach(rememberSecret)
  }
}

/** The secrets a response sets: a console session's cookie. */
export const rememberSetCookieSecrets = (headers: Headers): void => {
  for (const cookie of headers.getSetCookie()) rememberSecret(cookieValues(cookie.split(';')[0] ?? '')[0])
}

/** Secret fields of a request body: a password. */
export const rememberRequestSecrets = (body: unknown): void => {
  if (typeof body !== 'object' || body === null) return
  const { password } = body as { password?: unknown }
  if (typeof password === 'string') rememberSecret(password)
}

/** Secret fields the API returns once: a minted key, a generated webhook secret. */
export const rememberResponseSecrets = (body: unknown): void => {
  if (typeof body !== 'object' || body === null) return
  const { api_key: apiKey, webhook_secret: webhookSecret, csrf_token: csrfToken } = body as { api_key?: unknown; webhook_secret?: unknown; csrf_token?: unknown }
  if (typeof apiKey === 'string') rememberSecret(apiKey)
  if (typeof webhookSecret === 'string') rememberSecret(webhookSecret)
  if (typeof csrfToken === 'string') rememberSecret(csrfToken)
}

export type Leak = { readonly log: number; readonly secretPrefix: string }

/** Every (log, secret) pair where the log contains the secret; only a secret's first 8 characters are reported. */
export const findLeaks = (logs: readonly string[], secrets: Iterable<string>): readonly Leak[] => {
  const all = [...secrets]
  return logs.flatMap((text, log) => all.filter((secret) => text.includes(secret)).map((secret) => ({ log, secretPrefix: `${secret.slice(0, 8)}…` })))
}

/** What the scan covered, for the message and for the scan's own test. */
export const scanTotals = (): { readonly secrets: number; readonly logs: number } => ({ secrets: registry.secrets.size, logs: registry.logs.length })

/** Loaded by `.mocharc.json` (`require`): the scan, after every suite has run. */
export const mochaHooks = {
  afterAll(): void {
    const leaks = findLeaks(
      registry.logs.map((raw) => raw()),
      registry.secrets,
    )
    if (leaks.length > 0) {
      const listed = leaks.map((l) => `log #${l.log} contains ${l.secretPrefix}`).join('; ')
      throw new Error(`secrets reached the logs (${leaks.length} of ${scanTotals().secrets} secrets × ${scanTotals().logs} logs): ${listed}`)
    }
  },
}
