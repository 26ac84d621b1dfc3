import { type Kysely } from 'kysely'

/** The schema of each world: the live world's is the migrations' own, the test world's `lendgate_test` (0017). */
const WORLDS = [undefined, 'lendgate_test'] as const

/**
 * The operators' list of every party's loans of one status (docs/console.md): the few charged-off
 * or paid-off loans of a large book, a page in `(created_at, id)` order, without walking the
 * active ones.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema.createIndex('loans_status_position_idx').on('loans').columns(['status', 'created_at', 'id']).execute()
  }
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema.dropIndex('loans_status_position_idx').execute()
  }
}
