import { randomBytes } from 'node:crypto'
import { DEFAULT_SERVICING_TERMS, type LoanProduct } from '@lendgate/core'
import { right } from '@lendgate/core/testing/contracts'
import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import { sql, type Kysely } from 'kysely'
import pg from 'pg'
import { MEMORY_URL, openDatabase, type DatabaseKind } from '../src/postgres/database.js'
import { postgresLoanProductRepository } from '../src/postgres/loan-product-repository.js'
import { migrateToLatest } from '../src/postgres/migrate.js'
import type { Database } from '../src/postgres/schema.js'
import { realDatabaseUrl, testDatabases } from '../src/testing/test-databases.js'
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

type Fresh = { readonly db: Kysely<Database>; readonly dispose: () => Promise<void> }

const withAdmin = async (url: string, statement: string): Promise<void> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

/**
 * A database of the same kind as the shared test database, migrated from nothing, for this
 * test alone: the shared one holds other tests' products. A server database is named like the
 * shared ones, so a run that dies leaves nothing the next run does not drop.
 */
const freshDatabase = async (kind: DatabaseKind): Promise<Fresh> => {
  const baseUrl = realDatabaseUrl()
  if (kind === 'embedded' || baseUrl === undefined) {
    const database = await openDatabase({ url: MEMORY_URL, dataDir: '' })
    await migrateToLatest(database.db)
    return { db: database.db, dispose: database.close }
  }
  const name = `lendgate_test_${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString('hex')}`
  await withAdmin(baseUrl, `create database "${name}"`)
  const url = new URL(baseUrl)
  url.pathname = `/${name}`
  const database = await openDatabase({ url: url.toString(), dataDir: '' })
  const dispose = async (): Promise<void> => {
    await database.close()
    await withAdmin(baseUrl, `drop database if exists "${name}" with (force)`)
  }
  try {
    await migrateToLatest(database.db)
  } catch (error) {
    await dispose()
    throw error
  }
  return { db: database.db, dispose }
}

for (const database of testDatabases()) {
  describe(`Loan migration on ${database.name}`, function () {
    this.timeout(60_000)

    it('leaves a fresh database with exactly the three seeded active products', async () => {
      const { kind } = await database.open()
      const fresh = await freshDatabase(kind)
      try {
        const products = postgresLoanProductRepository(fresh.db)
        const everything = { limit: 100, after: O.none }
        expect(await right(products.list(undefined, everything))).to.deep.equal(SEEDED_PRODUCTS)
        expect(await right(products.list(true, everything))).to.deep.equal(SEEDED_PRODUCTS)
        expect(await right(products.list(false, everything))).to.deep.equal([])
        for (const p of SEEDED_PRODUCTS) expect(await right(products.findById(p.id))).to.deep.equal(O.some(p))
      } finally {
        await fresh.dispose()
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
