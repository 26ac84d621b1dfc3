import type { CursorSeal, ReadReplicas, WorldStores } from '@lendgate/adapters'
import type {
  AccountSeal,
  AchInboundFileRecord,
  AchOriginations,
  AchOriginationRun,
  AuditContext,
  InboundFileId,
  IngestionError,
  InvalidRequest,
  NotFound,
  ReturnRateReport,
  StoreUnavailable,
  AttemptLimiter,
  CachedApiKeys,
  CoreDeps,
  HealthCheck,
  IdempotencyStore,
  RateLimiter,
  TestData,
  VerificationCodeSender,
  WebhookSecrets,
  World,
  WorldDeps,
} from '@lendgate/core'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { Metrics } from './metrics.js'
import type { ScheduledJob } from './scheduler.js'

/**
 * Everything the routes use, built once by compose.ts (or by a test, from in-memory adapters):
 * the core's dependencies (`CoreDeps`) and what only the HTTP edge needs. The code sender and
 * the webhook secrets come from configuration a deployment may not have: here, unlike in
 * `CoreDeps`, they may be undefined, and the routes that need them answer `server_misconfigured`.
 */
export type AppDeps = Omit<CoreDeps, 'sender' | 'webhookSecrets' | 'accountSeal'> & {
  /** Undefined in production when VERIFICATION_DELIVERY_URL is not set: code routes answer server_misconfigured. */
  readonly sender: VerificationCodeSender | undefined
  /** Undefined when WEBHOOK_SECRET_KEY is not set (production): registration answers server_misconfigured. */
  readonly webhookSecrets: WebhookSecrets | undefined
  /** Undefined when WEBHOOK_SECRET_KEY is not set (production): bank accounts are added without keeping their numbers. */
  readonly accountSeal: AccountSeal | undefined
  /** The live world's ACH rails (ACH_ENABLED, docs/ach.md); undefined when they are off. */
  readonly ach: AchRails | undefined
  /**
   * The keys `apiKeys` answers from memory (the key cache): a key it holds costs no store read
   * and never counts against the key-lookup limit. Without a cache, `held` holds nothing.
   */
  readonly keyCache: Pick<CachedApiKeys, 'held'>
  readonly idempotency: IdempotencyStore
  readonly health: HealthCheck
  /** The hot-path limiter (counts in memory, synced to the database on a timer): every partner route. */
  readonly rateLimiter: RateLimiter
  /** The exact limiter (one database upsert per request): key minting and verification codes. */
  readonly exactRateLimiter: RateLimiter
  /** Failed mint attempts, limited exactly (decision 109). */
  readonly attemptLimiter: AttemptLimiter
  /** Seals every list's cursors to the list, caller and filters they were issued for. */
  readonly cursors: CursorSeal
  /** This process's metrics, served at `/metrics`. */
  readonly metrics: Metrics
  /** Wakes this process's worker of test clock advances (decision 131) at once; where none runs (without RUN_JOBS), another process's polls find the advance. */
  readonly clockAdvances: { readonly wake: () => void }
  /** The test world's stores (decision 128): a request acting on the test world uses them in place of the live ones (`inWorld`). */
  readonly testWorld: TestWorldDeps
  /** The read replicas (DATABASE_READ_URL, decision 156); undefined: every read on the primary. */
  readonly replicaReads: ReplicaReads | undefined
}

/**
 * The read replicas as the routes use them (decision 156): each one's stores in each world, in the
 * order of DATABASE_READ_URL, and the choice of one for a read (`ReadReplicas`).
 */
export type ReplicaReads = Pick<ReadReplicas, 'choose' | 'failed'> & {
  readonly replicas: readonly { readonly description: string; readonly stores: Readonly<Record<World, WorldStores>> }[]
  /** REPLICA_MAX_LAG_MS: a replica further behind is skipped, so a write older than this is on every replica that serves. */
  readonly maxLagMs: number
}

/** One world's stores as the routes use them: the core's (`WorldDeps`) and the idempotency records. */
export type AppWorldDeps = WorldDeps & { readonly idempotency: IdempotencyStore }

/**
 * The test world's: its stores, its verification (`testModeVerification`: the code is always
 * 000000, and nothing is sent), and the wipe of a partner's test data, which only it has.
 */
export type TestWorldDeps = AppWorldDeps & Pick<CoreDeps, 'codes' | 'sender'> & {
  readonly testData: TestData
  /** The test world's ACH rails, on the sandbox bank (decision 146); undefined without the key that seals account numbers. */
  readonly ach: AchRails | undefined
}

/**
 * `deps` acting on `world` (decision 128): the live world's are `deps` itself; the test world's put
 * its own stores in their place, its rails on the sandbox bank among them.
 */
export const inWorld = (deps: AppDeps, world: World): AppDeps => (world === 'live' ? deps : { ...deps, ...deps.testWorld })

/** What operators can do on a world's ACH rails over HTTP, and its jobs. */
export type AchRails = {
  /** Cuts a file now (`originateAchFileNow`). */
  readonly originateNow: (command: unknown) => TE.TaskEither<InvalidRequest | StoreUnavailable, AchOriginationRun>
  /** Ingests a file the bank sent back (`ingestAchFile`), as `context`'s operator. */
  readonly ingest: (file: Uint8Array, context: AuditContext) => TE.TaskEither<IngestionError, AchInboundFileRecord>
  /** Nacha's return rates per API client over the last 60 days (`achReturnRates`): the live world's only (undefined: the route answers as with the rails off). */
  readonly returnRates: ((command: unknown) => TE.TaskEither<InvalidRequest | StoreUnavailable, ReturnRateReport>) | undefined
  /** An inbound file as recorded (`findAchInboundFile`). */
  readonly inboundFile: (id: InboundFileId) => TE.TaskEither<NotFound | StoreUnavailable, AchInboundFileRecord>
  /** The world's entries: a test helper's return marks its debit's. */
  readonly entries: Pick<AchOriginations, 'markReturned'>
  /** The world's ACH jobs (origination, the inbox where there is one, settlement), with when each runs: the scheduler runs them, and tests at the days they choose. */
  readonly jobs: readonly ScheduledJob[]
}
