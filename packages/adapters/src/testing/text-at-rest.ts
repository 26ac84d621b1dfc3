import { sql, type Kysely } from 'kysely'
import type { Database } from '../postgres/schema.js'
import { TEST_WORLD_SCHEMA } from '../postgres/worlds.js'

/**
 * The tables of both worlds (`schema.table`) with a row whose text form contains `text`: what a
 * dump of the database would show of it. Every table is read whole: for tests only.
 */
export const tablesHoldingText = async (db: Kysely<Database>, text: string): Promise<readonly string[]> => {
  const { rows: tables } = await sql<{ readonly name: string }>`
    select format('%I.%I', table_schema, table_name) as name from information_schema.tables
    where table_type = 'BASE TABLE' and table_schema in (current_schema(), ${TEST_WORLD_SCHEMA})
    order by 1`.execute(db)
  if (tables.length === 0) throw new Error('tablesHoldingText: no table found: is the database migrated?')
  const holding: string[] = []
  for (const { name } of tables) {
    const { rows } = await sql<{ readonly found: boolean }>`select exists (select from ${sql.raw(name)} t where strpos(t::text, ${text}) > 0) as found`.execute(db)
    if (rows[0]?.found === true) holding.push(name)
  }
  return holding
}
