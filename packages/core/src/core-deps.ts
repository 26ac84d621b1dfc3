import type { ApiKeyMaterial } from './ports/api-key-material.js'
import type { ApiKeyRepository } from './ports/api-key-repository.js'
import type { AuditLog } from './ports/audit-log.js'
import type { Clock } from './ports/clock.js'
import type { DocumentRepository } from './ports/document-repository.js'
import type { IdGenerator } from './ports/id-generator.js'
import type { KeyUsageRecorder } from './ports/key-usage-recorder.js'
import type { LoanApplicationRepository } from './ports/loan-application-repository.js'
import type { LoanProductRepository } from './ports/loan-product-repository.js'
import type { LoanRepository } from './ports/loan-repository.js'
import type { OnboardingSessionRepository } from './ports/onboarding-session-repository.js'
import type { OneTimeCodes } from './ports/one-time-codes.js'
import type { PartyRepository } from './ports/party-repository.js'
import type { PaymentMethodRepository } from './ports/payment-method-repository.js'
import type { PaymentProcessor } from './ports/payment-processor.js'
import type { PaymentTokenizer } from './ports/payment-tokenizer.js'
import type { VerificationChallengeRepository } from './ports/verification-challenge-repository.js'
import type { VerificationCodeSender } from './ports/verification-code-sender.js'
import type { WebhookEndpointRepository } from './ports/webhook-endpoint-repository.js'
import type { WebhookEventRepository } from './ports/webhook-event-repository.js'
import type { WebhookSecrets } from './ports/webhook-secrets.js'
import type { WebhookUrlGuard } from './ports/webhook-url-guard.js'

/**
 * Every dependency the core's use cases take, in one record: a value of this type can be handed
 * to any of them (`mintApiKey(deps)`, `approveLoanApplication(deps)`, …), each reading only the
 * members its own deps type names. It is what an embedding service builds once, from
 * `inMemoryCoreDeps` (`@lendgate/core/testing`) or `postgresCoreDeps` (`@lendgate/adapters`).
 *
 * Left out on purpose: what only the HTTP edge uses (the key cache, rate limiters, the
 * idempotency store, cursor sealing, the health check), and the delivery worker
 * `deliverDueWebhooks`, which a deployment runs with a queue, a webhook sender and a retry
 * schedule of its own (`DeliverDueWebhooksDeps`).
 *
 * `sender` and `webhookSecrets` are required here, so every use case can be called; the HTTP
 * app may run without them (its `AppDeps` makes them optional and answers
 * `server_misconfigured` on the routes that need them).
 */
export type CoreDeps = {
  /** API clients and keys: minting, lookup, revocation, usage. */
  readonly apiKeys: ApiKeyRepository
  /** Generates and checks key secrets (CSPRNG, checksum, hash). */
  readonly keyMaterial: ApiKeyMaterial
  /**
   * Notes each key use for `last_used_at`. Buffered: whoever builds it calls `flush` on a timer
   * and before closing the store, or the last uses are never written.
   */
  readonly usage: KeyUsageRecorder
  /** Onboarding sessions; approval also writes the party and queues `party.ready`. */
  readonly sessions: OnboardingSessionRepository
  /** Document metadata of onboarding sessions. */
  readonly documents: DocumentRepository
  /** Parties (approved borrowers) and their addresses. */
  readonly parties: PartyRepository
  /** Phone and email verification challenges. */
  readonly challenges: VerificationChallengeRepository
  /** Makes one-time codes and checks them against their salted hash. */
  readonly codes: OneTimeCodes
  /** Delivers verification codes (SMS, email) through the deployment's service. */
  readonly sender: VerificationCodeSender
  /** Each session's `party.ready` endpoint. */
  readonly webhooks: WebhookEndpointRepository
  /** Queued webhook events and their delivery attempts, as partners see them. */
  readonly events: WebhookEventRepository
  /** Generates webhook signing secrets and seals them at rest. */
  readonly webhookSecrets: WebhookSecrets
  /** Decides whether a URL may receive webhooks. */
  readonly urlGuard: WebhookUrlGuard
  /** The loan product catalogue. */
  readonly products: LoanProductRepository
  /** Loan applications; approval books the loan. */
  readonly applications: LoanApplicationRepository
  /** Booked loans: schedule, ledger, balances, payments, collateral, documents. */
  readonly loans: LoanRepository
  /** Tokenised bank accounts and cards of loans. */
  readonly paymentMethods: PaymentMethodRepository
  /** Charges a payment method. */
  readonly processor: PaymentProcessor
  /** Exchanges a bank account number for a token. */
  readonly tokenizer: PaymentTokenizer
  /** The audit log: listed by operators, written by the accrual job. */
  readonly audit: AuditLog
  /** Identifiers of new records. */
  readonly ids: IdGenerator
  /** The time every use case reads. */
  readonly clock: Clock
}
