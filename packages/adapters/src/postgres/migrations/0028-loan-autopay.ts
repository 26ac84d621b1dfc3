import { sql, type Kysely } from 'kysely'

/** The schema of each world: the live world's is the migrations' own, the test world's `lendgate_test` (0017). */
const WORLDS = [undefined, 'lendgate_test'] as const

/**
 * A loan's autopay (docs/ach.md "Scheduled (autopay) debits"): on while `autopay_client_id` names
 * the API client that turned it on (the client of the debits it makes), since `autopay_enabled_at`.
 * Each cut-off reads the installments due in its window of the active loans whose autopay is on:
 * from the installments by due date (a window is a few days), each loan then found by its key
 * and kept when opted in; the partial index of the opted-in active loans serves a book where few
 * installments are opted in.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema.alterTable('loans').addColumn('autopay_client_id', 'uuid').addColumn('autopay_enabled_at', 'timestamptz').execute()
    await world.schema
      .alterTable('loans')
      .addCheckConstraint('loans_autopay_whole', sql`(autopay_client_id is null) = (autopay_enabled_at is null)`)
      .execute()
    await world.schema
      .createIndex('loans_autopay_idx')
      .on('loans')
      .column('id')
      .where(sql<boolean>`autopay_client_id is not null and status = 'ACTIVE'`)
      .execute()
    await world.schema.createIndex('loan_installments_due_date_idx').on('loan_installments').columns(['due_date', 'loan_id']).execute()
  }
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema.dropIndex('loan_installments_due_date_idx').execute()
    await world.schema.dropIndex('loans_autopay_idx').execute()
    await world.schema.alterTable('loans').dropConstraint('loans_autopay_whole').execute()
    await world.schema.alterTable('loans').dropColumn('autopay_client_id').dropColumn('autopay_enabled_at').execute()
  }
}
