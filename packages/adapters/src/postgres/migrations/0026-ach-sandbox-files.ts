import { sql, type Kysely } from 'kysely'

/** The schema of each world: the live world's is the migrations' own, the test world's `lendgate_test` (0017). */
const WORLDS = [undefined, 'lendgate_test'] as const

/**
 * The sandbox bank's mailbox (docs/ach.md "The sandbox bank", decision 146): the files the test
 * world's origination writes, kept whole for the sandbox bank to answer. `next_answer_on` is the
 * next banking day on which the bank answers one of its debits and that answer has not been taken
 * (null: nothing more to answer), `answered_through` the last day whose answers were taken; the
 * inbox reads only the files whose next answer is due. A world table, as every origination table
 * is; only the test world's is written.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema
      .createTable('ach_sandbox_files')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('bytes', 'bytea', (c) => c.notNull())
      .addColumn('put_at', 'timestamptz', (c) => c.notNull())
      .addColumn('answered_through', 'date')
      .addColumn('next_answer_on', 'date')
      .execute()
    await world.schema
      .createIndex('ach_sandbox_files_next_answer_idx')
      .on('ach_sandbox_files')
      .columns(['next_answer_on', 'put_at', 'name'])
      .where(sql<boolean>`next_answer_on is not null`)
      .execute()
  }
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema.dropTable('ach_sandbox_files').execute()
  }
}
