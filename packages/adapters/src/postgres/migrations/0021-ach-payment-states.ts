import { sql, type Kysely } from 'kysely'

/** The schema of each world: the live world's is the migrations' own, the test world's `lendgate_test` (0017). */
const WORLDS = [undefined, 'lendgate_test'] as const

/** Each world's partial index of `SUCCEEDED` payments (0013; the test world's copy has the name `LIKE` gave it). */
const SUCCEEDED_INDEX = { live: 'payments_loan_succeeded_idx', test: 'payments_loan_id_effective_date_created_at_idx' } as const

const STATUSES_BEFORE = ['SUCCEEDED', 'FAILED', 'REVERSED'] as const
const STATUSES = ['SUCCEEDED', 'PENDING', 'SUBMITTED', 'SETTLED', 'RETURNED', 'FAILED', 'REVERSED'] as const

/** A `check (status in (…))` of `statuses`. */
const statusIn = (statuses: readonly string[]) => sql`status in (${sql.join(statuses.map((s) => sql.lit(s)))})`

/**
 * The payment states of bank debits (docs/ach.md "States"): `PENDING`, `SUBMITTED`, `SETTLED` and
 * `RETURNED` join the statuses. A replay reads the posted payments (`SUCCEEDED`, `SUBMITTED`,
 * `SETTLED`) through `payments_loan_posted_idx`, which replaces the index of `SUCCEEDED` ones; a
 * payment's lock reads the sum of its loan's `PENDING` ones through `payments_loan_pending_idx`.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema.alterTable('payments').dropConstraint('payments_status_check').execute()
    await world.schema.alterTable('payments').addCheckConstraint('payments_status_check', statusIn(STATUSES)).execute()
    await world.schema.dropIndex(schema === undefined ? SUCCEEDED_INDEX.live : SUCCEEDED_INDEX.test).execute()
    await world.schema
      .createIndex('payments_loan_posted_idx')
      .on('payments')
      .columns(['loan_id', 'effective_date', 'created_at'])
      .where(sql.ref('status'), 'in', ['SUCCEEDED', 'SUBMITTED', 'SETTLED'])
      .execute()
    await world.schema.createIndex('payments_loan_pending_idx').on('payments').column('loan_id').where(sql.ref('status'), '=', 'PENDING').execute()
  }
}

/** Refused while any payment has a status of bank debits: those cannot be told in the older schema. */
export const down = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema.dropIndex('payments_loan_pending_idx').execute()
    await world.schema.dropIndex('payments_loan_posted_idx').execute()
    await world.schema
      .createIndex(schema === undefined ? SUCCEEDED_INDEX.live : SUCCEEDED_INDEX.test)
      .on('payments')
      .columns(['loan_id', 'effective_date', 'created_at'])
      .where(sql.ref('status'), '=', 'SUCCEEDED')
      .execute()
    await world.schema.alterTable('payments').dropConstraint('payments_status_check').execute()
    await world.schema.alterTable('payments').addCheckConstraint('payments_status_check', statusIn(STATUSES_BEFORE)).execute()
  }
}
