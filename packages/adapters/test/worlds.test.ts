import { expect } from 'chai'
import { sql, type Kysely } from 'kysely'
import { partitionsOf } from '../src/postgres/event-partitions.js'
import type { Database } from '../src/postgres/schema.js'
import { SHARED_TABLES, TEST_WORLD_SCHEMA, WORLD_TABLES } from '../src/postgres/worlds.js'
import { testDatabases } from '../src/testing/test-databases.js'

/**
 * The test world's schema (decision 128) against the live world's: every table of the database
 * is either a world table or a shared one, and each world table has the same columns, checks,
 * indexes and foreign keys in both, the test world's keys pointing into its own schema or at a
 * shared table. A migration that changes a world table in one world only fails here.
 */

type Shape = Readonly<Record<string, readonly string[]>>

/** What a table of `schema` looks like, with every mention of a schema name taken out (so both worlds compare equal). */
const shapeOf = async (db: Kysely<Database>, schema: string, table: string): Promise<Shape> => {
  const { rows } = await sql<{ kind: string; item: string }>`
    select 'column' as kind, format('%s %s %s default %s', a.attname, format_type(a.atttypid, a.atttypmod), case when a.attnotnull then 'not null' else 'null' end,
           coalesce(pg_get_expr(d.adbin, d.adrelid), case when a.attidentity <> '' then 'identity ' || a.attidentity::text else 'none' end)) as item
      from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
      where a.attrelid = format('%I.%I', ${schema}::text, ${table}::text)::regclass and a.attnum > 0 and not a.attisdropped
    union all
    select 'constraint', format('%s %s', c.contype, pg_get_constraintdef(c.oid))
      from pg_constraint c where c.conrelid = format('%I.%I', ${schema}::text, ${table}::text)::regclass
    union all
    select 'index', regexp_replace(pg_get_indexdef(i.indexrelid), '^CREATE (UNIQUE )?INDEX \\S+ ', 'CREATE \\1INDEX ')
      from pg_index i where i.indrelid = format('%I.%I', ${schema}::text, ${table}::text)::regclass
    order by 1, 2`.execute(db)
  const strip = (text: string) => text.replaceAll(`${schema}.`, '').replaceAll(`${TEST_WORLD_SCHEMA}.`, '')
  const shape: Record<string, string[]> = {}
  for (const row of rows) (shape[row.kind] ??= []).push(strip(row.item))
  return shape
}

for (const database of testDatabases()) {
  describe(`the two worlds' tables on ${database.name}`, () => {
    let db: Kysely<Database>
    let live = ''
    before(async () => {
      db = (await database.open()).db
      live = (await sql<{ schema: string }>`select current_schema()::text as schema`.execute(db)).rows[0]!.schema
    })

    const tablesOf = async (schema: string): Promise<string[]> =>
      (await sql<{ name: string }>`select relname::text as name from pg_class where relnamespace = ${schema}::regnamespace and relkind in ('r', 'p') and not relispartition order by 1`.execute(db)).rows.map((r) => r.name)

    it('names every table of the database as a world table or a shared one, and gives the test world exactly the world tables', async () => {
      const known = new Set<string>([...WORLD_TABLES, ...SHARED_TABLES])
      expect((await tablesOf(live)).filter((table) => !known.has(table)), 'tables neither world nor shared').to.deep.equal([])
      expect(await tablesOf(TEST_WORLD_SCHEMA)).to.deep.equal([...WORLD_TABLES].sort())
    })

    it("partitions the test world's event log as the live world's, a partition a day", async () => {
      const days = Array.from({ length: 37 }, (_, k) => `events_p${new Date(Date.now() + (k - 30) * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '')}`)
      for (const schema of [live, TEST_WORLD_SCHEMA]) expect(await partitionsOf(db, `${schema}.events`), schema).to.include.members(['events_default', ...days])
    })

    it('gives each world table the same columns, checks, indexes and foreign keys in both worlds', async () => {
      const differences: string[] = []
      for (const table of WORLD_TABLES) {
        const [inLive, inTest] = [await shapeOf(db, live, table), await shapeOf(db, TEST_WORLD_SCHEMA, table)]
        if ((inLive['column'] ?? []).length === 0 || (inLive['index'] ?? []).length === 0) differences.push(`${table}: no columns or no index read`)
        if (JSON.stringify(inLive) !== JSON.stringify(inTest)) differences.push(`${table}:\n  live ${JSON.stringify(inLive)}\n  test ${JSON.stringify(inTest)}`)
      }
      expect(differences, differences.join('\n')).to.deep.equal([])
    })

    it("points the test world's foreign keys into its own schema, or at a shared table, and its sequences are its own", async () => {
      const { rows } = await sql<{ from_table: string; to_schema: string; to_table: string }>`
        select t.relname::text as from_table, rn.nspname::text as to_schema, r.relname::text as to_table
        from pg_constraint c join pg_class t on t.oid = c.conrelid join pg_class r on r.oid = c.confrelid join pg_namespace rn on rn.oid = r.relnamespace
        where c.contype = 'f' and t.relnamespace = ${TEST_WORLD_SCHEMA}::regnamespace`.execute(db)
      expect(rows.length, 'the test world has foreign keys').to.be.greaterThan(20)
      const wrong = rows.filter((fk) => (fk.to_schema === TEST_WORLD_SCHEMA ? !(WORLD_TABLES as readonly string[]).includes(fk.to_table) : fk.to_schema !== live || !(SHARED_TABLES as readonly string[]).includes(fk.to_table)))
      expect(wrong).to.deep.equal([])
      const { rows: sequences } = await sql<{ table: string; sequence_schema: string }>`
        select t.relname::text as table, s.relnamespace::regnamespace::text as sequence_schema
        from pg_depend dep join pg_class s on s.oid = dep.refobjid and s.relkind = 'S' join pg_attrdef d on d.oid = dep.objid join pg_class t on t.oid = d.adrelid
        where t.relnamespace = ${TEST_WORLD_SCHEMA}::regnamespace`.execute(db)
      expect(sequences.map((s) => s.table)).to.include('webhook_attempts')
      expect(sequences.filter((s) => s.sequence_schema !== TEST_WORLD_SCHEMA)).to.deep.equal([])
    })
  })
}
