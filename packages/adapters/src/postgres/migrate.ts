import type { Kysely } from 'kysely'
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration'
import * as foundation from './migrations/0001-foundation.js'
import * as onboardingContents from './migrations/0002-onboarding-contents.js'
import * as verificationChallenges from './migrations/0003-verification-challenges.js'
import * as documents from './migrations/0004-documents.js'
import * as reviewAndParties from './migrations/0005-review-and-parties.js'
import * as webhookEndpoints from './migrations/0006-webhook-endpoints.js'
import * as webhookEvents from './migrations/0007-webhook-events.js'
import * as webhookAttempts from './migrations/0008-webhook-attempts.js'
import * as loans from './migrations/0009-loans.js'
import * as servicing from './migrations/0010-servicing.js'
import * as rateLimits from './migrations/0011-rate-limits.js'
import * as auditEvents from './migrations/0012-audit-events.js'
import * as servicingRules from './migrations/0013-servicing-rules.js'

/**
 * Every migration, in order. Listed statically (not read from a folder) so the same list runs
 * from TypeScript sources under tsx and from compiled output.
 */
const MIGRATIONS: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-onboarding-contents': onboardingContents,
  '0003-verification-challenges': verificationChallenges,
  '0004-documents': documents,
  '0005-review-and-parties': reviewAndParties,
  '0006-webhook-endpoints': webhookEndpoints,
  '0007-webhook-events': webhookEvents,
  '0008-webhook-attempts': webhookAttempts,
  '0009-loans': loans,
  '0010-servicing': servicing,
  '0011-rate-limits': rateLimits,
  '0012-audit-events': auditEvents,
  '0013-servicing-rules': servicingRules,
}

/** Names of every migration, in order. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(MIGRATIONS)

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS }

/**
 * Brings the schema up to date. Idempotent; safe when several instances start at once
 * (Kysely's migrator holds a lock while it runs). Throws on failure: a server must not start
 * on a schema it does not understand.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the migrator works on any schema
export const migrateToLatest = async (db: Kysely<any>): Promise<readonly string[]> => {
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest()
  if (error !== undefined) throw error instanceof Error ? error : new Error(String(error))
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}
