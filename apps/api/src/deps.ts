import type { CursorSeal } from '@lendgate/adapters'
import type {
  ApiKeyMaterial,
  ApiKeyRepository,
  AuditLog,
  CachedApiKeys,
  Clock,
  HealthCheck,
  IdempotencyStore,
  IdGenerator,
  KeyUsageRecorder,
  LoanApplicationRepository,
  LoanProductRepository,
  LoanRepository,
  PaymentMethodRepository,
  PaymentProcessor,
  PaymentTokenizer,
  RateLimiter,
  DocumentRepository,
  OneTimeCodes,
  PartyRepository,
  OnboardingSessionRepository,
  VerificationChallengeRepository,
  VerificationCodeSender,
  WebhookEndpointRepository,
  WebhookEventRepository,
  WebhookSecrets,
  WebhookUrlGuard,
} from '@lendgate/core'

/** Everything the routes use, built once by compose.ts (or by a test, from in-memory adapters). */
export type AppDeps = {
  readonly apiKeys: ApiKeyRepository
  /**
   * The keys `apiKeys` answers from memory (the key cache): a key it holds costs no store read
   * and never counts against the key-lookup limit. Without a cache, `held` holds nothing.
   */
  readonly keyCache: Pick<CachedApiKeys, 'held'>
  readonly sessions: OnboardingSessionRepository
  readonly idempotency: IdempotencyStore
  readonly keyMaterial: ApiKeyMaterial
  readonly usage: KeyUsageRecorder
  readonly ids: IdGenerator
  readonly clock: Clock
  readonly health: HealthCheck
  readonly documents: DocumentRepository
  readonly parties: PartyRepository
  readonly challenges: VerificationChallengeRepository
  readonly codes: OneTimeCodes
  /** Undefined in production when VERIFICATION_DELIVERY_URL is not set: code routes answer server_misconfigured. */
  readonly sender: VerificationCodeSender | undefined
  readonly webhooks: WebhookEndpointRepository
  readonly events: WebhookEventRepository
  /** Undefined when WEBHOOK_SECRET_KEY is not set (production): registration answers server_misconfigured. */
  readonly webhookSecrets: WebhookSecrets | undefined
  readonly urlGuard: WebhookUrlGuard
  readonly products: LoanProductRepository
  readonly applications: LoanApplicationRepository
  readonly loans: LoanRepository
  readonly paymentMethods: PaymentMethodRepository
  readonly processor: PaymentProcessor
  readonly tokenizer: PaymentTokenizer
  /** The hot-path limiter (counts in memory, synced to the database on a timer): every partner route. */
  readonly rateLimiter: RateLimiter
  /** The exact limiter (one database upsert per request): key minting and verification codes. */
  readonly exactRateLimiter: RateLimiter
  /** The audit log: read by `GET /internal/audit-events`; written by the repositories' audited writes. */
  readonly audit: AuditLog
  /** Seals every list's cursors to the list, caller and filters they were issued for. */
  readonly cursors: CursorSeal
}
