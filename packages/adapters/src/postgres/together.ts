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


/**
 * `rows` as a VALUES list named `alias`, each column cast to its SQL type in `types` (a parameter
 * in a VALUES list is text unless cast): what one update of many rows takes its values from
 * (`update … from (values …) as v(…) where … = v.…`).
 */
export const valuesOf = <R extends Record<string, unknown>, A extends string>(rows: readonly R[], types: { readonly [K in keyof R]: string }, alias: A) => {
  const columns = Object.keys(types) as (keyof R & string)[]
  const list = sql.join(rows.map((row) => sql`(${sql.join(columns.map((column) => sql`${row[column]}::${sql.raw(types[column])}`))})`))
  return sql<R>`(values ${list})`.as<A>(sql`${sql.ref(alias)}(${sql.join(columns.map((column) => sql.ref(column)))})`)
}
