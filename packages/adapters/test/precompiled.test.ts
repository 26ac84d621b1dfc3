import { expect } from 'chai'
import { sql } from 'kysely'
import { precompiled } from '../src/postgres/precompiled.js'
import { testDatabases } from '../src/testing/test-databases.js'

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

    it('refuses a query with no parameter, which would be a constant read', async () => {
      const { db } = await database.open()
      expect(() => precompiled<Record<string, never>, unknown>(db, () => db.selectFrom('api_keys').select('id'))).to.throw(
        'precompiled: the query has no parameter',
      )
    })
  })
}
