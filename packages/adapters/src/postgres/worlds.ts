import type { World } from '@lendgate/core'
import type { Kysely } from 'kysely'
import { WORLD_TABLES_0017 } from './migrations/0017-test-world.js'
import type { Database } from './schema.js'

/**
 * The schema of the test world's tables (decision 128). The live world's are in the schema the
 * migrations run in (`current_schema()`, usually `public`), with the tables both worlds share.
 */
export const TEST_WORLD_SCHEMA = 'lendgate_test'

/**
 * The tables each world has its own copy of: a partner's objects, their audit trail, the
 * outbox of their webhooks and the records of the bank files their debits go in (with the trace
 * counter, and the sandbox bank's copies of the test world's files), and the maker-checker requests of
 * their loans. The rest are shared: API clients and keys, operators, loan products, rate limits, job leases and
 * the migrator's.
 */
export const WORLD_TABLES = [...WORLD_TABLES_0017, 'test_clocks', 'events', 'event_endpoints', 'event_deliveries', 'event_delivery_attempts', 'bank_account_secrets', 'ach_files', 'ach_entries', 'ach_trace_counter', 'ach_inbound_files', 'ach_returns', 'ach_notices', 'ach_sandbox_files', 'operator_requests'] as const satisfies readonly (keyof Database)[]

/** The tables both worlds share, in the live world's schema: every other table is a world table. */
export const SHARED_TABLES = ['api_clients', 'api_keys', 'operators', 'operator_sessions', 'loan_products', 'rate_limits', 'rate_limit_instances', 'job_leases', 'kysely_migration', 'kysely_migration_lock'] as const

/**
 * `db` bound to `world`'s tables: every query built on it names the world's schema for each table
 * it reads or writes (Kysely's `withSchema`), so no statement of a test-world repository can reach
 * a live table, through a pooler in transaction mode too. The live world's is `db` itself.
 */
export const worldDb = (db: Kysely<Database>, world: World): Kysely<Database> => (world === 'live' ? db : db.withSchema(TEST_WORLD_SCHEMA))

/** The schema of `world`'s tables for statements `withSchema` does not qualify (raw SQL, DDL): none for the live world, whose tables are the session's current schema's. */
export const worldSchema = (world: World): string | undefined => (world === 'live' ? undefined : TEST_WORLD_SCHEMA)
