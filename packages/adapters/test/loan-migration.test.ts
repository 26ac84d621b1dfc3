import { DEFAULT_SERVICING_TERMS, type LoanProduct } from '@lendgate/core'
import { right } from '@lendgate/core/testing/contracts'
import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import { sql, type Kysely } from 'kysely'
import { postgresLoanProductRepository } from '../src/postgres/loan-product-repository.js'
import { migrateToLatest } from '../src/postgres/migrate.js'
import type { Database } from '../src/postgres/schema.js'
import { scratchDatabase, testDatabases } from '../src/testing/test-databases.js'
import { testId } from '@lendgate/core/testing'

const SEEDED_AT = new Date('2026-11-22T00:00:00.000Z')

const seeded = (p: Omit<LoanProduct, 'currency' | 'repaymentFrequency' | 'servicing' | 'active' | 'createdAt' | 'updatedAt'>): LoanProduct => ({
  ...p,
  currency: 'USD',
  repaymentFrequency: 'MONTHLY',
  servicing: DEFAULT_SERVICING_TERMS,
  active: true,
  createdAt: SEEDED_AT,
  updatedAt: SEEDED_AT,
})

/** The catalogue of a fresh database (docs/applications.md "Loan products"), in list order. */
const SEEDED_PRODUCTS: readonly LoanProduct[] = [
  seeded({
    id: testId('5b0c1d2e-0001-4a00-8000-000000000001'),
    name: 'Working Capital Term Loan',
    description: 'Fixed-rate term loan for inventory, payroll and day-to-day operations.',
    minAmount: 500_000,
    maxAmount: 25_000_000,
    minTermMonths: 6,
    maxTermMonths: 36,
    interestRateBps: 1199,
    originationFeeBps: 200,
  }),
  seeded({
    id: testId('5b0c1d2e-0002-4a00-8000-000000000002'),
    name: 'Equipment Financing',
    description: 'Fixed-rate loan for machinery, vehicles and other equipment.',
    minAmount: 1_000_000,
    maxAmount: 50_000_000,
    minTermMonths: 12,
    maxTermMonths: 60,
    interestRateBps: 899,
    originationFeeBps: 100,
  }),
  seeded({
    id: testId('5b0c1d2e-0003-4a00-8000-000000000003'),
    name: 'Interest-Free Starter Loan',
    description: 'Small interest-free loan for new borrowers; a one-time origination fee applies.',
    minAmount: 100_000,
    maxAmount: 1_000_000,
    minTermMonths: 3,
    maxTermMonths: 12,
    interestRateBps: 0,
    originationFeeBps: 300,
  }),
]

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
