/**
 * The adapters of `@lendgate/core`'s ports: PostgreSQL through Kysely (the pg driver or the embedded
 * server), node crypto, outbound HTTP for webhooks and verification codes, and the sandbox payment
 * rails. Test databases are in `@lendgate/adapters/testing`.
 *
 * @module @lendgate/adapters
 */

// The database: opening it, migrations, what a store failure says
export {
  type OpenDatabase, type PoolConnections, type QueryLog, DEFAULT_POOL_SIZE, MEMORY_URL, openDatabase, ping, notificationsArrive,
} from './postgres/database.js'
export {
  type ReadReplicas, type ReadReplica, type ReplicaChoice, type ReplicaState, type ReplicaChange, type ReadReplicaOptions, REPLICA_PROBE_MS, openReadReplicas,
} from './postgres/read-replicas.js'
export { MIGRATION_NAMES, appliedMigrations, migrateToLatest } from './postgres/migrate.js'
export { storeFailureKind, loggableDatabaseError } from './postgres/store-errors.js'

// The core's dependencies on a database, wired once
export {
  type CoreDepsBase, type PostgresCoreDepsOptions, type PostgresCoreDepsConfiguration, postgresCoreDepsBase, postgresCoreDeps, postgresWorldDeps,
  type WorldStores, postgresWorldStores,
} from './postgres-core-deps.js'
export { TEST_WORLD_SCHEMA, WORLD_TABLES, worldDb } from './postgres/worlds.js'

// Repositories and stores the API and tools build on their own
export { postgresApiKeyRepository } from './postgres/api-key-repository.js'
export { postgresOperatorRepository } from './postgres/operator-repository.js'
export { postgresKeyRevocations } from './postgres/key-revocations.js'
export { postgresOnboardingSessionRepository } from './postgres/onboarding-session-repository.js'
export { postgresLoanProductRepository } from './postgres/loan-product-repository.js'
export { postgresLoanApplicationRepository } from './postgres/loan-application-repository.js'
export { postgresIdempotencyStore } from './postgres/idempotency-store.js'
export { postgresRateLimitStore } from './postgres/rate-limit-store.js'
export { postgresJobLeases } from './postgres/job-leases.js'
export { postgresWebhookEventRepository } from './postgres/webhook-event-repository.js'
export { postgresWebhookDeliveryQueue } from './postgres/webhook-delivery-queue.js'
export { postgresEventDeliveryQueue } from './postgres/event-delivery-queue.js'
export { postgresTestData } from './postgres/test-data.js'

// Backup and restore
export { backupTables } from './postgres/backup-catalog.js'
export { backupToFile } from './postgres/backup.js'
export { type RestoreRefusal, restoreFromFile } from './postgres/restore.js'

// Crypto: keys, secrets, ids, one-time codes, sealed cursors
export { nodeApiKeyMaterial } from './crypto/api-key-material.js'
export { secretsEqual, randomSecret } from './crypto/secrets.js'
export { randomIds } from './crypto/ids.js'
export { scryptOneTimeCodes } from './crypto/one-time-codes.js'
export { nodeOperatorSecrets } from './crypto/operator-secrets.js'
export { aesGcmWebhookSecrets } from './crypto/webhook-secrets.js'
export { aesGcmAccountSeal } from './crypto/account-seal.js'
export { type CursorSeal, cursorSeal } from './crypto/cursor-seal.js'

// Outbound HTTP: webhooks and verification codes
export { webhookUrlGuard } from './webhooks/url-guard.js'
export { signWebhook } from './webhooks/signature.js'
export { WEBHOOK_TIMEOUT_MS, httpWebhookSender } from './webhooks/http-sender.js'
export { guardedSender } from './webhooks/guarded-sender.js'
export { httpCodeSender } from './verification/http-code-sender.js'

// Payment rails
export { SANDBOX_AMOUNT_TRIGGERS, SANDBOX_TEST_ACCOUNTS, type SandboxFailureCode, sandboxBankRails, sandboxPaymentProcessor, sandboxTokenizer } from './payments/sandbox.js'
export { folderSink } from './ach/folder-sink.js'
export { type BankDecision, type BankFile, SANDBOX_BANK_ACCOUNTS, SANDBOX_BANK_RULES, SANDBOX_ORIGINATOR, sandboxBank, type SandboxBank, type SandboxBankOptions, type SandboxBankOutcome, type SandboxBankRule, type SentFile } from './ach/sandbox-bank.js'
export { postgresAchOriginations } from './postgres/ach-originations.js'
export { postgresAchInbound } from './postgres/ach-inbound.js'
export { postgresAchReturnRates } from './postgres/ach-return-rates.js'
export { postgresSandboxBankMailbox, type SandboxBankMailbox } from './postgres/ach-sandbox-files.js'
export { type AchOriginator, ENTRY_DESCRIPTION, nachaFileFormat, nachaInboundFormat } from './ach/nacha-format.js'
export { achPaymentProcessor, railsProcessor } from './payments/rails.js'
