/**
 * In-memory ports, a controllable clock and predictable fakes, for tests only. Port contract
 * suites are in `@lendgate/core/testing/contracts`.
 *
 * @module @lendgate/core/testing
 */

// Every dependency at once
export { type InMemoryCoreDepsOptions, type InMemoryCoreDeps, type InMemoryWorld, inMemoryCoreDeps, inMemoryWorld } from './in-memory-core-deps.js'

// Clock and ids
export { type TestClock, testClock } from './fixed-clock.js'
export { sequentialIds } from './sequential-ids.js'
export { type TestId, testId } from './test-ids.js'

// API keys and audit
export { fakeKeyMaterial } from './fake-key-material.js'
export { type InMemoryApiKeyRepository, inMemoryApiKeyRepository } from './in-memory-api-key-repository.js'
export { type InMemoryAuditLog, inMemoryAuditLog } from './in-memory-audit-log.js'
export { type InMemoryEventLog, inMemoryEventLog } from './in-memory-event-log.js'
export { type InMemoryIdempotencyStore, inMemoryIdempotencyStore } from './in-memory-idempotency-store.js'
export { inMemoryTestData } from './in-memory-test-data.js'

// Named operators and their console sessions
export { type InMemoryOperatorRepository, inMemoryOperatorRepository } from './in-memory-operator-repository.js'
export { fakeOperatorSecrets } from './fake-operator-secrets.js'

// Onboarding and webhooks
export { inMemoryOnboardingSessionRepository } from './in-memory-onboarding-session-repository.js'
export { inMemoryVerificationChallengeRepository } from './in-memory-verification-challenge-repository.js'
export { fakeOneTimeCodes } from './fake-one-time-codes.js'
export { type RecordingCodeSender, recordingCodeSender } from './recording-code-sender.js'
export { inMemoryDocumentRepository } from './in-memory-document-repository.js'
export { inMemoryWebhookEndpointRepository } from './in-memory-webhook-endpoint-repository.js'

// Lending: products, applications and the loans they book, payment methods
export { inMemoryLoanProductRepository } from './in-memory-loan-product-repository.js'
export { SEEDED_LOAN_PRODUCTS } from './seeded-loan-products.js'
export { inMemoryLoanApplicationRepository } from './in-memory-loan-application-repository.js'
export { type InMemoryLoanRepository } from './in-memory-loan-repository.js'
export { inMemoryPaymentMethodRepository } from './in-memory-payment-method-repository.js'
export { type ClaimParties, inMemoryAchOriginations } from './in-memory-ach-originations.js'
export { inMemoryAchInbound } from './in-memory-ach-inbound.js'
export { inMemoryAchReturnRates } from './in-memory-ach-return-rates.js'

// Payments and webhooks: fakes of the services a deployment plugs in
export { type ChargeRequest, type FakePaymentProcessor, SANDBOX_INSUFFICIENT_FUNDS_ACCOUNT, sandboxChargeOutcome, fakePaymentProcessor } from './fake-payment-processor.js'
export { type BankAccount, type FakePaymentTokenizer, fakePaymentTokenizer } from './fake-payment-tokenizer.js'
export { fakeWebhookSecrets } from './fake-webhook-secrets.js'
export { fakeAccountSeal } from './fake-account-seal.js'
export { type FakeWebhookUrlGuardOptions, fakeWebhookUrlGuard } from './fake-webhook-url-guard.js'

// Rate limits
export { inMemoryRateLimitStore } from './in-memory-rate-limit-store.js'
export { inMemoryJobLeases } from './in-memory-job-leases.js'
export { type InMemoryTestClockRepository, inMemoryTestClockRepository } from './in-memory-test-clock-repository.js'
