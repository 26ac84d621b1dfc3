import { randomBytes, randomInt } from 'node:crypto'
import {
  NOT_AUDITED,
  achReturnRates,
  returnCategoryOf,
  type AchEntry,
  type AchEntryStatus,
  type AchFile,
  type AchFileStatus,
  type AchOriginations,
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
import * as TE from 'fp-ts/lib/TaskEither.js'
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
 * (each test world) against the in-memory counts, over the same rows: real `ach_files` (one
 * written, one built: only the written one's entries are debits), `ach_entries` (each naming a
 * stored payment of a booked loan) and `ach_returns` (written by `postgresAchInbound`). The
 * databases are shared: every client, trace and file here is fresh, and only this suite's clients
 * are read back. Then the two counts' plans on a seeded table: each a range of its partial index.
 */

/** The seeded Working Capital Term Loan (migration 0009). */
const WORKING_CAPITAL_ID = testId('5b0c1d2e-0001-4a00-8000-000000000001')

/** The first day counted by the scenario (`countsBetween`), and a clock whose New York date puts it first in the window. */
const SINCE = '2026-05-01'
/** The last day counted by the scenario: SINCE + 59, the 60th day. */
const UNTIL = '2026-06-29'
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

/** An entry as the scenario writes it (in the written file unless `built`), and a return of it or of no entry. */
type PlannedEntry = { readonly status: AchEntryStatus; readonly submittedOn: string | null; readonly built?: true }
type PlannedReturn = { readonly entry: number | null; readonly code: string; readonly receivedOn: string; readonly outcome: ReturnOutcome }

/** A file of the scenario, `status` (its run key sorts after every `YYYY-MM-DDTHH:MM` one, so no run finds it unfinished before its own). */
const scenarioFile = (status: Extract<AchFileStatus, 'built' | 'written'>): AchFile => {
  const id = freshId()
  return {
    id,
    runKey: `rates-${id}`,
    partyId: null,
    cutoffAt: new Date('2026-04-30T19:30:00.000Z'),
    effectiveEntryDate: SINCE,
    creationDate: '2026-04-30',
    creationTime: '1530',
    status,
    fileIdModifier: null,
    name: `rates-${id}.ach`,
    sha256: 'a'.repeat(64),
    entryCount: 1,
    debitTotal: 1_000,
    entryHash: 1,
    createdAt: new Date('2026-04-30T19:30:00.000Z'),
    writtenAt: status === 'written' ? new Date('2026-04-30T19:31:00.000Z') : null,
  }
}

/** Origination records holding `files` and `entries`: what `inMemoryAchReturnRates` reads of them. */
const originationsOf = (files: () => readonly AchFile[], entries: () => readonly AchEntry[]): Pick<AchOriginations, 'findFile'> & { readonly entries: () => readonly AchEntry[] } => ({
  entries,
  findFile: (id) => TE.right(O.fromNullable(files().find((f) => f.id === id))),
})

/**
 * Writes, in `w`, two files (one `written`, one `built`: a built file's entries have not left),
 * payments that are `SUBMITTED` (no claim takes them), the entries of each client's plan (each its
 * own stored payment) and, in one inbound file, their returns. Answers the files, entries and
 * returns as the ports have them. The written file's `sent` entries are all effective in 2026,
 * long after any date the originations contract settles up to on the shared database.
 */
const writeScenario = async (w: World, plans: readonly { readonly entries: readonly PlannedEntry[]; readonly returns: readonly PlannedReturn[] }[]) => {
  const [written, built] = [scenarioFile('written'), scenarioFile('built')]
  for (const f of [written, built]) {
    await w.world
      .insertInto('ach_files')
      .values({
        id: f.id,
        run_key: f.runKey,
        cutoff_at: f.cutoffAt,
        effective_entry_date: f.effectiveEntryDate,
        creation_date: f.creationDate,
        creation_time: f.creationTime,
        status: f.status,
        file_id_modifier: f.fileIdModifier,
        name: f.name,
        sha256: f.sha256,
        entry_count: f.entryCount,
        debit_total: f.debitTotal,
        entry_hash: f.entryHash,
        created_at: f.createdAt,
        written_at: f.writtenAt,
      })
      .execute()
  }
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
        fileId: e.built === true ? built.id : written.id,
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
  return { files: [written, built], entries, returns, clients }
}

/**
 * The scenario's first client, written by hand, with its counts from SINCE to UNTIL worked out:
 * debits of the written file on SINCE and after, up to UNTIL, sent, settled or returned (3);
 * matched returns received on SINCE and after, up to UNTIL (R10, R03, R01: 1 unauthorized, 1
 * administrative, 3 in all). Up to the day after UNTIL: one debit and one R07 more.
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
    // Effective the day after UNTIL: not in the window.
    { status: 'sent', submittedOn: shift(UNTIL, 1) },
    // Of the built file, in the window: its debits have not left.
    { status: 'sent', submittedOn: shift(SINCE, 1), built: true },
    { status: 'settled', submittedOn: UNTIL, built: true },
    { status: 'returned', submittedOn: SINCE, built: true },
  ],
  returns: [
    { entry: 0, code: 'R10', receivedOn: SINCE, outcome: 'applied' },
    { entry: 1, code: 'R10', receivedOn: shift(SINCE, -1), outcome: 'applied' },
    { entry: 2, code: 'R03', receivedOn: shift(SINCE, 5), outcome: 'loan_charged_off' },
    { entry: 3, code: 'R01', receivedOn: UNTIL, outcome: 'already_reversed' },
    // Received the day after UNTIL: not in the window.
    { entry: 7, code: 'R07', receivedOn: shift(UNTIL, 1), outcome: 'applied' },
    { entry: null, code: 'R05', receivedOn: SINCE, outcome: 'unmatched' },
    { entry: null, code: 'R02', receivedOn: shift(SINCE, 3), outcome: 'unmatched' },
  ],
} as const satisfies { readonly entries: readonly PlannedEntry[]; readonly returns: readonly PlannedReturn[] }

/** A client's plan drawn by `seed`: entries of every status around SINCE (one in four of the built file), returns of some of them and of none. */
const drawnPlan = (seed: number): { readonly entries: readonly PlannedEntry[]; readonly returns: readonly PlannedReturn[] } => {
  const g = generator(seed)
  const entries = Array.from({ length: 6 + g.below(14) }, (): PlannedEntry => {
    const status = g.pick(STATUSES)
    const dated = status === 'claimed' || status === 'dropped' ? g.below(3) === 0 : true
    const submittedOn = dated ? shift(SINCE, g.pick(OFFSETS)) : null
    return g.below(4) === 0 ? { status, submittedOn, built: true } : { status, submittedOn }
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
      inMemory = inMemoryAchReturnRates(originationsOf(() => scenario.files, () => scenario.entries), () => scenario.returns)
    })

    it('counts the hand-written client as worked out: 3 debits, 1 unauthorized, 1 administrative, 3 returns', async () => {
      const [first] = scenario.clients
      expect(shift(SINCE, 59)).to.equal(UNTIL)
      const counts = onlyOf(await right(postgres.countsBetween(SINCE, UNTIL)), [first!])
      expect(counts).to.deep.equal([{ clientId: first, debits: 3, unauthorized: 1, administrative: 1, overall: 3 }])
      expect(onlyOf(await right(inMemory.countsBetween(SINCE, UNTIL)), [first!])).to.deep.equal(counts)
      // A day later at the end: the debit effective and the R07 received the day after UNTIL.
      expect(onlyOf(await right(postgres.countsBetween(SINCE, shift(UNTIL, 1))), [first!])).to.deep.equal([{ clientId: first, debits: 4, unauthorized: 2, administrative: 1, overall: 4 }])
      // A day earlier at the end: the returned debit (SINCE + 20) still in, the R01 received on UNTIL out.
      expect(onlyOf(await right(postgres.countsBetween(SINCE, shift(UNTIL, -1))), [first!])).to.deep.equal([{ clientId: first, debits: 3, unauthorized: 1, administrative: 1, overall: 2 }])
      // One day, both bounds the same: SINCE's debit, and the R10 received on SINCE.
      expect(onlyOf(await right(postgres.countsBetween(SINCE, SINCE)), [first!])).to.deep.equal([{ clientId: first, debits: 1, unauthorized: 1, administrative: 0, overall: 1 }])
    })

    it('never counts an entry of a built file, whatever its status and date; counts it once the file is written', async () => {
      // A client of its own, all of whose debits are of a built file of their own: sent, settled and returned ones in the window.
      const own = await writeScenario(w, [{ entries: [{ status: 'sent', submittedOn: SINCE, built: true }, { status: 'settled', submittedOn: shift(SINCE, 30), built: true }, { status: 'returned', submittedOn: UNTIL, built: true }], returns: [] }])
      const [client] = own.clients
      const builtFile = own.files.find((f) => f.status === 'built')!
      expect(own.entries.map((e) => e.fileId)).to.deep.equal([builtFile.id, builtFile.id, builtFile.id])
      expect(onlyOf(await right(postgres.countsBetween(SINCE, UNTIL)), [client!])).to.deep.equal([])
      expect(await right(inMemoryAchReturnRates(originationsOf(() => own.files, () => own.entries), () => own.returns).countsBetween(SINCE, UNTIL))).to.deep.equal([])
      // Written: its three debits count.
      await w.world.updateTable('ach_files').set({ status: 'written', written_at: new Date('2026-04-30T19:31:00.000Z') }).where('id', '=', builtFile.id).execute()
      expect(onlyOf(await right(postgres.countsBetween(SINCE, UNTIL)), [client!])).to.deep.equal([{ clientId: client, debits: 3, unauthorized: 0, administrative: 0, overall: 0 }])
    })

    it('counts a client with a return in the window and no debit in it: debits 0', async () => {
      const last = scenario.clients.at(-1)!
      expect(onlyOf(await right(postgres.countsBetween(SINCE, UNTIL)), [last])).to.deep.equal([{ clientId: last, debits: 0, unauthorized: 1, administrative: 0, overall: 1 }])
    })

    it('answers the in-memory counts for every client, for any window around the scenario', async () => {
      let compared = 0
      for (const offset of [-41, -40, -3, -2, -1, 0, 1, 2, 3, 15, 16, 58, 59, 60, 61, 76]) {
        const from = shift(SINCE, offset)
        // An empty window (the end before the start), one day, two, the 60 days, and all that follows.
        for (const to of [shift(from, -1), from, shift(from, 1), shift(from, 59), shift(SINCE, 76)]) {
          const fromPostgres = onlyOf(await right(postgres.countsBetween(from, to)), scenario.clients)
          const fromMemory: readonly ClientReturnCounts[] = await right(inMemory.countsBetween(from, to))
          expect(fromPostgres, `from ${from} to ${to}`).to.deep.equal(fromMemory)
          compared += 1
        }
      }
      expect(compared).to.equal(80)
      // The scenario has counts to compare: some clients listed, some returns of each category, some debits of the built file left out.
      const all = await right(inMemory.countsBetween(shift(SINCE, -41), shift(SINCE, 76)))
      expect(all.length).to.be.greaterThan(3)
      expect(all.some((c) => c.unauthorized > 0) && all.some((c) => c.administrative > 0)).to.equal(true)
      const builtId = scenario.files.find((f) => f.status === 'built')!.id
      const builtSent = scenario.entries.filter((e) => e.fileId === builtId && e.status !== 'claimed' && e.status !== 'dropped' && e.submittedOn !== null)
      expect(builtSent.length).to.be.greaterThan(3)
      const everyDebit = scenario.entries.filter((e) => e.status !== 'claimed' && e.status !== 'dropped' && e.submittedOn !== null && e.submittedOn >= shift(SINCE, -41) && e.submittedOn <= shift(SINCE, 76)).length
      expect(all.reduce((n, c) => n + c.debits, 0)).to.equal(everyDebit - builtSent.length)
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
type PlanNode = { readonly 'Node Type': string; readonly 'Relation Name'?: string; readonly 'Index Name'?: string; readonly 'Index Cond'?: string; readonly Plans?: readonly PlanNode[] }
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
      for (const table of ['payments', 'ach_files', 'ach_entries', 'ach_returns']) await sql`alter table ${sql.table(table)} set (autovacuum_enabled = false)`.execute(db)
      // 30,000 payments like the template; an entry of each over two and a half years (900 days, a file a day: written, but for the
      // last two days' still built), of 41 clients, every status; a return of one in five.
      await sql`
        insert into payments
        select (jsonb_populate_record(null::payments, to_jsonb(p) || jsonb_build_object('id', gen_random_uuid(), 'idempotency_key', 'seed-' || g))).*
        from payments p, generate_series(1, 30000) g where p.id = ${template!.id}`.execute(db)
      await sql`
        insert into ach_files (id, run_key, cutoff_at, effective_entry_date, creation_date, creation_time, status, created_at, written_at)
        select gen_random_uuid(), 'seeded-' || d, now(), date '2024-01-01' + d, date '2024-01-01' + d - 1, '1530',
               case when d < 898 then 'written' else 'built' end, now(), case when d < 898 then now() end
        from generate_series(0, 899) d`.execute(db)
      await sql`
        insert into ach_entries (payment_id, file_id, payment_method_id, client_id, trace_number, status, amount, submitted_on)
        select p.id, f.id, p.payment_method_id, md5('client-' || (n % 41))::uuid, lpad(n::text, 15, '0'),
               (array['sent', 'settled', 'returned', 'claimed', 'dropped'])[1 + n % 5],
               case when n % 5 < 3 then 1000 end,
               case when n % 5 < 3 then date '2024-01-01' + (n % 900)::int end
        from (select id, payment_method_id, row_number() over (order by id) as n from payments where idempotency_key like 'seed-%') p
        join ach_files f on f.run_key = 'seeded-' || (p.n % 900)`.execute(db)
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
      // The files analyzed too: the planner sees that nearly every one is written.
      for (const table of ['ach_files', 'ach_entries', 'ach_returns'] as const) {
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

    it('reads each count as a range of its partial index, never a sequential scan of the table: the returns index-only, the entries (joined to their written files) through the index', async () => {
      const { db } = scratch.database
      statements.length = 0
      // 60 days of the 900 seeded, the last of them (2026-06-17) a built file's, and the day after it left out.
      const [from, to] = ['2026-04-19', '2026-06-17']
      const counts = await right(postgresAchReturnRates(db).countsBetween(from, to))
      expect(counts.length).to.equal(41)
      // The debits are those of written files in the window, as a plain count of the seeded rows answers them.
      const { rows } = await sql<{ debits: string }>`
        select count(*) as debits from ach_entries e join ach_files f on f.id = e.file_id
        where f.status = 'written' and e.status in ('sent', 'settled', 'returned') and e.submitted_on between ${from} and ${to}`.execute(db)
      const debits = counts.reduce((n, c) => n + c.debits, 0)
      expect(debits).to.equal(Number(rows[0]!.debits)).and.to.be.greaterThan(1_000)
      const ofTable = (table: string) => statements.find((s) => new RegExp(`from "${table}"`).test(s.sql)) ?? expect.fail(`no statement read ${table}: ${JSON.stringify(statements)}`)
      for (const [table, index, column, ways] of [
        // Its rows' files are not in the index (submitted_on, client_id): the range is read from the index, each row's file from the table.
        ['ach_entries', 'ach_entries_submitted_idx', 'submitted_on', [[`Index Only Scan ach_entries_submitted_idx`], [`Index Scan ach_entries_submitted_idx`], [`Bitmap Heap Scan ach_entries`, `Bitmap Index Scan ach_entries_submitted_idx`]]],
        ['ach_returns', 'ach_returns_received_idx', 'received_on', [[`Index Only Scan ach_returns_received_idx`]]],
      ] as const) {
        const statement = ofTable(table)
        const explained = await db.executeQuery<{ 'QUERY PLAN': unknown }>(CompiledQuery.raw(`explain (format json) ${statement.sql}`, [...statement.parameters]))
        const plan = explained.rows[0]?.['QUERY PLAN']
        const [top] = (typeof plan === 'string' ? JSON.parse(plan) : plan) as [{ readonly Plan: PlanNode }]
        const nodes = nodesOf(top.Plan)
        const shown = `${table}: ${JSON.stringify(top.Plan)}`
        // What reads the table: a scan of it, or of one of its indexes (a bitmap index scan names no relation).
        const reads = nodes.filter((n) => n['Relation Name'] === table || n['Index Name']?.startsWith(`${table}_`) === true).map((n) => `${n['Node Type']} ${n['Index Name'] ?? n['Relation Name']}`)
        expect(ways.map((way) => JSON.stringify(way)), shown).to.include(JSON.stringify(reads))
        // And the partial index answers the window's two bounds.
        const [scan] = nodes.filter((n) => n['Index Name'] === index)
        expect(scan?.['Index Cond'], shown).to.include(`${column} >= `).and.to.include(`${column} <= `)
      }
    })
  })
}
