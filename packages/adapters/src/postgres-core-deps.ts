import { postgresEventEndpointRepository } from './postgres/event-endpoint-repository.js'
import { postgresEventLog } from './postgres/event-log.js'
import { batchedKeyUsage, type ApiKeyRepository, type Clock, type CoreDeps, type VerificationCodeSender, type World, type WorldDeps } from '@lendgate/core'
import type { Kysely } from 'kysely'
import { nodeApiKeyMaterial } from './crypto/api-key-material.js'
import { randomIds } from './crypto/ids.js'
import { scryptOneTimeCodes } from './crypto/one-time-codes.js'
import { nodeOperatorSecrets } from './crypto/operator-secrets.js'
import { postgresOperatorRepository } from './postgres/operator-repository.js'
import { aesGcmWebhookSecrets } from './crypto/webhook-secrets.js'
import { aesGcmAccountSeal } from './crypto/account-seal.js'
import { sandboxPaymentProcessor, sandboxTokenizer } from './payments/sandbox.js'
import { postgresApiKeyRepository } from './postgres/api-key-repository.js'
import { postgresAuditLog } from './postgres/audit-log.js'
import type { OpenDatabase } from './postgres/database.js'
import { postgresDocumentRepository } from './postgres/document-repository.js'
import { postgresLoanApplicationRepository } from './postgres/loan-application-repository.js'
import { postgresLoanProductRepository } from './postgres/loan-product-repository.js'
import { postgresLoanRepository } from './postgres/loan-repository.js'
import { postgresOnboardingSessionRepository } from './postgres/onboarding-session-repository.js'
import { postgresPartyRepository } from './postgres/party-repository.js'
import { postgresPaymentMethodRepository } from './postgres/payment-method-repository.js'
import { postgresTestClockRepository } from './postgres/test-clock-repository.js'
import { postgresVerificationChallengeRepository } from './postgres/verification-challenge-repository.js'
import { postgresWebhookEndpointRepository } from './postgres/webhook-endpoint-repository.js'
import { postgresWebhookEventRepository } from './postgres/webhook-event-repository.js'
import type { Database } from './postgres/schema.js'
import { webhookUrlGuard, type UrlGuardOptions } from './webhooks/url-guard.js'

/**
 * `CoreDeps` but the two members that come from a deployment's configuration and that a
 * deployment may lack: the verification-code sender and the webhook secrets (sealed under
 * a key). The HTTP app runs on this plus whichever of the two it has.
 */
export type CoreDepsBase = Omit<CoreDeps, 'sender' | 'webhookSecrets' | 'accountSeal'>

/** What `postgresCoreDepsBase` may be told; every member has a default. */
export type PostgresCoreDepsOptions = {
  /** The time every use case reads; default the system clock. */
  readonly clock?: Clock
  /**
   * Which webhook URLs registration accepts (WEBHOOK_ALLOW_HTTP, WEBHOOK_ALLOW_PRIVATE_NETWORKS,
   * a resolver of one's own); default https to public addresses only, resolved by the system.
   */
  readonly webhookUrls?: UrlGuardOptions
  /**
   * The key repository in place of the plain Kysely one (compose.ts puts its key cache in
   * front of that); key usage is recorded through it.
   */
  readonly apiKeys?: ApiKeyRepository
  /** Told when buffered key usage could not be written (it is kept for the next flush); default ignores it. */
  readonly onKeyUsageFlushError?: (error: unknown) => void
}

/** What `postgresCoreDeps` needs from outside besides the database: the two configured dependencies. */
export type PostgresCoreDepsConfiguration = PostgresCoreDepsOptions & {
  /** 32 bytes: seals webhook signing secrets and (under a key derived from it) bank account numbers at rest with AES-256-GCM (WEBHOOK_SECRET_KEY). Never log it. */
  readonly webhookSecretKey: Uint8Array
  /** Delivers verification codes: `httpCodeSender(url)`, or a service's own adapter. */
  readonly sender: VerificationCodeSender
}

const systemClock: Clock = { now: () => new Date() }

/** A world's stores: its repositories, without the payment rails and the world's name that `WorldDeps` adds. */
export type WorldStores = Omit<WorldDeps, 'processor' | 'tokenizer' | 'world'>

/**
 * A Kysely repository for each of a world's stores on `db`, bound to that world's tables
 * (`worldDb`). A read replica's stores (decision 156) are these on the replica's database.
 */
export const postgresWorldStores = (db: Kysely<Database>, world: World): WorldStores => ({
  sessions: postgresOnboardingSessionRepository(db),
  documents: postgresDocumentRepository(db),
  parties: postgresPartyRepository(db),
  challenges: postgresVerificationChallengeRepository(db),
  webhooks: postgresWebhookEndpointRepository(db),
  events: postgresWebhookEventRepository(db),
  applications: postgresLoanApplicationRepository(db),
  loans: postgresLoanRepository(db),
  paymentMethods: postgresPaymentMethodRepository(db),
  audit: postgresAuditLog(db),
  eventLog: postgresEventLog(db, world),
  eventEndpoints: postgresEventEndpointRepository(db),
  testClocks: postgresTestClockRepository(db),
})

/**
 * The stores of `world` (decision 128) on `db`, bound to that world's tables (`worldDb`): a Kysely
 * repository for each (`postgresWorldStores`), with the sandbox payment rails.
 */
export const postgresWorldDeps = (db: Kysely<Database>, world: World): WorldDeps => ({
  ...postgresWorldStores(db, world),
  processor: sandboxPaymentProcessor(),
  tokenizer: sandboxTokenizer(),
  world,
})

/**
 * The one place that builds the core's adapters on a database: the live world's stores
 * (`postgresWorldDeps`; the test world's are `postgresWorldDeps(worldDb(db, 'test'), 'test')`), and the
 * shared ones: a Kysely repository for keys and products, node crypto for ids, key material and
 * one-time codes (scrypt), the guarded webhook URL check. `usage` buffers key uses: call
 * `usage.flush()` on a timer and before closing the database. Nothing is started (no timer, no
 * listener), so closing the database is all the clean-up it needs.
 */
export const postgresCoreDepsBase = (database: OpenDatabase, options: PostgresCoreDepsOptions = {}): CoreDepsBase => {
  const { db } = database
  const apiKeys = options.apiKeys ?? postgresApiKeyRepository(db)
  return {
    ...postgresWorldDeps(db, 'live'),
    apiKeys,
    keyMaterial: nodeApiKeyMaterial(),
    usage: batchedKeyUsage({ apiKeys, onFlushError: options.onKeyUsageFlushError ?? (() => undefined) }),
    codes: scryptOneTimeCodes(),
    urlGuard: webhookUrlGuard(options.webhookUrls ?? { allowHttp: false, allowPrivateNetworks: false }),
    products: postgresLoanProductRepository(db),
    operators: postgresOperatorRepository(db),
    operatorSecrets: nodeOperatorSecrets(),
    ids: randomIds(),
    clock: options.clock ?? systemClock,
  }
}

/**
 * Every dependency of the core's use cases on a database (`postgresCoreDepsBase`), with the
 * code sender given and webhook secrets and bank account numbers sealed under `webhookSecretKey`: what a service that
 * embeds the core hands to its use cases. The database must be migrated (`migrateToLatest`).
 */
export const postgresCoreDeps = (database: OpenDatabase, configuration: PostgresCoreDepsConfiguration): CoreDeps => ({
  ...postgresCoreDepsBase(database, configuration),
  sender: configuration.sender,
  webhookSecrets: aesGcmWebhookSecrets(configuration.webhookSecretKey),
  accountSeal: aesGcmAccountSeal(configuration.webhookSecretKey),
})
