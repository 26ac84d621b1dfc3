import { Writable } from 'node:stream'
import { aesGcmAccountSeal, aesGcmWebhookSecrets, cursorSeal, nodeApiKeyMaterial, nodeOperatorSecrets, randomIds, sandboxPaymentProcessor, sandboxTokenizer, scryptOneTimeCodes, webhookUrlGuard } from '@lendgate/adapters'
import type { TestDatabase } from '@lendgate/adapters/testing'
import { exactAttemptLimiter, exactRateLimiter, testModeVerification } from '@lendgate/core'
import { inMemoryCoreDeps, inMemoryIdempotencyStore, inMemoryRateLimitStore, inMemoryTestData, inMemoryWorld } from '@lendgate/core/testing'
import * as E from 'fp-ts/lib/Either.js'
import { createMetrics } from '../../src/metrics.js'
import { createApp, type AppOptions } from '../../src/app.js'
import { loadConfig, type Config } from '../../src/config.js'
import type { AppDeps, TestWorldDeps } from '../../src/deps.js'
import { createLogger } from '../../src/logger.js'
import { listen, startServer } from '../../src/server.js'
import { rememberLog, rememberSecret } from './secret-scan.js'

/** What host names resolve to on the in-memory test server. */
export const TEST_DNS: Readonly<Record<string, readonly string[]>> = {
  'hooks.partner.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'sneaky.partner.example': ['93.184.216.34', '127.0.0.1'],
  'mapped.partner.example': ['::ffff:127.0.0.1'],
  'internal.partner.example': ['10.1.2.3'],
}

export const MINT_SECRET = 'test-mint-secret-0123456789abcdef'
export const INTERNAL_TOKEN = 'test-internal-token-0123456789abcdef'
/** The key that seals webhook secrets at rest in every test server. */
const WEBHOOK_SECRET_KEY = new Uint8Array(32).fill(7)
for (const secret of [MINT_SECRET, INTERNAL_TOKEN, Buffer.from(WEBHOOK_SECRET_KEY).toString('base64')]) rememberSecret(secret)

/** Every log line the server wrote, parsed. */
export type LogCapture = { readonly lines: () => readonly Record<string, unknown>[]; readonly raw: () => string }

export const captureLogs = (): { readonly stream: Writable; readonly capture: LogCapture } => {
  const chunks: string[] = []
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString('utf8'))
      done()
    },
  })
  const raw = (): string => chunks.join('')
  rememberLog(raw)
  return {
    stream,
    capture: {
      raw,
      lines: () =>
        raw()
          .split('\n')
          .filter((l) => l.trim() !== '')
          .map((l) => JSON.parse(l) as Record<string, unknown>),
    },
  }
}

/** The configuration tests run with: defaults, fixed secrets, any port, plus `overrides`. */
export const testConfig = (overrides: Partial<Config> = {}): Config => {
  const base = loadConfig({})
  if (E.isLeft(base)) throw new Error(base.left.join('; '))
  return {
    ...base.right,
    port: 0,
    host: '127.0.0.1',
    partnerMintSecret: MINT_SECRET,
    internalApiToken: INTERNAL_TOKEN,
    webhookSecretKey: WEBHOOK_SECRET_KEY,
    keyUsageFlushMs: 60_000,
    // Tests that deliver webhooks turn the worker on; the others must not send stray requests.
    runJobs: false,
    // Far above what any suite sends: only rate-limit.test.ts is about being throttled.
    rateLimits: { ...base.right.rateLimits, requests: 1_000_000_000, verificationRequests: 1_000_000_000, mintRequests: 1_000_000_000, keyLookups: 1_000_000_000, keylessRequests: 1_000_000_000, webhookRetries: 1_000_000_000 },
    ...overrides,
  }
}

export type TestServer = {
  readonly url: string
  readonly deps: AppDeps
  readonly logs: LogCapture
  readonly stop: () => Promise<void>
}

/** The operator's headers on an internal route acting on `world` (decision 128; live without the header). */
export const operatorHeaders = (world: 'live' | 'test' = 'live'): Record<string, string> => ({ Authorization: `Bearer ${INTERNAL_TOKEN}`, 'Lendgate-Mode': world })

/** The real service (compose + Koa + a real socket) over a shared test database. */
export const startTestServer = async (database: TestDatabase, overrides: Partial<Config> = {}): Promise<TestServer> => {
  const { stream, capture } = captureLogs()
  const config = testConfig(overrides)
  // The daily servicing job never runs here: it would accrue every loan other suites left in the shared database.
  const server = await startServer(config, createLogger('lendgate-api', config.logLevel, stream), await database.open(), { scheduledJobs: false })
  return { url: server.url, deps: server.deps, logs: capture, stop: () => server.stop(1_000) }
}

/** The test world in memory: its stores, its verification, the sandbox rails, and the wipe over them. */
const inMemoryTestWorld = (): TestWorldDeps => {
  const world = inMemoryWorld(undefined, 'test')
  const idempotency = inMemoryIdempotencyStore()
  return {
    ...world,
    ...testModeVerification(scryptOneTimeCodes()),
    processor: sandboxPaymentProcessor(),
    tokenizer: sandboxTokenizer(),
    idempotency,
    testData: inMemoryTestData(world, idempotency),
    ach: undefined,
  }
}

/**
 * The service's dependencies over in-memory adapters, with any of them replaced: the core's
 * from `inMemoryCoreDeps` (its clock starting now), with the node adapters in place of its fakes
 * where HTTP tests see the difference (real key format and checksum, random ids and codes,
 * AES-GCM secrets, the URL guard on `TEST_DNS`, the sandbox rails), plus the HTTP edge's own.
 */
export const inMemoryDeps = (override: (deps: AppDeps) => Partial<AppDeps> = () => ({})): AppDeps => {
  const core = inMemoryCoreDeps({ start: new Date() })
  const rateLimits = inMemoryRateLimitStore()
  const base: AppDeps = {
    ach: undefined,
    ...core,
    keyMaterial: nodeApiKeyMaterial(),
    ids: randomIds(),
    codes: scryptOneTimeCodes(),
    operatorSecrets: nodeOperatorSecrets(),
    webhookSecrets: aesGcmWebhookSecrets(new Uint8Array(32).fill(7)),
    accountSeal: aesGcmAccountSeal(new Uint8Array(32).fill(7)),
    // A resolver of its own: these machines have no DNS. Hosts and what they resolve to.
    urlGuard: webhookUrlGuard({ allowHttp: false, allowPrivateNetworks: false, resolve: async (host) => TEST_DNS[host] ?? [] }),
    processor: sandboxPaymentProcessor(),
    tokenizer: sandboxTokenizer(),
    keyCache: { held: () => undefined },
    idempotency: inMemoryIdempotencyStore(),
    health: { storeReachable: async () => true, schemaCurrent: () => true, whenSchemaCurrent: async () => true },
    cursors: cursorSeal(new Uint8Array(32).fill(7)),
    // One in-memory instance: the exact limiter serves both (no other instance to sync with).
    rateLimiter: exactRateLimiter({ store: rateLimits, clock: { now: () => new Date() } }),
    exactRateLimiter: exactRateLimiter({ store: rateLimits, clock: { now: () => new Date() } }),
    attemptLimiter: exactAttemptLimiter({ store: rateLimits, clock: { now: () => new Date() } }),
    metrics: createMetrics(),
    // No advancer runs in memory: a test clock is advanced on a database (compose.ts).
    clockAdvances: { wake: () => undefined },
    testWorld: inMemoryTestWorld(),
    replicaReads: undefined,
  }
  return { ...base, ...override(base) }
}

/**
 * The Koa app over in-memory adapters, on a real socket, with any dependency replaced: for
 * failures a real database cannot be made to produce on demand (a store outage mid-request).
 */
export const startInMemoryServer = async (
  override: (deps: AppDeps) => Partial<AppDeps> = () => ({}),
  configOverrides: Partial<Config> = {},
  appOptions: AppOptions = {},
): Promise<TestServer> => {
  const { stream, capture } = captureLogs()
  const config = testConfig(configOverrides)
  const deps = inMemoryDeps(override)
  const server = await listen(createApp(deps, config, createLogger('lendgate-api', config.logLevel, stream), appOptions).handle, { host: '127.0.0.1', port: 0, limits: config.connections }, async () => undefined)
  return { url: server.url, deps, logs: capture, stop: () => server.stop(1_000) }
}
