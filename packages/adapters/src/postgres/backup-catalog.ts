import { sql, type Kysely } from 'kysely'

/** A table a backup holds: its name, its columns in the table's order and its primary key. */
export type BackupTable = { readonly name: string; readonly columns: readonly string[]; readonly primaryKey: readonly string[] }

/** A sequence's value, set again after a restore (a `bigserial`, an identity column). */
export type BackupSequence = { readonly name: string; readonly value: string }

/**
 * Tables a backup leaves out: the migrator's own (a backup names its migrations instead, and a
 * restore migrates), and the rate limits' transient state, whose rows matter for a window of
 * seconds and whose instance heartbeats, restored, would count instances that are gone.
 */
export const TABLES_NOT_BACKED_UP: readonly string[] = ['kysely_migration', 'kysely_migration_lock', 'rate_limits', 'rate_limit_instances']

/** A database or transaction of any schema: backups and restores read theirs from the catalog. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the catalog is read on any schema
export type AnyDb = Kysely<any>

/**
 * The current schema, and whether it holds the migrator's table. Backups and restores work on
 * `current_schema()`, the first schema of the session's `search_path` that exists, where the
 * migrations create their tables: a role's own schema when it has one, `public` otherwise.
 */
export const holdsMigrations = async (db: AnyDb): Promise<{ readonly schema: string; readonly migrated: boolean }> => {
  const { rows } = await sql<{ schema: string; migrated: boolean }>`
    select current_schema()::text as schema, to_regclass(format('%I.kysely_migration', current_schema())) is not null as migrated`.execute(db)
  return { schema: rows[0]?.schema ?? '', migrated: rows[0]?.migrated === true }
}

/** The tables of the current schema a backup holds (not `TABLES_NOT_BACKED_UP`, not partitions), by name. */
export const backupTables = async (db: AnyDb): Promise<readonly BackupTable[]> => {
  const { rows } = await sql<{ name: string; columns: string[]; primary_key: string[] }>`
    select c.relname::text as name,
      array(select a.attname::text from pg_attribute a
            where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped order by a.attnum) as columns,
      array(select a.attname::text from pg_index i cross join lateral unnest(i.indkey) with ordinality as k(attnum, n)
            join pg_attribute a on a.attrelid = c.oid and a.attnum = k.attnum
            where i.indrelid = c.oid and i.indisprimary order by k.n) as primary_key
    from pg_class c join pg_namespace ns on ns.oid = c.relnamespace
    where ns.nspname = current_schema() and c.relkind in ('r', 'p') and not c.relispartition
      and c.relname::text <> all(${[...TABLES_NOT_BACKED_UP]}::text[])
    order by c.relname`.execute(db)
  return rows.map((r) => ({ name: r.name, columns: r.columns, primaryKey: r.primary_key }))
}

/**
 * The rows of `table` as `row_to_json` writes them, one a row (`row`), in primary-key order; a
 * table without a primary key in the order of its rows' JSON text.
 */
export const backupRowsQuery = (table: BackupTable) => {
  const order = table.primaryKey.length > 0 ? sql.join(table.primaryKey.map((c) => sql`${sql.id('t')}.${sql.id(c)}`)) : sql`row_to_json(t)::text`
  return sql<{ row: string }>`select row_to_json(t)::text as row from ${sql.table(table.name)} as t order by ${order}`
}

/** A foreign key: its table, its name and its definition as `pg_get_constraintdef` writes it (`FOREIGN KEY (…) REFERENCES …`). */
export type ForeignKey = { readonly table: string; readonly name: string; readonly definition: string }

/** The foreign keys of the current schema's tables. */
export const foreignKeys = async (db: AnyDb): Promise<readonly ForeignKey[]> => {
  const { rows } = await sql<ForeignKey>`
    select f.relname::text as table, c.conname::text as name, pg_get_constraintdef(c.oid) as definition
    from pg_constraint c join pg_class f on f.oid = c.conrelid
    where c.contype = 'f' and c.connamespace = current_schema()::regnamespace order by f.relname, c.conname`.execute(db)
  return rows
}

/** The sequences of the current schema that have given a value, with their last value (as text). */
export const backupSequences = async (db: AnyDb): Promise<readonly BackupSequence[]> => {
  const { rows } = await sql<{ name: string; value: string }>`
    select sequencename::text as name, last_value::text as value from pg_sequences
    where schemaname = current_schema() and last_value is not null order by sequencename`.execute(db)
  return rows
}
