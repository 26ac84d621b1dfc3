import { randomBytes } from 'node:crypto'
import {
  cursorSeal,
  migrateToLatest,
  openDatabase,
  ping,
  postgresApiKeyRepository,
  postgresCoreDepsBase,
  postgresKeyRevocations,
  postgresRateLimitStore,
  postgresIdempotencyStore,
  postgresWebhookDeliveryQueue,
  fetchWebhookSender,
  guardedSender,
  signWebhook,
  aesGcmWebhookSecrets,
  httpCodeSender,
  type OpenDatabase,
} from '@lendgate/adapters'
import { cachedApiKeys, deliverDueWebhooks, exactRateLimiter, syncedRateLimiter, type Clock } from '@lendgate/core'
import { startWebhookWorker } from './webhook-worker.js'
import * as E from 'fp-ts/lib/Either.js'
import type { Logger } from 'pino'
import type { Config } from './config.js'
import type { AppDeps } from './deps.js'
import { loggingCodeSender } from './logging-code-sender.js'

const IDEMPOTENCY_PURGE_MS = 60 * 60 * 1000

/** Keys kept in the in-process key cache, and how long an entry is trusted without news. */
const KEY_CACHE_ENTRIES = 10_000
const KEY_CACHE_TTL_MS = 60_000

/** Buckets the hot-path rate limiter keeps in memory, and how often ended windows are deleted. */
const RATE_LIMIT_BUCKETS = 50_000
const RATE_LIMIT_PURGE_MS = 60_000

export type Composition = {
  readonly deps: AppDeps
  readonly database: OpenDatabase
  /** Stops background timers, writes pending key usage and closes the database. */
  readonly close: () => Promise<void>
  /** Pushes this instance's rate-limit counts now and learns the others' (the timer does it every `RATE_LIMIT_SYNC_MS`). */
  readonly syncRateLimits: () => Promise<void>
}

export type ComposeOptions = {
  /** The clock of the rate-limit windows (tests move it instead of sleeping); default the system clock. */
  readonly rateLimitClock?: Clock
}

const systemClock: Clock = { now: () => new Date() }

/**
 * The only place that builds adapters and wires them to the use cases. `database` may be
 * given (tests share one); otherwise it is opened from the configuration, and migrated.
 */
export const compose = async (config: Config, logger: Logger, given?: OpenDatabase, options: ComposeOptions = {}): Promise<Composition> => {
  const database = given ?? (await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir }))
  if (given === undefined) {
    const applied = await migrateToLatest(database.db)
    logger.info({ database: database.description, applied }, 'database ready')
  }
  // Revocations reach every instance's key cache through LISTEN/NOTIFY (docs/decisions.md).
  const revocations = postgresKeyRevocations(database)
  await revocations.start()
  const apiKeys = cachedApiKeys(postgresApiKeyRepository(database.db), revocations, {
    maxEntries: KEY_CACHE_ENTRIES,
    ttlMs: KEY_CACHE_TTL_MS,
    clock: systemClock,
  })
  const idempotencyStore = postgresIdempotencyStore(database.db)
  // The core's adapters, wired in one place (postgres-core-deps.ts), behind the key cache.
  const core = postgresCoreDepsBase(database, {
    apiKeys,
    clock: systemClock,
    webhookUrls: { allowHttp: config.webhookAllowHttp, allowPrivateNetworks: config.webhookAllowPrivateNetworks },
    onKeyUsageFlushError: (err) => logger.warn({ err }, 'could not record key usage; will retry'),
  })
  const usage = core.usage
  const flushTimer = setInterval(() => void usage.flush(), config.keyUsageFlushMs)
  flushTimer.unref()
  const purgeTimer = setInterval(async () => {
    const purged = await idempotencyStore.purgeExpired(systemClock.now())()
    if (E.isLeft(purged)) logger.warn({ err: purged.left.cause }, 'could not purge expired idempotency keys')
  }, IDEMPOTENCY_PURGE_MS)
  purgeTimer.unref()
  // Rate limits (docs/decisions.md): the hot path counts in memory and syncs on a timer; minting
  // and verification codes take one upsert each. Both share one table of counts.
  const rateLimitClock = options.rateLimitClock ?? systemClock
  const rateLimitStore = postgresRateLimitStore(database.db)
  const rateLimiter = syncedRateLimiter({
    store: rateLimitStore,
    clock: rateLimitClock,
    maxBuckets: RATE_LIMIT_BUCKETS,
    onSyncError: (err) => logger.warn({ err }, 'could not sync rate-limit counts; limiting on local counts until it can'),
  })
  const rateSyncTimer = setInterval(() => void rateLimiter.sync(), config.rateLimits.syncMs)
  rateSyncTimer.unref()
  const ratePurgeTimer = setInterval(async () => {
    const purged = await rateLimitStore.purgeEnded(rateLimitClock.now())()
    if (E.isLeft(purged)) logger.warn({ err: purged.left.cause }, 'could not purge ended rate-limit windows')
  }, RATE_LIMIT_PURGE_MS)
  ratePurgeTimer.unref()

  const deps: AppDeps = {
    ...core,
    keyCache: apiKeys,
    idempotency: idempotencyStore,
    health: { storeReachable: () => ping(database.db) },
    webhookSecrets: config.webhookSecretKey === undefined ? undefined : aesGcmWebhookSecrets(config.webhookSecretKey),
    // Keyed from WEBHOOK_SECRET_KEY (its own derived key) so every instance opens every
    // instance's cursors; without it, each instance seals with a key of its own.
    cursors: cursorSeal(config.webhookSecretKey ?? randomBytes(32)),
    rateLimiter,
    exactRateLimiter: exactRateLimiter({ store: rateLimitStore, clock: rateLimitClock }),
    sender:
      config.verificationDeliveryUrl !== undefined
        ? httpCodeSender(config.verificationDeliveryUrl)
        : config.production
          ? undefined
          : loggingCodeSender(logger),
  }
  const webhookSecrets = deps.webhookSecrets
  const worker =
    config.webhookWorker && webhookSecrets !== undefined
      ? startWebhookWorker(
          deliverDueWebhooks({
            queue: postgresWebhookDeliveryQueue(database.db),
            sender: guardedSender(deps.urlGuard, fetchWebhookSender({ allowPrivateNetworks: config.webhookAllowPrivateNetworks })),
            sign: signWebhook,
            webhookSecrets,
            clock: systemClock,
            schedule: config.webhookRetrySchedule,
            random: Math.random,
          }),
          logger,
        )
      : undefined
  return {
    deps,
    database,
    close: async () => {
      await worker?.stop()
      apiKeys.close()
      await revocations.stop()
      clearInterval(flushTimer)
      clearInterval(purgeTimer)
      clearInterval(rateSyncTimer)
      clearInterval(ratePurgeTimer)
      await usage.flush()
      await rateLimiter.sync()
      if (given === undefined) await database.close()
    },
    syncRateLimits: rateLimiter.sync,
  }
}
