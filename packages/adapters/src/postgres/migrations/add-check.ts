import { sql, type Kysely, type RawBuilder } from 'kysely'

/**
 * Adds check `name` to `table` of `schema` (the live world's when undefined) without holding the
 * table's exclusive lock while its rows are checked: added `not valid` (new rows checked at once),
 * then validated under a lock that lets writes through.
 */
export const addCheck = async (db: Kysely<unknown>, schema: string | undefined, table: string, name: string, check: RawBuilder<unknown>): Promise<void> => {
  const target = schema === undefined ? sql.table(table) : sql.id(schema, table)
  await sql`alter table ${target} add constraint ${sql.id(name)} check (${check}) not valid`.execute(db)
  await sql`alter table ${target} validate constraint ${sql.id(name)}`.execute(db)
}

