import { sql, type Kysely } from 'kysely'

/** The schema of each world: the live world's is the migrations' own, the test world's `lendgate_test` (0017). */
const WORLDS = [undefined, 'lendgate_test'] as const

/**
 * Maker-checker requests (decision 152): records of their loan in each world, written under the
 * loan's lock with what they ask and what their approval does. One pending request per payment
 * to reverse, and per loan to charge off. The operators are the live schema's, shared by both
 * worlds; they are disabled, never deleted, so the ids stay theirs.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema
      .createTable('operator_requests')
      .addColumn('id', 'uuid', (c) => c.primaryKey())
      .addColumn('loan_id', 'uuid', (c) => c.notNull().references('loans.id').onDelete('cascade'))
      .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('payment_reversal', 'loan_charge_off')`))
      .addColumn('payment_id', 'uuid', (c) => c.references('payments.id').onDelete('cascade'))
      .addColumn('reason', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('PENDING', 'APPROVED', 'REJECTED')`))
      .addColumn('requested_by', 'uuid', (c) => c.notNull())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addColumn('decided_by', 'uuid')
      .addColumn('decided_at', 'timestamptz')
      .addColumn('rejection_reason', 'text')
      .addCheckConstraint('operator_requests_subject', sql`(kind = 'payment_reversal') = (payment_id is not null)`)
      .addCheckConstraint('operator_requests_decided', sql`(state = 'PENDING') = (decided_by is null) and (decided_by is null) = (decided_at is null)`)
      .addCheckConstraint('operator_requests_rejected', sql`(state = 'REJECTED') = (rejection_reason is not null)`)
      .addCheckConstraint('operator_requests_two_operators', sql`state <> 'APPROVED' or decided_by <> requested_by`)
      .execute()
    await world.schema.createIndex('operator_requests_position_idx').on('operator_requests').columns(['created_at', 'id']).execute()
    await world.schema.createIndex('operator_requests_state_position_idx').on('operator_requests').columns(['state', 'created_at', 'id']).execute()
    await world.schema.createIndex('operator_requests_loan_idx').on('operator_requests').column('loan_id').execute()
    await world.schema
      .createIndex('operator_requests_one_pending_reversal_idx')
      .on('operator_requests')
      .column('payment_id')
      .unique()
      .where(sql<boolean>`state = 'PENDING' and kind = 'payment_reversal'`)
      .execute()
    await world.schema
      .createIndex('operator_requests_one_pending_charge_off_idx')
      .on('operator_requests')
      .column('loan_id')
      .unique()
      .where(sql<boolean>`state = 'PENDING' and kind = 'loan_charge_off'`)
      .execute()
  }
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema.dropTable('operator_requests').execute()
  }
}
