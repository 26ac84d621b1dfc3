import { randomBytes, randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import { accessSync, constants, mkdirSync } from 'node:fs'
import {
  cursorSeal,
  migrateToLatest,
  notificationsArrive,
  openDatabase,
  ping,
  postgresApiKeyRepository,
  postgresCoreDepsBase,
  postgresKeyRevocations,
  postgresRateLimitStore,
  postgresIdempotencyStore,
  postgresTestData,
  postgresWebhookDeliveryQueue,
  postgresEventDeliveryQueue,
  postgresJobLeases,
  postgresWorldDeps,
  worldDb,
  httpWebhookSender,
  guardedSender,
  signWebhook,
  aesGcmAccountSeal,
  aesGcmWebhookSecrets,
  achPaymentProcessor,
  folderSink,
  nachaFileFormat,
  postgresAchOriginations,
  postgresAchInbound,
  postgresAchReturnRates,
  postgresSandboxBankMailbox,
  type SandboxBankMailbox,
  sandboxBank,
  sandboxBankRails,
  SANDBOX_ORIGINATOR,
  nachaInboundFormat,
  railsProcessor,
  sandboxPaymentProcessor,
  httpCodeSender,
  DEFAULT_POOL_SIZE,
  openReadReplicas,
  postgresWorldStores,
  type OpenDatabase,
  type ReadReplicas,
} from '@lendgate/adapters'
import {
  achOriginationJob,
  achOriginationJobName,
  originateAchFileNow,
  ingestAchFile,
  achReturnRates,
  findAchInboundFile,
  achInboxJob,
  achInboxJobName,
  type JobRunRequest,
  type IngestionDeps,
  type PaymentMethodRepository,
  type AccountSeal,
  type PaymentProcessor,
  type LoanRepository,
  achSettlementJob,
  achSettlementJobName,
  advanceClaimedClock,
  bankingCalendar,
  cutoffSchedule,
  cachedApiKeys,
  dailyServicingJob,
  eventRetentionJob,
  eventRetentionJobName,
  deliverDueWebhooks,
  exactAttemptLimiter,
  exactRateLimiter,
  runLeasedJob,
  servicingJobName,
  syncedRateLimiter,
  testModeVerification,
  WORLDS,
  type Clock,
  type OriginationDeps,
  type World,
  type WebhookBacklog,
} from '@lendgate/core'
import { loggedLoanFailures } from './loan-failures.js'
import { createMetrics } from './metrics.js'
import { cutoffRuns, dailySchedule, JOB_LEASE_MS, startScheduler, type Scheduler } from './scheduler.js'
import { startWebhookWorker } from './webhook-worker.js'
import { startClockAdvancer, type ClockAdvancer } from './clock-advancer.js'
import * as E from 'fp-ts/lib/Either.js'
import type { Logger } from 'pino'
import type { AchSettings, Config } from './config.js'
import { inWorld, type AchRails, type AppDeps, type ReplicaReads, type TestWorldDeps } from './deps.js'
import { loggingCodeSender } from './logging-code-sender.js'

const IDEMPOTENCY_PURGE_MS = 60 * 60 * 1000

/** What a world's rails debit accounts with: its loans, payment methods and processor (autopay debits are taken as payments), the seal of their numbers, ids, the time, and where skipped loans are told. */
type RailsStores = Omit<OriginationDeps, 'format' | 'sink' | 'calendar' | 'paymentMethods' | 'accountSeal' | 'loans' | 'originations'> & {
  readonly loans: LoanRepository
  readonly paymentMethods: PaymentMethodRepository
  readonly accountSeal: AccountSeal
}

/**
 * A world's ACH rails as composed: the origination deps (format, sink, calendar), the ingestion
 * deps, and the mailbox its bank's files arrive in, each party's own files too (the test world's
 * sandbox bank; none for the live world yet, whose files an operator brings).
 */
type ComposedRails = {
  readonly stores: OriginationDeps
  readonly ingestion: IngestionDeps
  readonly mailbox: Pick<SandboxBankMailbox, 'arrivedBy' | 'take' | 'ofParty'> | undefined
}

/** The live world's ACH rails: the NACHA format of the deployment's ODFI, the outbox folder (made if missing), the banks' calendar. */
const liveRails = (settings: AchSettings, db: OpenDatabase['db'], deps: RailsStores): ComposedRails => {
  mkdirSync(settings.outboxDir, { recursive: true, mode: 0o700 })
  // A folder the process cannot write is refused at start, not at the first cut-off.
  accessSync(settings.outboxDir, constants.W_OK | constants.X_OK)
  const stores: OriginationDeps = { ...deps, originations: postgresAchOriginations(db), calendar: bankingCalendar(settings.extraClosures), format: nachaFileFormat(settings), sink: folderSink(settings.outboxDir) }
  return { stores, ingestion: { ...stores, loans: deps.loans, paymentMethods: deps.paymentMethods, accountSeal: deps.accountSeal, inbound: postgresAchInbound(db), inboundFormat: nachaInboundFormat }, mailbox: undefined }
}

/**
 * The test world's ACH rails (decision 146): files of the sandbox ODFI, kept in the test world's
 * mailbox for the sandbox bank, whose answers arrive in the same mailbox for the inbox job.
 */
const sandboxRails = (testDb: OpenDatabase['db'], extraClosures: readonly string[], deps: RailsStores): ComposedRails => {
  const calendar = bankingCalendar(extraClosures)
  const mailbox = postgresSandboxBankMailbox(testDb, sandboxBank({ calendar }), deps.clock)
  const stores: OriginationDeps = { ...deps, originations: postgresAchOriginations(testDb), calendar, format: nachaFileFormat(SANDBOX_ORIGINATOR), sink: mailbox }
  return {
    stores,
    ingestion: { ...stores, loans: deps.loans, paymentMethods: deps.paymentMethods, accountSeal: deps.accountSeal, inbound: postgresAchInbound(testDb), inboundFormat: nachaInboundFormat },
    mailbox,
  }
}

/**
 * When the test world's jobs run, New York time on banking days: a cut-off every hour of the
 * banking day, so a debit goes out within the hour; the sandbox bank's answers collected before
 * the first; the settlement in the evening, as the live world's default.
 */
const SANDBOX_CUTOFFS = ['09:00', '10:00', '11:00', '12:00', '13:00', '14:00', '15:00', '16:00', '17:00'] as const
const SANDBOX_INBOX_AT = '08:00'
const SANDBOX_SETTLEMENT_AT = '21:00'

/** The ACH jobs this deployment schedules (for the job metrics), as `achOf` builds them: each world's rails need the sealing key, the live world's also ACH_ENABLED; only the test world's have an inbox. */
const achJobNames = (config: Config): readonly string[] =>
  config.webhookSecretKey === undefined
    ? []
    : [...(config.ach === undefined ? [] : [achOriginationJobName('live'), achSettlementJobName('live')]), achOriginationJobName('test'), achInboxJobName('test'), achSettlementJobName('test')]

/** Keys kept in the in-process key cache, and how long an entry is trusted without news. */
const KEY_CACHE_ENTRIES = 10_000
const KEY_CACHE_TTL_MS = 60_000

/** Buckets the hot-path rate limiter keeps in memory, and how often ended windows are deleted. */
const RATE_LIMIT_BUCKETS = 50_000
const RATE_LIMIT_PURGE_MS = 60_000
/** An instance counts among those sharing the rate limits for this many sync periods after its last sync. */
const RATE_LIMIT_INSTANCE_TTL_SYNCS = 10

export type Composition = {
  readonly deps: AppDeps
  readonly database: OpenDatabase
  /**
   * Brings the schema up to date (on a session of its own, `DATABASE_DIRECT_URL`), then starts the
   * background work: key-usage and rate-limit timers, and with `RUN_JOBS` webhook delivery and the
   * scheduled jobs. Until it resolves, readiness answers 503, and every route but the probes and
   * `/metrics` waits for it (`health.whenSchemaCurrent`, bounded by the app's `schemaGate`). Throws
   * when the migrations fail: the process must not serve on that schema.
   */
  readonly start: () => Promise<void>
  /** Stops the background work (a job run under way stops between steps), writes pending key usage and rate-limit counts, leaves the rate limits' count of instances, and closes the database. */
  readonly close: () => Promise<void>
  /** Pushes this instance's rate-limit counts and heartbeat now and learns the others' counts and number (the timer does it every `RATE_LIMIT_SYNC_MS`). */
  readonly syncRateLimits: () => Promise<void>
}

export type ComposeOptions = {
  /** The clock of the rate-limit windows (tests move it instead of sleeping); default the system clock. */
  readonly rateLimitClock?: Clock
  /** Report the Node.js process metrics (memory, CPU, event loop): a real process does, tests that build many do not. */
  readonly processMetrics?: boolean
  /**
   * With `RUN_JOBS`, run the scheduled jobs too (default true); tests that want webhook delivery
   * alone, on a database other suites share, turn them off.
   */
  readonly scheduledJobs?: boolean
  /** Told when the embedded server stopped under this process and could not be started again: a process exits then, for its supervisor to restart it. */
  readonly onDatabaseLost?: (error: Error) => void
}

const systemClock: Clock = { now: () => new Date() }

const NOTIFICATIONS_LOST =
  'A NOTIFY sent through DATABASE_URL did not reach the LISTEN connection of DATABASE_DIRECT_URL: key revocations would not reach the other instances. ' +
  'Behind a pooler in transaction mode, set DATABASE_DIRECT_URL to the server itself (docs/deployment.md).'

/** Runs `task` every `ms` without keeping the process alive; returns what stops it. */
const every = (ms: number, task: () => Promise<unknown>): (() => void) => {
  const timer = setInterval(() => void task(), ms)
  timer.unref()
  return () => clearInterval(timer)
}

/** Two backlogs as one: their counts added, the older of their oldest due. */
const addedBacklogs = (a: WebhookBacklog, b: WebhookBacklog): WebhookBacklog => ({
  due: a.due + b.due,
  scheduled: a.scheduled + b.scheduled,
  awaitingEndpoint: a.awaitingEndpoint + b.awaitingEndpoint,
  oldestDueAt: a.oldestDueAt === null ? b.oldestDueAt : b.oldestDueAt === null || a.oldestDueAt < b.oldestDueAt ? a.oldestDueAt : b.oldestDueAt,
})

/** Each replica's stores in both worlds, for the routes that may read behind (decision 156). */
const replicaReadsOf = (replicas: ReadReplicas, maxLagMs: number): ReplicaReads => ({
  choose: replicas.choose,
  failed: replicas.failed,
  maxLagMs,
  replicas: replicas.replicas.map(({ db, description }) => ({ description, stores: { live: postgresWorldStores(db, 'live'), test: postgresWorldStores(worldDb(db, 'test'), 'test') } })),
})

/**
 * The only place that builds adapters and wires them to the use cases. `database` may be
 * given (tests share one, already migrated); otherwise it is opened from the configuration and
 * migrated by `start`.
 */
export const compose = async (config: Config, logger: Logger, given?: OpenDatabase, options: ComposeOptions = {}): Promise<Composition> => {
  const database = given ?? (await openDatabase({ url: config.databaseUrl, directUrl: config.databaseDirectUrl, dataDir: config.dataDir, onServerLost: options.onDatabaseLost }))
  // The read replicas (decision 156), probed from `start` on. The configuration has them only with a server's URL.
  const primaryUrl = config.databaseDirectUrl ?? config.databaseUrl
  const replicas = config.databaseReadUrls.length === 0 || primaryUrl === undefined ? undefined : openReadReplicas({
    urls: config.databaseReadUrls,
    primaryUrl,
    maxLagMs: config.replicaMaxLagMs,
    poolSize: DEFAULT_POOL_SIZE,
    onChange: (replica, change) => {
      if (change._tag === 'down') logger.warn({ replica, reason: change.reason }, 'a read replica is down: its reads go to the primary')
      else if (change._tag === 'up') logger.info({ replica }, 'a read replica answers: it serves reads that may be behind')
      else if (change._tag === 'behind') logger.warn({ replica, lag_ms: change.lagMs, max_lag_ms: config.replicaMaxLagMs }, 'a read replica is too far behind: its reads go to the primary')
      else logger.info({ replica, lag_ms: change.lagMs }, 'a read replica caught up: it serves reads again')
    },
  })
  let schemaCurrent = given !== undefined
  // What `health.whenSchemaCurrent` answers: settled once, true by `start` when the schema is
  // current (at once for a given database), false by a failed `start` or by `close`.
  let settleSchema: (current: boolean) => void = () => undefined
  const schemaSettled = new Promise<boolean>((resolve) => {
    settleSchema = resolve
  })
  if (schemaCurrent) settleSchema(true)
  // Revocations reach every instance's key cache through LISTEN/NOTIFY (docs/decisions.md), from `start` on.
  const revocations = postgresKeyRevocations(database)
  const cache = cachedApiKeys(postgresApiKeyRepository(database.db), revocations, {
    maxEntries: KEY_CACHE_ENTRIES,
    ttlMs: KEY_CACHE_TTL_MS,
    clock: systemClock,
  })
  // The test world's tables (decision 128), and each world's webhook outbox.
  const testDb = worldDb(database.db, 'test')
  const queues = { live: postgresWebhookDeliveryQueue(database.db), test: postgresWebhookDeliveryQueue(testDb) }
  // Each world's deliveries of events to partners' endpoints (docs/events.md).
  const endpointQueues = { live: postgresEventDeliveryQueue(database.db, 'live'), test: postgresEventDeliveryQueue(testDb, 'test') }
  const jobLeases = postgresJobLeases(database.db)
  // Set once the scheduler runs: the metrics read its lag.
  let scheduler: Scheduler | undefined
  // Set once background work runs with RUN_JOBS: an advance asked for here starts at once.
  let clockAdvancer: ClockAdvancer | undefined
  const scheduledJobs = config.runJobs && (options.scheduledJobs ?? true)
  // The live world's return rates (docs/ach.md "Risk counters"): the route's and the gauges'.
  const returnRates = achReturnRates({ returnRates: postgresAchReturnRates(database.db), clock: systemClock })
  const metrics = createMetrics({
    connections: database.connections,
    ...(replicas === undefined ? {} : { replicas: replicas.states }),
    processMetrics: options.processMetrics ?? false,
    ...(config.runJobs
      ? {
          // The live world's deliveries waiting, to sessions' webhooks and to partners' endpoints together.
          webhookBacklog: async () => {
            const now = systemClock.now()
            const [sessions, endpoints] = await Promise.all([queues.live.backlog(now)(), endpointQueues.live.backlog(now)()])
            return E.isRight(sessions) && E.isRight(endpoints) ? addedBacklogs(sessions.right, endpoints.right) : undefined
          },
        }
      : {}),
    // Nacha's return rates, in the processes that run the ACH jobs (docs/ach.md "Risk counters"): the rails need the sealing key.
    ...(scheduledJobs && config.ach !== undefined && config.webhookSecretKey !== undefined
      ? {
          achReturnRates: async () => {
            const report = await returnRates()()
            if (E.isLeft(report)) logger.warn({ err: report.left }, 'could not count the ACH return rates; the gauges keep their last values')
            return E.isRight(report) ? report.right : undefined
          },
        }
      : {}),
    ...(scheduledJobs ? { jobs: [...WORLDS.map(servicingJobName), ...WORLDS.map(eventRetentionJobName), ...achJobNames(config)], jobLag: async () => (await scheduler?.lag()) ?? [] } : {}),
  })
  const apiKeys = metrics.countingLookups(cache)
  const idempotencyStore = postgresIdempotencyStore(database.db)
  // The core's adapters, wired in one place (postgres-core-deps.ts), behind the key cache.
  const core = postgresCoreDepsBase(database, {
    apiKeys,
    clock: systemClock,
    webhookUrls: { allowHttp: config.webhookAllowHttp, allowPrivateNetworks: config.webhookAllowPrivateNetworks },
    onKeyUsageFlushError: (err) => logger.warn({ err }, 'could not record key usage; will retry'),
  })
  // Rate limits (docs/decisions.md): the hot path counts in memory and syncs on a timer; minting
  // and verification codes take one upsert each. Both share one table of counts.
  const rateLimitClock = options.rateLimitClock ?? systemClock
  const rateLimitStore = postgresRateLimitStore(database.db)
  const rateLimiter = syncedRateLimiter({
    store: rateLimitStore,
    clock: rateLimitClock,
    instances: config.rateLimits.instances,
    instanceId: randomUUID(),
    instanceTtlMs: RATE_LIMIT_INSTANCE_TTL_SYNCS * config.rateLimits.syncMs,
    maxBuckets: RATE_LIMIT_BUCKETS,
    onSyncError: (err) => logger.warn({ err }, 'could not sync rate-limit counts; limiting on local counts until it can'),
  })

  const accountSeal = config.webhookSecretKey === undefined ? undefined : aesGcmAccountSeal(config.webhookSecretKey)
  const testStores = postgresWorldDeps(testDb, 'test')
  // Each world's ACH rails (docs/ach.md): they need the sealed account numbers. The live world's
  // with ACH_ENABLED; the test world's always, on the sandbox bank (decision 146).
  if (config.ach !== undefined && accountSeal === undefined) logger.warn({ setting: 'WEBHOOK_SECRET_KEY' }, 'ACH files are not cut without WEBHOOK_SECRET_KEY: it seals the account numbers they need')
  const railsOf = (stores: Pick<AppDeps, 'loans' | 'paymentMethods'>, processor: PaymentProcessor, seal: AccountSeal): RailsStores => ({ loans: stores.loans, paymentMethods: stores.paymentMethods, processor, accountSeal: seal, ids: core.ids, clock: systemClock, failures: loggedLoanFailures(logger, metrics) })
  // With ACH_ENABLED, the live world debits bank accounts in NACHA files (docs/ach.md); cards stay on the sandbox rails.
  // With the sandbox bank, a test bank account of one of its account numbers goes on the test world's ACH rails.
  const processors = { live: railsProcessor({ bank: achPaymentProcessor(), card: sandboxPaymentProcessor() }), test: sandboxBankRails() }
  const rails: Readonly<Record<World, ComposedRails | undefined>> = {
    live: config.ach === undefined || accountSeal === undefined ? undefined : liveRails(config.ach, database.db, railsOf(core, processors.live, accountSeal)),
    test: accountSeal === undefined ? undefined : sandboxRails(testDb, config.ach?.extraClosures ?? [], railsOf(testStores, processors.test, accountSeal)),
  }
  const runJob = runLeasedJob({ leases: jobLeases, clock: systemClock })
  /** What the routes and the scheduler do on `world`'s rails: cut a file now, ingest a file, read one, and the jobs with when they run. */
  const achOf = (world: World): AchRails | undefined => {
    const composed = rails[world]
    if (composed === undefined) return undefined
    const { stores, ingestion, mailbox } = composed
    const times = world === 'live' && config.ach !== undefined ? { cutoffs: config.ach.cutoffs, settlementAt: config.ach.settlementAt } : { cutoffs: SANDBOX_CUTOFFS, settlementAt: SANDBOX_SETTLEMENT_AT }
    const at = (times: readonly string[]) => cutoffRuns(cutoffSchedule(stores.calendar, times))
    const origination = achOriginationJob(stores, world)
    const settlement = achSettlementJob(stores, world)
    return {
      originateNow: (command) => originateAchFileNow({ ...stores, leases: jobLeases, holder: `operator:${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`, leaseMs: JOB_LEASE_MS, stopping: () => closed }, world)(command),
      ingest: (file, context) => ingestAchFile(ingestion)(file, context),
      inboundFile: (id) => findAchInboundFile(ingestion)(id),
      // Nacha's rates are the live world's: the sandbox bank's returns are rehearsals.
      returnRates: world === 'live' ? returnRates : undefined,
      entries: stores.originations,
      jobs: [
        { name: achOriginationJobName(world), schedule: at(times.cutoffs), attempt: (request) => runJob(origination(request.runKey), request) },
        ...(mailbox === undefined ? [] : [{ name: achInboxJobName(world), schedule: at([SANDBOX_INBOX_AT]), attempt: (request: JobRunRequest) => runJob(achInboxJob({ ...ingestion, inbox: mailbox }, world)(request.runKey), request) }]),
        { name: achSettlementJobName(world), schedule: at([times.settlementAt]), attempt: (request) => runJob(settlement(request.runKey), request) },
      ],
    }
  }
  const testWorld: TestWorldDeps = {
    ...testStores,
    ...(rails.test === undefined ? {} : { processor: processors.test }),
    ...testModeVerification(core.codes),
    idempotency: postgresIdempotencyStore(testDb),
    testData: postgresTestData(database.db),
    ach: achOf('test'),
  }
  const deps: AppDeps = {
    ...core,
    ...(rails.live === undefined ? {} : { processor: processors.live }),
    keyCache: apiKeys,
    idempotency: idempotencyStore,
    health: { storeReachable: () => ping(database.db), schemaCurrent: () => schemaCurrent, whenSchemaCurrent: () => schemaSettled },
    webhookSecrets: config.webhookSecretKey === undefined ? undefined : aesGcmWebhookSecrets(config.webhookSecretKey),
    accountSeal,
    ach: achOf('live'),
    // Keyed from WEBHOOK_SECRET_KEY (its own derived key) so every instance opens every
    // instance's cursors; without it, each instance seals with a key of its own.
    cursors: cursorSeal(config.webhookSecretKey ?? randomBytes(32)),
    rateLimiter: metrics.countingRefusals(rateLimiter),
    exactRateLimiter: metrics.countingRefusals(exactRateLimiter({ store: rateLimitStore, clock: rateLimitClock })),
    attemptLimiter: metrics.countingAttemptRefusals(exactAttemptLimiter({ store: rateLimitStore, clock: rateLimitClock })),
    sender:
      config.verificationDeliveryUrl !== undefined
        ? httpCodeSender(config.verificationDeliveryUrl)
        : config.production
          ? undefined
          : loggingCodeSender(logger),
    metrics,
    testWorld,
    clockAdvances: { wake: () => clockAdvancer?.wake() },
    replicaReads: replicas === undefined ? undefined : replicaReadsOf(replicas, config.replicaMaxLagMs),
  }

  /** `start` once called (it runs once), and whether `close` was: a start that ends after a close starts nothing. */
  let starting: Promise<void> | undefined
  let closed = false
  /** What stops each piece of background work once started, in the order they stop. */
  const stops: (() => void | Promise<void>)[] = []
  const startBackgroundWork = (): void => {
    stops.push(
      every(config.keyUsageFlushMs, () => core.usage.flush()),
      every(IDEMPOTENCY_PURGE_MS, async () => {
        for (const store of [idempotencyStore, testWorld.idempotency]) {
          const purged = await store.purgeExpired(systemClock.now())()
          if (E.isLeft(purged)) logger.warn({ err: purged.left.cause }, 'could not purge expired idempotency keys')
        }
      }),
      every(config.rateLimits.syncMs, () => rateLimiter.sync()),
      every(RATE_LIMIT_PURGE_MS, async () => {
        const purged = await rateLimitStore.purgeEnded(rateLimitClock.now())()
        if (E.isLeft(purged)) logger.warn({ err: purged.left.cause }, 'could not purge ended rate-limit windows')
      }),
    )
    if (!config.runJobs) return
    clockAdvancer = startClockAdvancer(
      advanceClaimedClock({
        testClocks: testWorld.testClocks,
        loans: testWorld.loans,
        audit: testWorld.audit,
        ids: core.ids,
        clock: systemClock,
        failures: loggedLoanFailures(logger, metrics),
        // A party's debits on the sandbox bank move with its clock (decision 147).
        ...(rails.test?.mailbox === undefined ? {} : { rails: { origination: rails.test.stores, ingestion: rails.test.ingestion, inboxOf: rails.test.mailbox.ofParty } }),
      }),
      logger,
    )
    stops.unshift(clockAdvancer.stop)
    const webhookSecrets = deps.webhookSecrets
    if (webhookSecrets === undefined) {
      logger.warn({ setting: 'WEBHOOK_SECRET_KEY' }, 'webhook delivery does not run without WEBHOOK_SECRET_KEY')
    } else {
      for (const queue of WORLDS.flatMap((world) => [queues[world], endpointQueues[world]])) {
        const worker = startWebhookWorker(
          deliverDueWebhooks({
            queue,
            sender: guardedSender(deps.urlGuard, httpWebhookSender({ allowPrivateNetworks: config.webhookAllowPrivateNetworks })),
            sign: signWebhook,
            webhookSecrets,
            clock: systemClock,
            schedule: config.webhookRetrySchedule,
            random: Math.random,
          }),
          logger,
          metrics,
        )
        stops.unshift(worker.stop)
      }
    }
    if (!scheduledJobs) return
    /** `world`'s daily servicing job, on its own stores and lease. */
    const servicingOf = (world: World) => {
      const { loans, audit } = inWorld(deps, world)
      const servicing = dailyServicingJob({ loans, ids: core.ids, clock: systemClock, audit, failures: loggedLoanFailures(logger, metrics) }, world)
      return { name: servicingJobName(world), schedule: dailySchedule(config.servicingJobAtMinute), attempt: (request: Parameters<typeof runJob>[1]) => runJob(servicing(request.runKey), request) }
    }
    /** `world`'s event retention job (docs/events.md), an hour after the servicing job. */
    const retentionOf = (world: World) => {
      const retention = eventRetentionJob({ eventLog: inWorld(deps, world).eventLog, clock: systemClock }, world)
      return {
        name: eventRetentionJobName(world),
        schedule: dailySchedule((config.servicingJobAtMinute + 60) % 1440),
        attempt: (request: Parameters<typeof runJob>[1]) => runJob(retention(request.runKey), request),
      }
    }
    const running = startScheduler({ lastCompleted: jobLeases.lastCompleted, clock: systemClock, metrics, logger }, [...WORLDS.map(servicingOf), ...WORLDS.map(retentionOf), ...WORLDS.flatMap((world) => inWorld(deps, world).ach?.jobs ?? [])])
    scheduler = running
    stops.unshift(running.stop)
  }

  return {
    deps,
    database,
    start: () =>
      (starting ??= (async () => {
        if (!schemaCurrent) {
          const applied = await database.withSession(migrateToLatest)
          logger.info({ database: database.description, applied }, 'database ready')
        }
        await revocations.start()
        if (!(await notificationsArrive(database))) throw new Error(NOTIFICATIONS_LOST)
        // A replica that does not answer is skipped, never a reason not to serve.
        await replicas?.start()
        // Counted by the others and counting them before it serves: a failed sync leaves the
        // floor, RATE_LIMIT_INSTANCES, until one succeeds.
        await rateLimiter.sync()
        if (closed) return
        schemaCurrent = true
        settleSchema(true)
        startBackgroundWork()
      })().catch((err: unknown) => {
        settleSchema(false)
        throw err
      })),
    close: async () => {
      closed = true
      settleSchema(false)
      await starting?.catch(() => undefined)
      for (const stop of stops) await stop()
      cache.close()
      await revocations.stop()
      await core.usage.flush()
      await rateLimiter.sync()
      await rateLimiter.leave()
      await replicas?.close()
      if (given === undefined) await database.close()
    },
    syncRateLimits: rateLimiter.sync,
  }
}
