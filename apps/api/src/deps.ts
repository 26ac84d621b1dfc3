import type {
  ApiKeyMaterial,
  ApiKeyRepository,
  Clock,
  HealthCheck,
  IdempotencyStore,
  IdGenerator,
  KeyUsageRecorder,
  OnboardingSessionRepository,
} from '@lendgate/core'

/** Everything the routes use, built once by compose.ts (or by a test, from in-memory adapters). */
export type AppDeps = {
  readonly apiKeys: ApiKeyRepository
  readonly sessions: OnboardingSessionRepository
  readonly idempotency: IdempotencyStore
  readonly keyMaterial: ApiKeyMaterial
  readonly usage: KeyUsageRecorder
  readonly ids: IdGenerator
  readonly clock: Clock
  readonly health: HealthCheck
}
