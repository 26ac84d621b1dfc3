import { sql, type Kysely } from 'kysely'

/** The schema of each world: the live world's is the migrations' own, the test world's `lendgate_test` (0017). */
const WORLDS = [undefined, 'lendgate_test'] as const

/**
 * Test clocks (decision 131), a world table, so in both worlds (the live world's stays empty):
 * one clock a party at most, its frozen time, where an advance under way goes and until when a
 * process holds that advance. Advancing clocks are found by a partial index.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema
      .createTable('test_clocks')
      .addColumn('id', 'uuid', (c) => c.primaryKey())
      .addColumn('party_id', 'uuid', (c) => c.notNull().unique().references('parties.id'))
      .addColumn('name', 'text', (c) => c.check(sql`length(name) between 1 and 100`))
      .addColumn('frozen_time', 'timestamptz', (c) => c.notNull())
      .addColumn('advancing_to', 'timestamptz')
      .addColumn('leased_until', 'timestamptz')
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addCheckConstraint('test_clocks_forward', sql`advancing_to is null or advancing_to > frozen_time`)
      .execute()
    await world.schema.createIndex('test_clocks_advancing_idx').on('test_clocks').column('leased_until').where(sql.ref('advancing_to'), 'is not', null).execute()
  }
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) await (schema === undefined ? db : db.withSchema(schema)).schema.dropTable('test_clocks').execute()
}
