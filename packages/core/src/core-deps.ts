import type { ApiKeyMaterial } from './ports/api-key-material.js'
import type { ApiKeyRepository } from './ports/api-key-repository.js'
import type { AuditLog } from './ports/audit-log.js'
import type { Clock } from './ports/clock.js'
import type { DocumentRepository } from './ports/document-repository.js'
import type { EventEndpointRepository } from './ports/event-endpoint-repository.js'
import type { EventLog } from './ports/event-log.js'
import type { IdGenerator } from './ports/id-generator.js'
import type { KeyUsageRecorder } from './ports/key-usage-recorder.js'
import type { LoanApplicationRepository } from './ports/loan-application-repository.js'
import type { LoanProductRepository } from './ports/loan-product-repository.js'
import type { LoanRepository } from './ports/loan-repository.js'
import type { OperatorRepository } from './ports/operator-repository.js'
import type { OperatorSecrets } from './ports/operator-secrets.js'
import type { OnboardingSessionRepository } from './ports/onboarding-session-repository.js'
import type { OneTimeCodes } from './ports/one-time-codes.js'
import type { PartyRepository } from './ports/party-repository.js'
import type { PaymentMethodRepository } from './ports/payment-method-repository.js'
import type { PaymentProcessor } from './ports/payment-processor.js'
import type { PaymentTokenizer } from './ports/payment-tokenizer.js'
import type { AccountSeal } from './ports/account-seal.js'
import type { TestClockRepository } from './ports/test-clock-repository.js'
import type { VerificationChallengeRepository } from './ports/verification-challenge-repository.js'
import type { VerificationCodeSender } from './ports/verification-code-sender.js'
import type { WebhookEndpointRepository } from './ports/webhook-endpoint-repository.js'
import type { WebhookEventRepository } from './ports/webhook-event-repository.js'
import type { WebhookSecrets } from './ports/webhook-secrets.js'
import type { WebhookUrlGuard } from './ports/webhook-url-guard.js'
import { KEY_ENVIRONMENTS, type KeyEnvironment } from './domain/keys/api-key.js'

/**
 * Every dependency of core's use cases (`inMemoryCoreDeps`, `postgresCoreDeps`); not what only the
 * HTTP edge uses, nor the delivery worker's `DeliverDueWebhooksDeps`.
 */
export type CoreDeps = {
  readonly apiKeys: ApiKeyRepository
  readonly keyMaterial: ApiKeyMaterial
  /** Buffered: its builder calls `flush` on a timer and before closing the store. */
  readonly usage: KeyUsageRecorder
  /** Approval also writes the party and queues `party.ready`. */
  readonly sessions: OnboardingSessionRepository
  readonly documents: DocumentRepository
  readonly parties: PartyRepository
  readonly challenges: VerificationChallengeRepository
  readonly codes: OneTimeCodes
  readonly sender: VerificationCodeSender
  readonly webhooks: WebhookEndpointRepository
  readonly events: WebhookEventRepository
  readonly webhookSecrets: WebhookSecrets
  readonly urlGuard: WebhookUrlGuard
  readonly products: LoanProductRepository
  /** Approval books the loan. */
  readonly applications: LoanApplicationRepository
  readonly loans: LoanRepository
  readonly paymentMethods: PaymentMethodRepository
  readonly processor: PaymentProcessor
  readonly tokenizer: PaymentTokenizer
  /** Seals bank account numbers kept for bank files; shared by both worlds, like the webhook secrets. */
  readonly accountSeal: AccountSeal
  readonly audit: AuditLog
  /** What partners are told happened (docs/events.md); written by the stores whose changes cause it. */
  readonly eventLog: EventLog
  /** Partners' webhook endpoints; their deliveries are queued with the events. */
  readonly eventEndpoints: EventEndpointRepository
  /** The test world's clocks (decision 131); the live world's store has none. */
  readonly testClocks: TestClockRepository
  /** Named operators and their console sessions (decision 149); shared by both worlds, audited in the live world's log. */
  readonly operators: OperatorRepository
  readonly operatorSecrets: OperatorSecrets
  /** The world these stores are of (decision 128): what an event written in it says (`livemode`). */
  readonly world: World
  readonly ids: IdGenerator
  readonly clock: Clock
}

/** The two worlds (decision 128): a key's environment names the world its requests act on. */
export type World = KeyEnvironment

/** Both worlds, live first. */
export const WORLDS: readonly World[] = KEY_ENVIRONMENTS

/**
 * The members of `CoreDeps` each world has its own of (decision 128): the stores of partner
 * objects, their audit trail and the rails that move their money. Keys, products, crypto, the
 * code sender and the clock are shared.
 */
export const WORLD_MEMBERS = ['sessions', 'documents', 'parties', 'challenges', 'webhooks', 'events', 'applications', 'loans', 'paymentMethods', 'processor', 'tokenizer', 'audit', 'eventLog', 'eventEndpoints', 'testClocks', 'world'] as const

/** What one world adds to the shared dependencies. */
export type WorldDeps = Pick<CoreDeps, (typeof WORLD_MEMBERS)[number]>
