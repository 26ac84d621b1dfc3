import { sql, type Kysely } from 'kysely'

/** The schema of each world: the live world's is the migrations' own, the test world's `lendgate_test` (0017). */
const WORLDS = [undefined, 'lendgate_test'] as const

/**
 * The operators' list of every party's loans (docs/console.md): pages in `(created_at, id)` order
 * across parties, and the delinquency queue, whose past-due buckets bound `oldest_unpaid_due_date`
 * from above (a past-due loan's oldest unpaid installment fell due at least a day ago) so that a
 * book of mostly current loans is not read whole to find the few past due.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema.createIndex('loans_position_idx').on('loans').columns(['created_at', 'id']).execute()
    await world.schema
      .createIndex('loans_oldest_unpaid_idx')
      .on('loans')
      .column('oldest_unpaid_due_date')
      .where(sql<boolean>`oldest_unpaid_due_date is not null`)
      .execute()
  }
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema.dropIndex('loans_oldest_unpaid_idx').execute()
    await world.schema.dropIndex('loans_position_idx').execute()
  }
}
