import { right } from '@lendgate/core/testing/contracts'
import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import { sql, type Kysely } from 'kysely'
import { postgresLoanProductRepository } from '../src/postgres/loan-product-repository.js'
import { migrateToLatest } from '../src/postgres/migrate.js'
import type { Database } from '../src/postgres/schema.js'
import { scratchDatabase, testDatabases } from '../src/testing/test-databases.js'
import { SEEDED_LOAN_PRODUCTS as SEEDED_PRODUCTS } from '@lendgate/core/testing'

for (const database of testDatabases()) {
  describe(`Loan migration on ${database.name}`, function () {
    this.timeout(60_000)

    it('leaves a fresh database with exactly the three seeded active products', async () => {
      const fresh = await scratchDatabase(database.kind)
      try {
        const products = postgresLoanProductRepository(fresh.database.db)
        const everything = { limit: 100, after: O.none }
        expect(await right(products.list(undefined, everything))).to.deep.equal(SEEDED_PRODUCTS)
        expect(await right(products.list(true, everything))).to.deep.equal(SEEDED_PRODUCTS)
        expect(await right(products.list(false, everything))).to.deep.equal([])
        for (const p of SEEDED_PRODUCTS) expect(await right(products.findById(p.id))).to.deep.equal(O.some(p))
      } finally {
        await fresh.drop()
      }
    })

    it('keeps the seeded products on the shared test database', async () => {
      const products = postgresLoanProductRepository((await database.open()).db)
      for (const p of SEEDED_PRODUCTS) expect(await right(products.findById(p.id))).to.deep.equal(O.some(p))
    })

    it('round-trips date columns as YYYY-MM-DD strings, whatever the session time zone', async () => {
      const { db } = await database.open()
      const dates = ['2026-11-22', '2026-01-31', '2024-02-29', '1999-12-31', '9999-12-31']
      for (const zone of ['Pacific/Kiritimati', 'Pacific/Pago_Pago', 'UTC']) {
        const read = await db.transaction().execute(async (trx) => {
          await sql`select set_config('TimeZone', ${zone}, true)`.execute(trx)
          await sql`create temporary table dates_round_trip (n integer not null, d date not null) on commit drop`.execute(trx)
          for (const [n, d] of dates.entries()) await sql`insert into dates_round_trip (n, d) values (${n}, ${d})`.execute(trx)
          const { rows } = await sql<{ d: unknown }>`select d from dates_round_trip order by n`.execute(trx)
          const { rows: literal } = await sql<{ d: unknown }>`select date '2026-11-22' as d`.execute(trx)
          return [...rows.map((r) => r.d), literal[0]!.d]
        })
        expect(read).to.deep.equal([...dates, '2026-11-22'])
      }
    })
  })
}
