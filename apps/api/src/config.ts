import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import { OPERATION_IDS } from './routes/operations.js'

/**
 * Configuration (CONTRACT.md "Running"), read from the environment once at start and
 * validated; the process refuses to start on an invalid value rather than guess.
 */
export type Config = {
  readonly port: number
  readonly host: string
  /** Unset: embedded database under `dataDir`. */
  readonly databaseUrl: string | undefined
  readonly dataDir: string
  readonly partnerMintSecret: string | undefined
  readonly internalApiToken: string | undefined
  /** 32 bytes that seal webhook signing secrets at rest. */
  readonly webhookSecretKey: Uint8Array | undefined
  readonly webhookAllowHttp: boolean
  readonly webhookAllowPrivateNetworks: boolean
  /** Delays in seconds between webhook delivery attempts. */
  readonly webhookRetrySchedule: readonly number[]
  readonly verificationDeliveryUrl: string | undefined
  readonly placeholderOperations: ReadonlySet<string>
  /** Exact origins allowed to call the API from a browser; `*` allows any. Empty: none. */
  readonly corsOrigins: readonly string[]
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
  readonly production: boolean
  /** How often buffered `last_used_at` updates are written. */
  readonly keyUsageFlushMs: number
}

export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = [0, 5, 300, 1800, 7200, 18000, 36000, 36000] as const

type Env = Readonly<Record<string, string | undefined>>

const problem = (name: string, message: string): string => `${name} ${message}`

const nonEmpty = (env: Env, name: string): string | undefined => {
  const value = env[name]?.trim()
  return value === undefined || value === '' ? undefined : value
}

const parseBoolean = (env: Env, name: string, errors: string[]): boolean => {
  const value = nonEmpty(env, name)
  if (value === undefined) return false
  if (value === 'true' || value === '1') return true
  if (value === 'false' || value === '0') return false
  errors.push(problem(name, 'must be true or false'))
  return false
}

const LOG_LEVELS = t.keyof({ fatal: null, error: null, warn: null, info: null, debug: null, trace: null, silent: null })

/** Reads and validates the configuration; every problem is reported, not just the first. */
export const loadConfig = (env: Env): E.Either<readonly string[], Config> => {
  const errors: string[] = []

  const portText = nonEmpty(env, 'PORT') ?? '3000'
  const port = Number(portText)
  if (!/^\d+$/.test(portText) || port > 65535) errors.push(problem('PORT', 'must be an integer from 0 to 65535'))

  const databaseUrl = nonEmpty(env, 'DATABASE_URL')
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\/.+/.test(databaseUrl) && databaseUrl !== 'pglite://memory') {
    errors.push(problem('DATABASE_URL', 'must be a postgres:// or postgresql:// URL, or pglite://memory'))
  }

  const sealingKeyText = nonEmpty(env, 'WEBHOOK_SECRET_KEY')
  let webhookSecretKey: Uint8Array | undefined
  if (sealingKeyText !== undefined) {
    const bytes = Buffer.from(sealingKeyText, 'base64')
    if (bytes.length !== 32 || !/^[A-Za-z0-9+/]+={0,2}$/.test(sealingKeyText)) {
      errors.push(problem('WEBHOOK_SECRET_KEY', 'must be 32 bytes, base64-encoded'))
    } else webhookSecretKey = new Uint8Array(bytes)
  }

  const scheduleText = nonEmpty(env, 'WEBHOOK_RETRY_SCHEDULE')
  const webhookRetrySchedule = scheduleText === undefined ? [...DEFAULT_WEBHOOK_RETRY_SCHEDULE] : scheduleText.split(',').map((s) => Number(s.trim()))
  if (webhookRetrySchedule.some((d) => !Number.isInteger(d) || d < 0) || webhookRetrySchedule.length === 0) {
    errors.push(problem('WEBHOOK_RETRY_SCHEDULE', 'must be comma-separated whole seconds, such as 0,5,300'))
  }

  const verificationDeliveryUrl = nonEmpty(env, 'VERIFICATION_DELIVERY_URL')
  if (verificationDeliveryUrl !== undefined && !URL.canParse(verificationDeliveryUrl)) {
    errors.push(problem('VERIFICATION_DELIVERY_URL', 'must be a URL'))
  }

  const placeholderOperations = new Set(
    (nonEmpty(env, 'PLACEHOLDER_OPERATIONS') ?? '').split(',').map((s) => s.trim()).filter((s) => s !== ''),
  )
  const unknownOperations = [...placeholderOperations].filter((id) => !OPERATION_IDS.has(id))
  if (unknownOperations.length > 0) errors.push(problem('PLACEHOLDER_OPERATIONS', `names unknown operations: ${unknownOperations.join(', ')}`))

  const corsOrigins = (nonEmpty(env, 'CORS_ORIGINS') ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '')
  const badOrigin = corsOrigins.find((o) => o !== '*' && !/^https?:\/\/[^/\s]+$/.test(o))
  if (badOrigin !== undefined) errors.push(problem('CORS_ORIGINS', `must be * or origins such as https://app.example.com (got ${badOrigin})`))

  const logLevel = pipe(
    LOG_LEVELS.decode(nonEmpty(env, 'LOG_LEVEL') ?? 'info'),
    E.getOrElseW(() => {
      errors.push(problem('LOG_LEVEL', 'must be one of fatal, error, warn, info, debug, trace, silent'))
      return 'info' as const
    }),
  )

  const flushText = nonEmpty(env, 'KEY_USAGE_FLUSH_MS') ?? '5000'
  const keyUsageFlushMs = Number(flushText)
  if (!/^\d+$/.test(flushText) || keyUsageFlushMs < 100) errors.push(problem('KEY_USAGE_FLUSH_MS', 'must be an integer of at least 100'))

  const config: Config = {
    port,
    host: nonEmpty(env, 'HOST') ?? '127.0.0.1',
    databaseUrl,
    dataDir: nonEmpty(env, 'DATA_DIR') ?? './.data',
    partnerMintSecret: nonEmpty(env, 'PARTNER_MINT_SECRET'),
    internalApiToken: nonEmpty(env, 'INTERNAL_API_TOKEN'),
    webhookSecretKey,
    webhookAllowHttp: parseBoolean(env, 'WEBHOOK_ALLOW_HTTP', errors),
    webhookAllowPrivateNetworks: parseBoolean(env, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS', errors),
    webhookRetrySchedule,
    verificationDeliveryUrl,
    placeholderOperations,
    corsOrigins,
    logLevel,
    production: env['NODE_ENV'] === 'production',
    keyUsageFlushMs,
  }
  return errors.length === 0 ? E.right(config) : E.left(errors)
}
