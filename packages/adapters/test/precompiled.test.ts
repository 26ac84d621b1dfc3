import { randomBytes } from 'node:crypto'
import { createRequire } from 'node:module'
import { expect } from 'chai'
import { sql, type Kysely } from 'kysely'
import pg from 'pg'
import { openDatabase, runNamedOnPool } from '../src/postgres/database.js'
import { compiledByShape, precompiled, precompiledOn, statementNameOf, type StatementPart } from '../src/postgres/precompiled.js'
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

      it('runs precompiledOn and compiledByShape statements by name inside a transaction too, and nothing else', () =>
        withProbe(async (db, table) => {
          const labelOn = precompiledOn<{ id: number }, Probe>((param) => db.selectFrom(table).select(['id', 'label']).where('id', '=', param('id')))
          const onName = statementNameOf(db.selectFrom(table).select(['id', 'label']).where('id', '=', 0).compile().sql)
          const insertAll = compiledByShape<StatementPart>((_parts, built) => sql`${built[0]}`)
          const adHoc = db.selectFrom(table).select('label').where('id', '=', 1).compile()
          const names = await db.transaction().execute(async (trx) => {
            expect(await labelOn(trx, { id: 2 })).to.deep.equal([{ id: 2, label: 'two' }])
            await insertAll(trx, [{ shape: 'insert', values: [3, 'three'], build: ([id, label]) => trx.insertInto(table).values({ id, label } as never) }])
            expect((await trx.executeQuery(adHoc)).rows.map((r) => r.label)).to.deep.equal(['one'])
            return (await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(trx)).rows
          })
          expect(names.map((r) => r.name)).to.include(onName)
          expect(names.some((r) => r.statement.startsWith('insert into'))).to.equal(true)
          expect(names.map((r) => r.statement)).not.to.include(adHoc.sql)
        }))
      it('builds a statement’s row parsers once a connection, and each connection with its own type parsers', async () => {
        const url = realDatabaseUrl() as string
        // The API's pool (int8 as a number, date as its text) and a plain pg pool (int8 as text,
        // date as a Date), one connection each, run the same named statement in turn.
        const opened = await openDatabase({ url, dataDir: '', poolSize: 1 })
        const plain = new pg.Pool({ connectionString: url, max: 1 })
        const addFields = (createRequire(import.meta.url)('pg/lib/result.js') as { prototype: { addFields: (...args: unknown[]) => unknown } }).prototype
        const own = addFields.addFields
        let described = 0
        addFields.addFields = function (this: unknown, ...args: unknown[]) {
          described += 1
          return own.apply(this, args)
        }
        try {
          const run = precompiled<{ n: number }, { n: number; d: unknown }>(opened.db as unknown as Kysely<never>, (param) =>
            opened.db.selectNoFrom([sql<number>`${param('n')}::int8`.as('n'), sql<string>`'2026-11-25'::date`.as('d')]),
          )
          const text = opened.db.selectNoFrom([sql<number>`${0}::int8`.as('n'), sql<string>`'2026-11-25'::date`.as('d')]).compile().sql
          for (let round = 0; round < 3; round++) {
            expect(await run({ n: 40 + round })).to.deep.equal([{ n: 40 + round, d: '2026-11-25' }])
            const { rows } = await runNamedOnPool(plain, statementNameOf(text), text, [40 + round])
            expect(rows).to.have.length(1)
            expect(rows[0].n).to.equal(String(40 + round))
            expect(rows[0].d).to.be.instanceOf(Date)
          }
          // Once for each connection's first run: the runs after it reuse what that one built.
          expect(described).to.equal(2)
        } finally {
          addFields.addFields = own
          await plain.end()
          await opened.close()
        }
      })
    }

    it('refuses a query that returns every column: a migration adding one would break its prepared statement', async () => {
      const { db } = await database.open()
      expect(() => precompiled<{ id: string }, unknown>(db, (param) => db.selectFrom('api_keys').selectAll().where('id', '=', param('id')))).to.throw(
        'precompiled: name the result columns',
      )
      expect(() => precompiledOn<{ id: string }, unknown>((param) => db.selectFrom('api_keys as k').selectAll('k').where('k.id', '=', param('id')))).to.throw(
        'precompiledOn: name the result columns',
      )
      // A `*` below the statement's own result is replanned under a result of the same shape.
      expect(() => precompiledOn<{ id: string }, unknown>((param) => db.selectFrom(db.selectFrom('api_keys').selectAll().as('k')).select('k.id').where('k.id', '=', param('id')))).not.to.throw()
    })

    it('precompiledOn runs on the transaction each run is given', () =>
      withProbe(async (db, table) => {
        const labelOn = precompiledOn<{ id: number }, Probe>((param) => db.selectFrom(table).select(['id', 'label']).where('id', '=', param('id')))
        const ended = await db
          .transaction()
          .execute(async (trx) => {
            await sql`insert into ${sql.table(table)} values (9, 'nine')`.execute(trx)
            expect(await labelOn(trx, { id: 9 })).to.deep.equal([{ id: 9, label: 'nine' }])
            throw new Error('roll back')
          })
          .catch((error: unknown) => error)
        expect(String(ended)).to.equal('Error: roll back')
        expect(await labelOn(db, { id: 9 })).to.deep.equal([])
        expect(await labelOn(db, { id: 2 })).to.deep.equal([{ id: 2, label: 'two' }])
      }))

    describe('compiledByShape', () => {
      type Part = StatementPart & { readonly name: string }
      /** Runs parts as the CTEs of one statement, as the loan repository does; counts the parts it builds. */
      const together = () => {
        let builds = 0
        const run = compiledByShape<Part>((parts, built) => {
          builds += parts.length
          return sql`with ${sql.join(parts.map(({ name }, i) => sql`${sql.table(name)} as (${built[i]})`))} select 1`
        })
        return { run, builds: () => builds }
      }
      const insert = (db: Kysely<Record<string, Probe>>, table: string, name: string, row: { id: number; label: string; note?: string }): Part => ({
        name,
        shape: `insert ${name}`,
        values: [row.id, row.label, row.note],
        build: ([id, label, note]) => db.insertInto(table).values({ id, label, note } as never).returning('id'),
      })
      const rowsOf = async (db: Kysely<Record<string, Probe>>, table: string) =>
        (await sql<{ id: number; label: string }>`select id, label from ${sql.table(table)} order by id`.execute(db)).rows

      it('builds and compiles a shape once, then runs it with each run’s own values', () =>
        withProbe(async (db, table) => {
          const { run, builds } = together()
          await run(db, [insert(db, table, 'a', { id: 3, label: 'three' }), insert(db, table, 'b', { id: 4, label: 'four' })])
          await run(db, [insert(db, table, 'a', { id: 5, label: 'five' }), insert(db, table, 'b', { id: 6, label: 'six' })])
          expect(builds()).to.equal(2)
          await run(db, [insert(db, table, 'a', { id: 7, label: 'seven' })])
          expect(builds()).to.equal(3)
          expect((await rowsOf(db, table)).map((r) => `${r.id} ${r.label}`)).to.deep.equal(['1 one', '2 two', '3 three', '4 four', '5 five', '6 six', '7 seven'])
        }))

      it('refuses to compile a statement with a value that is not one of its parts’ values, and runs nothing', () =>
        withProbe(async (db, table) => {
          const { run } = together()
          const baked: Part = { name: 'a', shape: 'baked', values: ['eight'], build: ([label]) => db.insertInto(table).values({ id: 8, label } as never).returning('id') }
          let error: unknown
          await run(db, [baked]).catch((e: unknown) => (error = e))
          expect(String(error)).to.include('compiledByShape: a parameter of the statement is not one of its parts’ values')
          expect((await rowsOf(db, table)).map((r) => r.id)).to.deep.equal([1, 2])
        }))

      it('treats an undefined value as part of the shape: Kysely leaves the column out, and a later defined value is written', () =>
        withProbe(async (db, table) => {
          await sql`alter table ${sql.table(table)} add column note text default 'none'`.execute(db)
          const { run } = together()
          await run(db, [insert(db, table, 'a', { id: 3, label: 'three' })])
          await run(db, [insert(db, table, 'a', { id: 4, label: 'four', note: 'given' })])
          await run(db, [insert(db, table, 'a', { id: 5, label: 'five' })])
          const notes = await sql<{ id: number; note: string }>`select id, note from ${sql.table(table)} where id > 2 order by id`.execute(db)
          expect(notes.rows).to.deep.equal([
            { id: 3, note: 'none' },
            { id: 4, note: 'given' },
            { id: 5, note: 'none' },
          ])
        }))
    })

    it('refuses a query with no parameter, which would be a constant read', async () => {
      const { db } = await database.open()
      expect(() => precompiled<Record<string, never>, unknown>(db, () => db.selectFrom('api_keys').select('id'))).to.throw(
        'precompiled: the query has no parameter',
      )
    })
  })
}
