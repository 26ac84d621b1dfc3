import { sql, type OperationNodeSource, type Transaction } from 'kysely'
import type { Database } from './schema.js'

/** One write of several made together: a data-modifying statement, named to be a CTE of the statement that carries them all. */
export type Write = { readonly name: string; readonly query: OperationNodeSource }

export const write = (name: string, query: OperationNodeSource): Write => ({ name, query })

/**
 * Runs writes as one statement, each a data-modifying CTE: one round trip, however many rows.
 * Foreign keys are checked at the end of the statement, so a row may reference another written
 * in the same statement; no two writes may touch the same row.
 */
export const writeTogether = async (trx: Transaction<Database>, writes: readonly Write[]): Promise<void> => {
  if (writes.length === 0) return
  await sql`with ${sql.join(writes.map(({ name, query }) => sql`${sql.table(name)} as (${query})`))} select 1`.execute(trx)
}

