import { randomBytes, randomInt } from 'node:crypto'
import {
  NOT_AUDITED,
  achReturnRates,
  returnCategoryOf,
  type AchEntry,
  type AchEntryStatus,
  type AchReturnRecord,
  type AchReturnRates,
  type ClientId,
  type ClientReturnCounts,
  type LoanProduct,
  type Payment,
  type ReturnOutcome,
  type ReturnRateReport,
} from '@lendgate/core'
import { inMemoryAchReturnRates, testId } from '@lendgate/core/testing'
import { freshId, right } from '@lendgate/core/testing/contracts'
import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import { CompiledQuery, sql, type Kysely, type LogEvent } from 'kysely'
import { bankAccountOf, BOOKED_AT, bookingThrough } from '../../core/src/testing/contracts/loan-servicing-contract.js'
import { post } from '../../core/src/testing/contracts/loan-servicing-postings.js'
import { postgresAchInbound } from '../src/postgres/ach-inbound.js'
import { postgresAchReturnRates } from '../src/postgres/ach-return-rates.js'
import { postgresLoanApplicationRepository } from '../src/postgres/loan-application-repository.js'
import { postgresLoanProductRepository } from '../src/postgres/loan-product-repository.js'
import { postgresLoanRepository } from '../src/postgres/loan-repository.js'
import { postgresOnboardingSessionRepository } from '../src/postgres/onboarding-session-repository.js'
import { postgresPaymentMethodRepository } from '../src/postgres/payment-method-repository.js'
import type { Database } from '../src/postgres/schema.js'
import { scratchDatabase, testDatabases, testWorlds, type ScratchDatabase } from '../src/testing/test-databases.js'
import { clientOwner, partyMaker } from './support/database-fixtures.js'

/**
 * The return-rate counts (`AchReturnRates`, docs/ach.md section 7 "Risk counters") in PostgreSQL
 * (each test world) against the in-memory counts, over the same rows: real `ach_files`,
 * `ach_entries` (each naming a stored payment of a booked loan) and `ach_returns` (written by
 * `postgresAchInbound`). The databases are shared: every client, trace and file here is fresh, and
 * only this suite's clients are read back. Then the two counts' plans on a seeded table: each a
 * range of its partial index.
 */

/** The seeded Working Capital Term Loan (migration 0009). */
const WORKING_CAPITAL_ID = testId('5b0c1d2e-0001-4a00-8000-000000000001')

/** The first day counted by the scenario (`countsSince`), and a clock whose New York date puts it first in the window. */
const SINCE = '2026-05-01'
/** 02:00 UTC on 2026-06-30 is 22:00 EDT on 2026-06-29, and 2026-06-29 − 59 days is 2026-05-01. */
const CLOCK_AT = new Date('2026-06-30T02:00:00.000Z')

const DAY_MS = 86_400_000
/** `date` moved `days` days. */
const shift = (date: string, days: number): string => new Date(Date.parse(`${date}T00:00:00.000Z`) + days * DAY_MS).toISOString().slice(0, 10)
/** 15 random digits: a trace number no other test names. */
const freshTrace = (): string => Array.from({ length: 15 }, () => randomInt(10)).join('')

/** A small seeded generator (mulberry32), so that the scenario is the same on every run. */
const generator = (seed: number) => {
  let a = seed >>> 0
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
  return { pick: <A>(xs: readonly A[]): A => xs[Math.floor(next() * xs.length)]!, below: (n: number): number => Math.floor(next() * n) }
}

const STATUSES: readonly AchEntryStatus[] = ['claimed', 'sent', 'settled', 'returned', 'dropped']
const CODES = ['R01', 'R02', 'R03', 'R04', 'R05', 'R07', 'R08', 'R09', 'R10', 'R11', 'R16', 'R20', 'R29', 'R51'] as const
const OUTCOMES: readonly ReturnOutcome[] = ['applied', 'loan_charged_off', 'already_reversed', 'not_sent']
/** Days from SINCE, mostly at the edge. */
const OFFSETS = [-40, -2, -1, -1, 0, 0, 0, 1, 2, 15, 30, 58, 59, 60, 75] as const

/** A client of the scenario: a booked loan of a borrower of its own, a stored bank account, and payments made to name. */
type Payer = { readonly clientId: ClientId; readonly payments: (n: number) => Promise<readonly Payment[]> }

/** What one world needs to write the scenario: payers, and writers of files, entries and returns. */
type World = {
  readonly db: Kysely<Database>
  readonly world: Kysely<Database>
  readonly payer: () => Promise<Payer>
}

const worldOf = async (db: Kysely<Database>, world: Kysely<Database>): Promise<World> => {
  const product = O.toNullable(await right(postgresLoanProductRepository(db).findById(WORKING_CAPITAL_ID)))
  if (product === null) throw new Error(`the seeded product ${WORKING_CAPITAL_ID} is missing`)
  const parties = partyMaker(postgresOnboardingSessionRepository(world), clientOwner(db))
  const borrower = async () => {
    const party = await parties()
    return { partyId: party.id, clientId: party.clientId }
  }
  const booking = bookingThrough(postgresLoanApplicationRepository(world), product satisfies LoanProduct, borrower)
  const loans = postgresLoanRepository(world)
  const methods = postgresPaymentMethodRepository(world)
  return {
    db,
    world,
    payer: async () => {
      const owner = await borrower()
      const booked = await booking({ borrower: owner })
      const method = bankAccountOf(booked.loan.id, BOOKED_AT)
      await right(methods.insert(method, null))
      return {
        clientId: owner.clientId,
        payments: async (n) => {
          const payments = Array.from(
            { length: n },
            (_, k): Payment => ({
              id: freshId(),
              loanId: booked.loan.id,
              clientId: owner.clientId,
              idempotencyKey: freshId(),
              paymentMethodId: method.id,
              amount: 1_000 + k,
              currency: booked.loan.currency,
              status: 'SUBMITTED',
              failureCode: null,
              allocation: null,
              perInstallment: [],
              transactionId: null,
              effectiveDate: '2026-04-01',
              createdAt: new Date(Date.parse('2026-04-01T15:00:00.000Z') + k),
            }),
          )
          await post(loans, booked.loan.id, (l) => ({ transactions: [], installments: l.installments, balance: null, payments, audit: NOT_AUDITED, events: [] }), null)
          return payments
        },
      }
    },
  }
}

/** An entry as the scenario writes it, and a return of it or of no entry. */
type PlannedEntry = { readonly status: AchEntryStatus; readonly submittedOn: string | null }
type PlannedReturn = { readonly entry: number | null; readonly code: string; readonly receivedOn: string; readonly outcome: ReturnOutcome }

/**
 * Writes, in `w`, one file (`built`: never written, so no settlement job of another suite touches
 * its entries; its run key sorts after every `YYYY-MM-DDTHH:MM` one, so no run finds it unfinished
 * before its own), payments that are `SUBMITTED` (no claim takes them), the entries of each client's plan (each its own stored payment) and, in one
 * inbound file, their returns. Answers the entries and returns as the ports have them.
 */
const writeScenario = async (w: World, plans: readonly { readonly entries: readonly PlannedEntry[]; readonly returns: readonly PlannedReturn[] }[]) => {
  const fileId = freshId()
  await w.world
    .insertInto('ach_files')
    .values({
      id: fileId,
      run_key: `rates-${fileId}`,
      cutoff_at: new Date('2026-04-30T19:30:00.000Z'),
      effective_entry_date: SINCE,
      creation_date: '2026-04-30',
      creation_time: '1530',
      status: 'built',
      file_id_modifier: null,
      name: null,
      sha256: null,
      entry_count: null,
      debit_total: null,
      entry_hash: null,
      created_at: new Date('2026-04-30T19:30:00.000Z'),
      written_at: null,
    })
    .execute()
  const inbound = postgresAchInbound(w.world)
  const inboundFile = await right(inbound.openFile({ id: freshId(), sha256: randomBytes(32).toString('hex'), receivedAt: new Date('2026-06-29T13:00:00.000Z') }))
  const entries: AchEntry[] = []
  const returns: AchReturnRecord[] = []
  const clients: ClientId[] = []
  for (const plan of plans) {
    const payer = await w.payer()
    clients.push(payer.clientId)
    const payments = await payer.payments(plan.entries.length)
    const own = plan.entries.map(
      (e, k): AchEntry => ({
        paymentId: payments[k]!.id,
        fileId,
        paymentMethodId: payments[k]!.paymentMethodId,
        clientId: payer.clientId,
        traceNumber: freshTrace(),
        status: e.status,
        amount: e.status === 'claimed' || e.status === 'dropped' ? null : payments[k]!.amount,
        submittedOn: e.submittedOn,
      }),
    )
    if (own.length > 0) {
      await w.world
        .insertInto('ach_entries')
        .values(own.map((e) => ({ payment_id: e.paymentId, file_id: e.fileId, payment_method_id: e.paymentMethodId, client_id: e.clientId, trace_number: e.traceNumber, status: e.status, amount: e.amount, submitted_on: e.submittedOn })))
        .execute()
    }
    entries.push(...own)
    for (const [k, r] of plan.returns.entries()) {
      const named = r.entry === null ? undefined : own[r.entry]
      const record: AchReturnRecord = {
        id: freshId(),
        inboundFileId: inboundFile.id,
        record: 3 + 2 * k,
        originalTrace: named?.traceNumber ?? freshTrace(),
        returnCode: r.code,
        category: returnCategoryOf(r.code),
        amount: named?.amount ?? 1_000,
        paymentId: named?.paymentId ?? null,
        clientId: named?.clientId ?? null,
        receivedOn: r.receivedOn,
        outcome: named === undefined ? 'unmatched' : r.outcome,
        late: false,
      }
      expect(await right(inbound.recordReturn(record))).to.deep.equal(record)
      returns.push(record)
    }
  }
  return { entries, returns, clients }
}

/**
 * The scenario's first client, written by hand, with its counts from SINCE worked out: debits on
 * SINCE and after, sent, settled or returned (3); matched returns received on SINCE and after
 * (R10, R03, R01: 1 unauthorized, 1 administrative, 3 in all).
 */
const HAND_WRITTEN = {
  entries: [
    { status: 'sent', submittedOn: shift(SINCE, -1) },
    { status: 'sent', submittedOn: SINCE },
    { status: 'settled', submittedOn: shift(SINCE, 10) },
    { status: 'returned', submittedOn: shift(SINCE, 20) },
    { status: 'claimed', submittedOn: null },
    { status: 'dropped', submittedOn: null },
    // A claimed entry may keep a date (the table allows it): never counted all the same.
    { status: 'claimed', submittedOn: shift(SINCE, 1) },
  ],
  returns: [
    { entry: 0, code: 'R10', receivedOn: SINCE, outcome: 'applied' },
    { entry: 1, code: 'R10', receivedOn: shift(SINCE, -1), outcome: 'applied' },
    { entry: 2, code: 'R03', receivedOn: shift(SINCE, 5), outcome: 'loan_charged_off' },
    { entry: 3, code: 'R01', receivedOn: shift(SINCE, 5), outcome: 'already_reversed' },
    { entry: null, code: 'R05', receivedOn: SINCE, outcome: 'unmatched' },
    { entry: null, code: 'R02', receivedOn: shift(SINCE, 3), outcome: 'unmatched' },
  ],
} as const satisfies { readonly entries: readonly PlannedEntry[]; readonly returns: readonly PlannedReturn[] }

/** A client's plan drawn by `seed`: entries of every status around SINCE, returns of some of them and of none. */
const drawnPlan = (seed: number): { readonly entries: readonly PlannedEntry[]; readonly returns: readonly PlannedReturn[] } => {
  const g = generator(seed)
  const entries = Array.from({ length: 6 + g.below(14) }, (): PlannedEntry => {
    const status = g.pick(STATUSES)
    const dated = status === 'claimed' || status === 'dropped' ? g.below(3) === 0 : true
    return { status, submittedOn: dated ? shift(SINCE, g.pick(OFFSETS)) : null }
  })
  // Each entry is returned once at most (a return is one per trace).
  const order = entries.map((_, k) => k).sort(() => g.below(3) - 1)
  const returns = Array.from({ length: g.below(entries.length) }, (_, k): PlannedReturn => ({
    entry: g.below(6) === 0 ? null : (order[k] ?? null),
    code: g.pick(CODES),
    receivedOn: shift(SINCE, g.pick(OFFSETS)),
    outcome: g.pick(OUTCOMES),
  }))
  return { entries, returns }
}

/** `counts` of the clients `clients` only, in their order. */
const onlyOf = <A extends { readonly clientId: string }>(counts: readonly A[], clients: readonly string[]): A[] => counts.filter((c) => clients.includes(c.clientId))

for (const database of testWorlds()) {
  describe(`AchReturnRates on ${database.name}, against the in-memory counts`, () => {
    let w: World
    let scenario: Awaited<ReturnType<typeof writeScenario>>
    let postgres: AchReturnRates
    let inMemory: AchReturnRates

    before(async function () {
      this.timeout(120_000)
      const { db, world } = await database.open()
      w = await worldOf(db, world)
      scenario = await writeScenario(w, [HAND_WRITTEN, drawnPlan(1), drawnPlan(2), drawnPlan(3), drawnPlan(4), { entries: [{ status: 'sent', submittedOn: shift(SINCE, -3) }], returns: [{ entry: 0, code: 'R07', receivedOn: shift(SINCE, 2), outcome: 'applied' }] }])
      postgres = postgresAchReturnRates(world)
      inMemory = inMemoryAchReturnRates(() => scenario.entries, () => scenario.returns)
    })

    it('counts the hand-written client as worked out: 3 debits, 1 unauthorized, 1 administrative, 3 returns', async () => {
      const [first] = scenario.clients
      const counts = onlyOf(await right(postgres.countsSince(SINCE)), [first!])
      expect(counts).to.deep.equal([{ clientId: first, debits: 3, unauthorized: 1, administrative: 1, overall: 3 }])
      expect(onlyOf(await right(inMemory.countsSince(SINCE)), [first!])).to.deep.equal(counts)
    })

    it('counts a client with a return in the window and no debit in it: debits 0', async () => {
      const last = scenario.clients.at(-1)!
      expect(onlyOf(await right(postgres.countsSince(SINCE)), [last])).to.deep.equal([{ clientId: last, debits: 0, unauthorized: 1, administrative: 0, overall: 1 }])
    })

    it('answers the in-memory counts for every client, from any first day around the scenario', async () => {
      for (const offset of [-41, -40, -3, -2, -1, 0, 1, 2, 3, 15, 16, 58, 59, 60, 61, 76]) {
        const since = shift(SINCE, offset)
        const fromPostgres = onlyOf(await right(postgres.countsSince(since)), scenario.clients)
        const fromMemory: readonly ClientReturnCounts[] = await right(inMemory.countsSince(since))
        expect(fromPostgres, `since ${since}`).to.deep.equal(fromMemory)
      }
      // The scenario has counts to compare: some clients listed, some returns of each category.
      const all = await right(inMemory.countsSince(shift(SINCE, -41)))
      expect(all.length).to.be.greaterThan(3)
      expect(all.some((c) => c.unauthorized > 0) && all.some((c) => c.administrative > 0)).to.equal(true)
    })

    it('answers the same report through achReturnRates on a clock whose New York date starts the window on SINCE', async () => {
      const clock = { now: () => CLOCK_AT }
      const fromPostgres = await right(achReturnRates({ returnRates: postgres, clock })())
      const fromMemory = await right(achReturnRates({ returnRates: inMemory, clock })())
      expect({ from: fromPostgres.from, to: fromPostgres.to }).to.deep.equal({ from: SINCE, to: '2026-06-29' })
      const mine: ReturnRateReport = { ...fromPostgres, clients: onlyOf(fromPostgres.clients, scenario.clients) }
      expect(mine).to.deep.equal(fromMemory)
      expect(onlyOf(fromPostgres.clients, [scenario.clients[0]!])).to.deep.equal([
        {
          clientId: scenario.clients[0],
          debits: 3,
          unauthorized: { returns: 1, rate: 1 / 3, threshold: 0.005, over: true },
          administrative: { returns: 1, rate: 1 / 3, threshold: 0.03, over: true },
          overall: { returns: 3, rate: 1, threshold: 0.15, over: true },
        },
      ])
    })
  })
}

/** A plan node of `EXPLAIN (FORMAT JSON)`. */
type PlanNode = { readonly 'Node Type': string; readonly 'Relation Name'?: string; readonly 'Index Name'?: string; readonly Plans?: readonly PlanNode[] }
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)]

for (const database of testDatabases()) {
  describe(`AchReturnRates query plans on ${database.name}`, () => {
    let scratch: ScratchDatabase
    const statements: { readonly sql: string; readonly parameters: readonly unknown[] }[] = []
    const log = (event: LogEvent): void => {
      if (event.level === 'query') statements.push({ sql: event.query.sql, parameters: event.query.parameters })
    }

    before(async function () {
      this.timeout(180_000)
      // A database of its own: its tables are filled with rows no other suite expects.
      scratch = await scratchDatabase(database.kind, log)
      const { db } = scratch.database
      const w = await worldOf(db, db)
      const [template] = await (await w.payer()).payments(1)
      for (const table of ['payments', 'ach_entries', 'ach_returns']) await sql`alter table ${sql.table(table)} set (autovacuum_enabled = false)`.execute(db)
      // 30,000 payments like the template; an entry of each over two and a half years, of 41 clients, every status; a return of one in five.
      await sql`
        insert into payments
        select (jsonb_populate_record(null::payments, to_jsonb(p) || jsonb_build_object('id', gen_random_uuid(), 'idempotency_key', 'seed-' || g))).*
        from payments p, generate_series(1, 30000) g where p.id = ${template!.id}`.execute(db)
      await sql`
        insert into ach_files (id, run_key, cutoff_at, effective_entry_date, creation_date, creation_time, status, created_at)
        values (${freshId()}, 'seeded', now(), '2026-01-02', '2026-01-01', '1530', 'built', now())`.execute(db)
      await sql`
        insert into ach_entries (payment_id, file_id, payment_method_id, client_id, trace_number, status, amount, submitted_on)
        select p.id, f.id, p.payment_method_id, md5('client-' || (n % 41))::uuid, lpad(n::text, 15, '0'),
               (array['sent', 'settled', 'returned', 'claimed', 'dropped'])[1 + n % 5],
               case when n % 5 < 3 then 1000 end,
               case when n % 5 < 3 then date '2024-01-01' + (n % 900)::int end
        from (select id, payment_method_id, row_number() over (order by id) as n from payments where idempotency_key like 'seed-%') p, ach_files f
        where f.run_key = 'seeded'`.execute(db)
      await sql`insert into ach_inbound_files (id, sha256, received_at, status) values (${freshId()}, ${randomBytes(32).toString('hex')}, now(), 'ingesting')`.execute(db)
      await sql`
        insert into ach_returns (id, inbound_file_id, record, original_trace, return_code, category, amount, payment_id, client_id, received_on, outcome, late)
        select gen_random_uuid(), i.id, 3, e.trace_number, c.code, c.category, 1000,
               case when n % 10 = 0 then null else e.payment_id end, case when n % 10 = 0 then null else e.client_id end,
               date '2024-01-01' + (n % 900)::int, case when n % 10 = 0 then 'unmatched' else 'applied' end, false
        from (select *, row_number() over (order by trace_number) as n from ach_entries where status = 'returned') e,
             ach_inbound_files i,
             lateral (select (array['R01', 'R10', 'R03'])[1 + e.n::int % 3] as code, (array['other', 'unauthorized', 'administrative'])[1 + e.n::int % 3] as category) c`.execute(db)
      // Every page all-visible, as on a table long written: what an index-only scan needs. A snapshot
      // still open elsewhere in the database (an autovacuum's analyze of the rows just written) can
      // keep a vacuum from marking them so: vacuum again until it has.
      for (const table of ['ach_entries', 'ach_returns'] as const) {
        for (let attempt = 0; ; attempt++) {
          await sql`vacuum (analyze) ${sql.table(table)}`.execute(db)
          const { rows } = await sql<{ relpages: number; relallvisible: number }>`select relpages, relallvisible from pg_class where relname = ${table} and relnamespace = current_schema()::regnamespace`.execute(db)
          if (rows[0] !== undefined && rows[0].relpages > 0 && rows[0].relallvisible === rows[0].relpages) break
          if (attempt === 40) expect.fail(`${table}: vacuum left pages not all-visible: ${JSON.stringify(rows)}`)
          await new Promise((resolve) => setTimeout(resolve, 250))
        }
      }
    })
    after(async () => {
      await scratch?.drop()
    })

    it('reads each count as a range of its partial index (an index-only scan), never a sequential scan of the table', async () => {
      const { db } = scratch.database
      statements.length = 0
      // The last 60 days of the 900 seeded.
      const counts = await right(postgresAchReturnRates(db).countsSince('2026-04-19'))
      expect(counts.length).to.equal(41)
      const ofTable = (table: string) => statements.find((s) => new RegExp(`from "${table}"`).test(s.sql)) ?? expect.fail(`no statement read ${table}: ${JSON.stringify(statements)}`)
      for (const [table, index] of [
        ['ach_entries', 'ach_entries_submitted_idx'],
        ['ach_returns', 'ach_returns_received_idx'],
      ] as const) {
        const statement = ofTable(table)
        const explained = await db.executeQuery<{ 'QUERY PLAN': unknown }>(CompiledQuery.raw(`explain (format json) ${statement.sql}`, [...statement.parameters]))
        const plan = explained.rows[0]?.['QUERY PLAN']
        const [top] = (typeof plan === 'string' ? JSON.parse(plan) : plan) as [{ readonly Plan: PlanNode }]
        const nodes = nodesOf(top.Plan)
        const reads = nodes.filter((n) => n['Relation Name'] === table || n['Index Name'] !== undefined).map((n) => `${n['Node Type']} ${n['Index Name'] ?? n['Relation Name']}`)
        expect(reads, `${table}: ${JSON.stringify(top.Plan)}`).to.deep.equal([`Index Only Scan ${index}`])
      }
    })
  })
}
