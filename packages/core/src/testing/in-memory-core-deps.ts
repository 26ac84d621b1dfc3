import type { CoreDeps, World, WorldDeps } from '../core-deps.js'
import type { Party } from '../domain/onboarding/party.js'
import { batchedKeyUsage } from '../stateful/batched-key-usage.js'
import { fakeKeyMaterial } from './fake-key-material.js'
import { fakeOneTimeCodes } from './fake-one-time-codes.js'
import { fakePaymentProcessor, type FakePaymentProcessor } from './fake-payment-processor.js'
import { fakePaymentTokenizer, type FakePaymentTokenizer } from './fake-payment-tokenizer.js'
import { fakeAccountSeal } from './fake-account-seal.js'
import { fakeWebhookSecrets } from './fake-webhook-secrets.js'
import { fakeWebhookUrlGuard, type FakeWebhookUrlGuardOptions } from './fake-webhook-url-guard.js'
import { testClock, type TestClock } from './fixed-clock.js'
import { inMemoryApiKeyRepository, type InMemoryApiKeyRepository } from './in-memory-api-key-repository.js'
import { inMemoryAuditLog, type InMemoryAuditLog } from './in-memory-audit-log.js'
import { inMemoryOperatorRepository } from './in-memory-operator-repository.js'
import { fakeOperatorSecrets } from './fake-operator-secrets.js'
import { inMemoryDocumentRepository } from './in-memory-document-repository.js'
import { inMemoryEventLog, type InMemoryEventLog } from './in-memory-event-log.js'
import { inMemoryLoanApplicationRepository } from './in-memory-loan-application-repository.js'
import { inMemoryLoanProductRepository } from './in-memory-loan-product-repository.js'
import type { InMemoryLoanRepository } from './in-memory-loan-repository.js'
import { inMemoryOnboardingSessionRepository } from './in-memory-onboarding-session-repository.js'
import { inMemoryPaymentMethodRepository } from './in-memory-payment-method-repository.js'
import { inMemoryVerificationChallengeRepository } from './in-memory-verification-challenge-repository.js'
import { inMemoryTestClockRepository, type InMemoryTestClockRepository } from './in-memory-test-clock-repository.js'
import { inMemoryWebhookEndpointRepository } from './in-memory-webhook-endpoint-repository.js'
import { recordingCodeSender, type RecordingCodeSender } from './recording-code-sender.js'
import { sequentialIds } from './sequential-ids.js'

/** How `inMemoryCoreDeps` starts. */
export type InMemoryCoreDepsOptions = {
  /** Default 2026-01-15T10:00:00Z; it moves only when told. */
  readonly start?: Date
  /** Default: https only, every host public. */
  readonly urlGuard?: FakeWebhookUrlGuardOptions
}

/** One world's in-memory stores (`WorldDeps`), typed as each is, so tests reach their handles (`all()`, `sent()`, …). */
export type InMemoryWorld = WorldDeps & {
  readonly processor: FakePaymentProcessor
  readonly tokenizer: FakePaymentTokenizer
  readonly audit: InMemoryAuditLog
  readonly eventLog: InMemoryEventLog
  readonly eventEndpoints: InMemoryEventLog['endpoints']
  readonly sessions: ReturnType<typeof inMemoryOnboardingSessionRepository>
  readonly events: ReturnType<typeof inMemoryOnboardingSessionRepository>['events']
  readonly challenges: ReturnType<typeof inMemoryVerificationChallengeRepository>
  readonly documents: ReturnType<typeof inMemoryDocumentRepository>
  readonly webhooks: ReturnType<typeof inMemoryWebhookEndpointRepository>
  readonly applications: ReturnType<typeof inMemoryLoanApplicationRepository>
  readonly loans: InMemoryLoanRepository
  readonly paymentMethods: ReturnType<typeof inMemoryPaymentMethodRepository>
  readonly testClocks: InMemoryTestClockRepository
}

/** `CoreDeps` typed as each member is, so tests reach the handles (`clock.set`, `sender.sent()`, `all()`, …). */
export type InMemoryCoreDeps = CoreDeps &
  InMemoryWorld & {
    readonly clock: TestClock
    readonly sender: RecordingCodeSender
    readonly apiKeys: InMemoryApiKeyRepository
    readonly products: ReturnType<typeof inMemoryLoanProductRepository>
  }

/** A world of in-memory stores of its own, wired as the database wires one (decision 128); `audit` is its audit trail, `world` which world it is. */
export const inMemoryWorld = (audit: InMemoryAuditLog = inMemoryAuditLog(), world: World = 'live'): InMemoryWorld => {
  const parties = new Map<string, Party>()
  const eventLog = inMemoryEventLog((partyId) => parties.get(partyId)?.clientId ?? null, audit)
  const sessions = inMemoryOnboardingSessionRepository(parties, audit, eventLog)
  const testClocks = inMemoryTestClockRepository()
  const applications = inMemoryLoanApplicationRepository(audit, testClocks.onTestClock, eventLog)
  return {
    sessions,
    documents: inMemoryDocumentRepository(),
    parties: sessions.parties,
    challenges: inMemoryVerificationChallengeRepository(),
    webhooks: inMemoryWebhookEndpointRepository(),
    events: sessions.events,
    applications,
    loans: applications.loans,
    paymentMethods: inMemoryPaymentMethodRepository(applications.loans, audit),
    processor: fakePaymentProcessor(),
    tokenizer: fakePaymentTokenizer(),
    audit,
    eventLog,
    eventEndpoints: eventLog.endpoints,
    testClocks,
    world,
  }
}

/**
 * `CoreDeps` over in-memory adapters wired as the database wires them, with deterministic fakes
 * for the process-side ports. Replace a member by spreading: `{ ...inMemoryCoreDeps(), sender: mine }`.
 */
export const inMemoryCoreDeps = (options: InMemoryCoreDepsOptions = {}): InMemoryCoreDeps => {
  const audit = inMemoryAuditLog()
  const apiKeys = inMemoryApiKeyRepository(audit)
  return {
    ...inMemoryWorld(audit),
    apiKeys,
    keyMaterial: fakeKeyMaterial(),
    usage: batchedKeyUsage({ apiKeys, onFlushError: () => undefined }),
    codes: fakeOneTimeCodes(),
    sender: recordingCodeSender(),
    webhookSecrets: fakeWebhookSecrets(),
    accountSeal: fakeAccountSeal(),
    urlGuard: fakeWebhookUrlGuard(options.urlGuard),
    products: inMemoryLoanProductRepository([], audit),
    operators: inMemoryOperatorRepository(audit),
    operatorSecrets: fakeOperatorSecrets(),
    ids: sequentialIds(),
    clock: testClock(options.start),
  }
}
