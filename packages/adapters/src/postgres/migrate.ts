import { sql, type Kysely } from 'kysely'
import { Migrator, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely/migration'
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
import * as jobLeases from './migrations/0014-job-leases.js'
import * as rateLimitInstances from './migrations/0015-rate-limit-instances.js'
import * as paymentRequestedAmount from './migrations/0016-payment-requested-amount.js'
import * as testWorld from './migrations/0017-test-world.js'
import * as testClocks from './migrations/0018-test-clocks.js'
import * as events from './migrations/0019-events.js'
import * as eventEndpoints from './migrations/0020-event-endpoints.js'
import * as achPaymentStates from './migrations/0021-ach-payment-states.js'
import * as bankAccountSecrets from './migrations/0022-bank-account-secrets.js'
import * as achOriginations from './migrations/0023-ach-originations.js'
import * as achReturns from './migrations/0024-ach-returns.js'
import * as returnedPaymentFee from './migrations/0025-returned-payment-fee.js'
import * as achSandboxFiles from './migrations/0026-ach-sandbox-files.js'
import * as achPartyFiles from './migrations/0027-ach-party-files.js'
import * as loanAutopay from './migrations/0028-loan-autopay.js'
import * as operators from './migrations/0029-operators.js'
import * as operatorLoanReads from './migrations/0030-operator-loan-reads.js'
import * as operatorRequests from './migrations/0031-operator-requests.js'
import * as operatorDeliveries from './migrations/0032-operator-deliveries.js'
import * as operatorLoanOrders from './migrations/0033-operator-loan-orders.js'
import * as eventPartitions from './migrations/0034-event-partitions.js'

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
  '0014-job-leases': jobLeases,
  '0015-rate-limit-instances': rateLimitInstances,
  '0016-payment-requested-amount': paymentRequestedAmount,
  '0017-test-world': testWorld,
  '0018-test-clocks': testClocks,
  '0019-events': events,
  '0020-event-endpoints': eventEndpoints,
  '0021-ach-payment-states': achPaymentStates,
  '0022-bank-account-secrets': bankAccountSecrets,
  '0023-ach-originations': achOriginations,
  '0024-ach-returns': achReturns,
  '0025-returned-payment-fee': returnedPaymentFee,
  '0026-ach-sandbox-files': achSandboxFiles,
  '0027-ach-party-files': achPartyFiles,
  '0028-loan-autopay': loanAutopay,
  '0029-operators': operators,
  '0030-operator-loan-reads': operatorLoanReads,
  '0031-operator-requests': operatorRequests,
  '0032-operator-deliveries': operatorDeliveries,
  '0033-operator-loan-orders': operatorLoanOrders,
  '0034-event-partitions': eventPartitions,
}

/** Names of every migration, in order. */
export const MIGRATION_NAMES: readonly string[] = Object.keys(MIGRATIONS)

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS }

/** The migrations a run applied; its error thrown. */
const ranOrThrow = ({ error, results }: MigrationResultSet): readonly string[] => {
  if (error !== undefined) throw error instanceof Error ? error : new Error(String(error))
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}

/**
 * This build's migrations that the database has not applied, in order: all of them on an empty
 * database, none when it is up to date (or ahead: a newer build may have applied more).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the migrator works on any schema
export const pendingMigrations = async (db: Kysely<any>): Promise<readonly string[]> => {
  const applied = new Set(await appliedMigrations(db))
  return MIGRATION_NAMES.filter((name) => !applied.has(name))
}

/** The names of the migrations the database has applied, in order (a newer build's too); none when it was never migrated. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the migrator works on any schema
export const appliedMigrations = async (db: Kysely<any>): Promise<readonly string[]> => {
  const table = await sql<{ readonly present: boolean }>`select to_regclass('kysely_migration') is not null as present`.execute(db)
  if (table.rows[0]?.present !== true) return []
  const { rows } = await sql<{ readonly name: string }>`select name from kysely_migration order by name`.execute(db)
  return rows.map((row) => row.name)
}

/**
 * Brings the schema up to date and names the migrations it applied. Idempotent; safe when several
 * instances start at once (Kysely's migrator holds a lock while it runs): run it on a session of
 * its own (`OpenDatabase.withSession`), not through a pooler. A database that already has every
 * migration of this build is left alone, even one a newer build has taken further, so an older
 * process can still start during a rolling deploy (docs/deployment.md). Throws on failure: a
 * server must not start on a schema it does not understand.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the migrator works on any schema
export const migrateToLatest = async (db: Kysely<any>): Promise<readonly string[]> => {
  if ((await pendingMigrations(db)).length === 0) return []
  return ranOrThrow(await new Migrator({ db, provider }).migrateToLatest())
}

/**
 * Brings the schema to migration `name` of this build, forward or back, on `db` (a session, or a
 * transaction: the restore of a backup migrates inside its own). Throws on failure.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the migrator works on any schema
export const migrateTo = async (db: Kysely<any>, name: string): Promise<readonly string[]> => {
  return ranOrThrow(await new Migrator({ db, provider }).migrateTo(name))
}
