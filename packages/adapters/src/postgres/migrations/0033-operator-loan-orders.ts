import { sql, type Kysely } from 'kysely'

/** The schema of each world: the live world's is the migrations' own, the test world's `lendgate_test` (0017). */
const WORLDS = [undefined, 'lendgate_test'] as const

/**
 * The operators' list of every party's loans (docs/console.md "Sorting"), each of its orders
 * from an index, a page at a time:
 * - of one status, `(status, created_at, id)`: the few charged-off or paid-off loans of a large
 *   book without walking the active ones;
 * - the oldest unpaid installment first, `(coalesce(oldest_unpaid_due_date, 'infinity'), id)`, which also
 *   bounds the past-due buckets from above and so replaces 0030's partial index of the date;
 * - largest first, `(principal, id)`, read backwards.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    const loans = sql.table(schema === undefined ? 'loans' : `${schema}.loans`)
    await world.schema.createIndex('loans_status_position_idx').on('loans').columns(['status', 'created_at', 'id']).execute()
    await sql`create index loans_unpaid_position_idx on ${loans} ((coalesce(oldest_unpaid_due_date, 'infinity'::date)), id)`.execute(db)
    await world.schema.createIndex('loans_principal_position_idx').on('loans').columns(['principal', 'id']).execute()
    await world.schema.dropIndex('loans_oldest_unpaid_idx').execute()
  }
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema
      .createIndex('loans_oldest_unpaid_idx')
      .on('loans')
      .column('oldest_unpaid_due_date')
      .where(sql<boolean>`oldest_unpaid_due_date is not null`)
      .execute()
    for (const index of ['loans_principal_position_idx', 'loans_unpaid_position_idx', 'loans_status_position_idx']) await world.schema.dropIndex(index).execute()
  }
}
