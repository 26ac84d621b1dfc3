import { randomBytes } from 'node:crypto'
import { expect } from 'chai'
import { sql, type Kysely } from 'kysely'
import { openDatabase } from '../src/postgres/database.js'
import { precompiled, statementNameOf } from '../src/postgres/precompiled.js'
import { realDatabaseUrl, testDatabases } from '../src/testing/test-databases.js'

// The shared databases are closed by the root hook after the run, never here.
for (const database of testDatabases()) {
  describe(`precompiled queries on ${database.name}`, () => {
    it('binds each run’s parameters by name, whatever their order in the SQL, and keeps fixed values', async () => {
      const { db } = await database.open()
      const run = precompiled<{ low: number; high: number }, { n: number }>(db, (param) =>
        db
          .selectFrom(sql<{ n: number }>`(select generate_series(1, 10)::int as n)`.as('t'))
          .select('t.n')
          .where('t.n', '>=', param('low'))
          .where('t.n', '<>', 5)
          .where('t.n', '<=', param('high'))
          .orderBy('t.n'),
      )
      expect((await run({ low: 3, high: 7 })).map((r) => r.n)).to.deep.equal([3, 4, 6, 7])
      expect((await run({ high: 2, low: 1 })).map((r) => r.n)).to.deep.equal([1, 2])
      expect(await run({ low: 8, high: 3 })).to.deep.equal([])
    })

    type Probe = { id: number; label: string }
    /**
     * A table of its own for the test, with rows 1 and 2, dropped afterwards. On a server, the
     * database is opened with one connection, as `openDatabase` makes it: every run uses the
     * connection an earlier one prepared its statement on.
     */
    const withProbe = async (run: (db: Kysely<Record<string, Probe>>, table: string) => Promise<void>) => {
      const url = realDatabaseUrl()
      const opened = database.kind === 'postgres' && url !== undefined ? await openDatabase({ url, dataDir: '', poolSize: 1 }) : undefined
      const db = (opened?.db ?? (await database.open()).db) as unknown as Kysely<Record<string, Probe>>
      const table = `precompiled_probe_${randomBytes(4).toString('hex')}`
      await sql`create table ${sql.table(table)} (id int primary key, label text not null)`.execute(db)
      try {
        await sql`insert into ${sql.table(table)} values (1, 'one'), (2, 'two')`.execute(db)
        await run(db, table)
      } finally {
        await sql`drop table ${sql.table(table)}`.execute(db)
        await opened?.close()
      }
    }
    const labelOf = (db: Kysely<Record<string, Probe>>, table: string) =>
      precompiled<{ id: number }, Probe>(db, (param) => db.selectFrom(table).select(['id', 'label']).where('id', '=', param('id')))

    it('keeps answering when a migration adds a column to the table it reads, after it has run', () =>
      withProbe(async (db, table) => {
        const run = labelOf(db, table)
        expect(await run({ id: 1 })).to.deep.equal([{ id: 1, label: 'one' }])
        await sql`alter table ${sql.table(table)} add column extra text`.execute(db)
        expect(await run({ id: 2 })).to.deep.equal([{ id: 2, label: 'two' }])
      }))

    if (database.kind === 'postgres') {
      it('runs as a named prepared statement on the server', () =>
        withProbe(async (db, table) => {
          const run = labelOf(db, table)
          const name = statementNameOf(db.selectFrom(table).select(['id', 'label']).where('id', '=', 0).compile().sql)
          expect(name).to.match(/^lendgate_[0-9a-f]{24}$/)
          const before = await sql<{ name: string }>`select name from pg_prepared_statements`.execute(db)
          expect(before.rows.map((r) => r.name)).not.to.include(name)
          expect(await run({ id: 1 })).to.deep.equal([{ id: 1, label: 'one' }])
          expect(await run({ id: 2 })).to.deep.equal([{ id: 2, label: 'two' }])
          const prepared = await sql<{ name: string }>`select name from pg_prepared_statements`.execute(db)
          expect(prepared.rows.map((r) => r.name)).to.include(name)
        }))
    }

    it('refuses a query with no parameter, which would be a constant read', async () => {
      const { db } = await database.open()
      expect(() => precompiled<Record<string, never>, unknown>(db, () => db.selectFrom('api_keys').select('id'))).to.throw(
        'precompiled: the query has no parameter',
      )
    })
  })
}
