/**
 * `pnpm bench:servicing [--quick]` (issue 40): the daily servicing job over 10,000 and 100,000
 * loans, against a plain script doing the same SQL work on the same database (the database's
 * ceiling for it), in one run.
 *
 * For each size a book is seeded (`seedLargeBook`) whose history ends yesterday, so that every
 * loan has one day of interest to post today. Each round works on a copy of it
 * (`create database … template …`):
 *
 * - **The job**: the API process started with `RUN_JOBS=true` runs today's servicing run at start
 *   (the scheduler's leased, stepped job, a batch of 100 loans a step, each loan in its own
 *   transaction under its lock). Its throughput is timed from its first saved step to its
 *   completion, read from `job_leases`, so the process's start is not counted.
 * - **The ceiling**: the statements one loan's accrual runs, captured from the core itself
 *   (`captureAccrual`), replayed for every loan of the copy with `pg` on one connection, as the job
 *   works: the same SQL text, in the same transactions, with the loan's id in place of the
 *   captured loan's and fresh ids for new rows, and the batch query between every 100 loans. It
 *   runs no domain code, so its rate is what the database allows for this work.
 *
 * `--close [--loans N]` (issue 61, item 2) measures only the nightly close's ceilings: the same
 * captured statements on one book of N loans (100,000; 3,000 with `--quick`), each loan its own
 * transaction, 100 loans a transaction, and that on two connections (`groupedCeiling`).
 *
 * Only a wrong answer fails the run (a job that does not complete, a statement that fails); time
 * never does.
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { migrateToLatest, openDatabase, postgresCoreDeps } from '@lendgate/adapters'
import { seedLargeBook, type BookSizes, type LoggedStatement } from '@lendgate/adapters/testing'
import { runInterestAccrual } from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import pg from 'pg'
import { apiEnvironment, pinning, REPO_ROOT, startChild } from './processes.js'
import { startReceiver } from './receiver.js'
import { writeInto } from './report.js'
import { databaseUrl, onDatabase, runSecrets, seedingProgress } from './seed.js'

const { values: flags } = parseArgs({ options: { quick: { type: 'boolean', default: false }, close: { type: 'boolean', default: false }, loans: { type: 'string' } } })
const quick = flags.quick === true
/** `--close`: only the nightly close's ceilings (issue 61, item 2), on one book of `--loans` loans. */
const closeOnly = flags.close === true
const CLOSE_LOANS = Number(flags.loans ?? (quick ? 3_000 : 100_000))

/** The loans of each measured book (the issue's two sizes, or two small ones with `--quick`) and its rounds. */
const SIZES = quick ? [{ loans: 300, rounds: 1 }, { loans: 3_000, rounds: 1 }] : [{ loans: 10_000, rounds: 3 }, { loans: 100_000, rounds: 1 }]
/** The job's throughput at least this share of the ceiling's. */
const GOAL = 0.5

const DAY_MS = 86_400_000
const say = (message: string) => process.stderr.write(`bench:servicing: ${message}\n`)

/**
 * A book of `loans` loans, one a borrower, each two months old and never paid: past due since its
 * first installment, so that every day the job posts each loan's interest (and, past the grace
 * days, a late fee) with a snapshot, its heaviest daily work. (A loan paid on time only has its
 * checkpoint moved on a day without a due date.)
 */
const bookOf = (loans: number): BookSizes => ({
  historyMonths: 2,
  paymentEveryDays: 1_000,
  longLedger: 10,
  subjectLoans: 1,
  parties: loans,
  loans,
  bigParties: 0,
  loansPerBigParty: 0,
  openSessions: 0,
})

const baseUrl = process.env['BENCH_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test'
const urlOf = (name: string): string => databaseUrl(baseUrl, name)
const admin = <A>(run: (client: pg.Client) => Promise<A>): Promise<A> => onDatabase(baseUrl, run)

/**
 * One loan's accrual as the core runs it: its transaction's statements and the loan they name,
 * and the query that lists a batch of active loans, for the first batch and for the next ones.
 */
type Accrual = { readonly loanId: string; readonly statements: readonly LoggedStatement[]; readonly firstBatch: LoggedStatement; readonly nextBatch: LoggedStatement }

/** The job's batch: it lists this many active loans at a time. */
const BATCH = 100
/** The loans of the book the statements are captured on: more than one batch, so both batch queries run. */
const CAPTURE_LOANS = BATCH + 1

/**
 * The statements of one loan's accrual, captured from the core: a book of 102 loans whose history
 * ended yesterday, accrued to today in this process with Kysely's query log on. The transaction
 * that posts the seasoned loan's accrual (from its `begin` to its `commit`) is the one replayed.
 */
const captureAccrual = async (name: string): Promise<Accrual> => {
  await admin((c) => c.query(`create database ${name}`))
  const logged: LoggedStatement[] = []
  const database = await openDatabase({ url: urlOf(name), dataDir: '', log: (event) => void (event.level === 'query' && logged.push(event.query)) })
  try {
    await migrateToLatest(database.db)
    const subject = await seedLargeBook(database, { ...bookOf(0), subjectLoans: CAPTURE_LOANS }, { historyEndsAt: new Date(Date.now() - DAY_MS) })
    logged.length = 0
    const deps = postgresCoreDeps(database, { sender: { send: () => TE.right(undefined) }, webhookSecretKey: new Uint8Array(32) })
    const run = await runInterestAccrual(deps)({})()
    if (E.isLeft(run) || run.right.accruals === 0) throw new Error(`capturing the accrual: ${JSON.stringify(run)}`)
    const batches = logged.filter((s) => /^select "id" from "loans"/.test(s.sql))
    const [firstBatch, nextBatch] = [batches.find((s) => !/"id" >/.test(s.sql)), batches.find((s) => /"id" >/.test(s.sql))]
    const begins = logged.flatMap((s, i) => (/^begin/i.test(s.sql) ? [i] : []))
    const statements = begins
      .map((start) => logged.slice(start, logged.findIndex((s, i) => i > start && /^commit/i.test(s.sql)) + 1))
      .find((tx) => tx.some((s) => s.parameters.includes(subject.seasonedLoanId)) && tx.some((s) => /insert into "loan_transactions"/.test(s.sql)))
    if (firstBatch === undefined || nextBatch === undefined || statements === undefined) throw new Error('capturing the accrual: its statements were not found in the query log')
    return { loanId: subject.seasonedLoanId, statements, firstBatch, nextBatch }
  } finally {
    await database.close()
    await admin((c) => c.query(`drop database if exists ${name} with (force)`))
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * `statement` with every UUID among its parameters replaced: `loanId` for the captured loan's
 * id, and for the others (the ids of the rows the accrual inserts, or the loan a batch starts
 * after) what `other` gives, called once per distinct id.
 */
const withIds = (statement: LoggedStatement, captured: string, loanId: string, other: (id: string) => string): LoggedStatement => ({
  sql: statement.sql,
  parameters: statement.parameters.map((p) => (p === captured ? loanId : typeof p === 'string' && UUID.test(p) ? other(p) : p)),
})

/**
 * The next-batch query listing the loans after `last`: its id parameter (the loan the captured
 * batch started after) replaced, whichever loan that was. (It can be the captured loan itself,
 * one time in 101: `withIds` would then keep it, and the ceiling stopped after a partial batch.)
 */
const batchAfter = (statement: LoggedStatement, last: string): LoggedStatement => ({
  sql: statement.sql,
  parameters: statement.parameters.map((p) => (typeof p === 'string' && UUID.test(p) ? last : p)),
})

/** `accrual`'s statements for loan `loanId`, with fresh ids for the rows it inserts (the same one wherever the capture used the same). */
const accrualOf = (accrual: Accrual, loanId: string): LoggedStatement[] => {
  const fresh = new Map<string, string>()
  const freshFor = (id: string): string => fresh.get(id) ?? (fresh.set(id, randomUUID()), fresh.get(id) as string)
  return accrual.statements.map((s) => withIds(s, accrual.loanId, loanId, freshFor))
}

/** The ceiling: every active loan's accrual replayed on one connection, a batch query before every 100 loans. */
const ceiling = async (url: string, accrual: Accrual): Promise<{ readonly loans: number; readonly seconds: number }> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const started = performance.now()
    let loans = 0
    let after: string | null = null
    for (;;) {
      const last: string | null = after
      const batch: LoggedStatement = last === null ? accrual.firstBatch : batchAfter(accrual.nextBatch, last)
      const { rows }: { rows: { id: string }[] } = await client.query<{ id: string }>(batch.sql, [...batch.parameters])
      for (const { id } of rows) {
        for (const statement of accrualOf(accrual, id)) await client.query(statement.sql, [...statement.parameters])
        loans++
      }
      if (rows.length < BATCH) break
      after = rows[rows.length - 1]?.id ?? null
    }
    return { loans, seconds: (performance.now() - started) / 1000 }
  } finally {
    await client.end()
  }
}

/** Seeds database `name` (made with `create`) with a book of `loans` loans whose history ends yesterday, vacuumed; its active loans. */
const seededBook = async (create: (name: string) => Promise<void>, name: string, loans: number): Promise<number> => {
  await create(name)
  const database = await openDatabase({ url: urlOf(name), dataDir: '' })
  try {
    await migrateToLatest(database.db)
    await seedLargeBook(database, bookOf(loans), { historyEndsAt: new Date(Date.now() - DAY_MS), onProgress: seedingProgress(say, name) })
  } finally {
    await database.close()
  }
  return onDatabase(urlOf(name), async (c) => {
    await c.query('vacuum (analyze)')
    const { rows } = await c.query<{ n: string }>("select count(*)::text as n from loans where status = 'ACTIVE'")
    return Number(rows[0]?.n)
  })
}

/**
 * How the close's SQL may be grouped (issue 61, item 2): `loansPerTransaction` loans' statements
 * in one transaction (1: as the job does, each loan in its own), on `connections` connections
 * taking groups in turn.
 */
type Grouping = { readonly loansPerTransaction: number; readonly connections: number }

/**
 * A ceiling of the close grouped as `grouping` says: every active loan's captured statements
 * (without their own `begin` and `commit` when several loans share a transaction), the active
 * loans listed first with the job's batch query, a batch at a time. The same SQL work as
 * `ceiling` but for where the transactions end and how many connections share it.
 */
const groupedCeiling = async (url: string, accrual: Accrual, grouping: Grouping): Promise<Timed> => {
  const clients = await Promise.all(
    Array.from({ length: grouping.connections }, async () => {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      return client
    }),
  )
  try {
    const started = performance.now()
    const ids: string[] = []
    const [lister] = clients as [pg.Client]
    for (let after: string | null = null; ; ) {
      const last: string | null = after
      const batch: LoggedStatement = last === null ? accrual.firstBatch : batchAfter(accrual.nextBatch, last)
      const { rows }: { rows: { id: string }[] } = await lister.query<{ id: string }>(batch.sql, [...batch.parameters])
      ids.push(...rows.map((row) => row.id))
      if (rows.length < BATCH) break
      after = rows[rows.length - 1]?.id ?? null
    }
    const groups = Array.from({ length: Math.ceil(ids.length / grouping.loansPerTransaction) }, (_, i) => ids.slice(i * grouping.loansPerTransaction, (i + 1) * grouping.loansPerTransaction))
    const inner = (loanId: string) => accrualOf(accrual, loanId).slice(1, -1)
    let next = 0
    await Promise.all(
      clients.map(async (client) => {
        for (let group = groups[next++]; group !== undefined; group = groups[next++]) {
          await client.query('begin')
          for (const loanId of group) for (const statement of inner(loanId)) await client.query(statement.sql, [...statement.parameters])
          await client.query('commit')
        }
      }),
    )
    return { loans: ids.length, seconds: (performance.now() - started) / 1000 }
  } finally {
    await Promise.all(clients.map((client) => client.end()))
  }
}

/** The groupings the close's ceilings are measured at: the job's own, then a batch a transaction, then that on both cores. */
const GROUPINGS: readonly Grouping[] = [
  { loansPerTransaction: 1, connections: 1 },
  { loansPerTransaction: BATCH, connections: 1 },
  { loansPerTransaction: BATCH, connections: 2 },
]

/** The close's target (issue 61): a million loans in under 15 minutes, so this many loans a second. */
const CLOSE_TARGET_LOANS_PER_SECOND = 1_000_000 / (15 * 60)

/** A run of the job: the loans it examined after its first saved step, and the seconds they took. */
type Timed = { readonly loans: number; readonly seconds: number }

/**
 * Today's servicing run by an API process on `url` (`RUN_JOBS=true`: its scheduler starts the due
 * run at once), timed from its first saved step to its completion in `job_leases`.
 */
const job = async (url: string, logFile: string, secrets: ReturnType<typeof runSecrets>, receiverUrl: string, activeLoans: number): Promise<Timed> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const api = await startChild('api (servicing job)', 'apps/api/dist/main.js', { ...apiEnvironment(url, secrets, receiverUrl), RUN_JOBS: 'true', LOG_LEVEL: 'warn' }, logFile)
  try {
    let first: { readonly at: number; readonly loans: number } | undefined
    const deadline = Date.now() + 30 * 60_000
    while (Date.now() < deadline) {
      const { rows } = await client.query<{ progress: string | null; completed_run_key: string | null }>("select progress, completed_run_key from job_leases where job = 'servicing'")
      const row = rows[0]
      if (row?.completed_run_key != null) {
        if (first === undefined) throw new Error('the servicing run completed before its first step was seen')
        return { loans: activeLoans - first.loans, seconds: (performance.now() - first.at) / 1000 }
      }
      const examined = row?.progress == null ? 0 : (JSON.parse(row.progress) as { loansExamined: number }).loansExamined
      if (first === undefined && examined > 0) first = { at: performance.now(), loans: examined }
      await new Promise((r) => setTimeout(r, 20))
    }
    throw new Error('the servicing run did not complete within 30 minutes')
  } finally {
    await api.stop()
    await client.end()
  }
}

/** A size's figures: the median round of the job and of the ceiling, and the median of each round's ratio (the two measured minutes apart). */
type SizeResult = { readonly loans: number; readonly job: Timed; readonly ceiling: Timed; readonly share: number }

const rate = (t: Timed): number => t.loans / t.seconds

/** The round of the median rate. */
const medianRound = (rounds: readonly Timed[]): Timed => [...rounds].sort((a, b) => rate(a) - rate(b))[Math.floor((rounds.length - 1) / 2)] as Timed

/**
 * `--close` (issue 61, item 2): the nightly close's SQL on one book of `CLOSE_LOANS` loans, grouped
 * each way of `GROUPINGS`, on fresh copies of the book: how far the job's statements can go as
 * they are, as minutes per million loans against the 15-minute target.
 */
const closeCeilings = async (): Promise<boolean> => {
  const prefix = `lendgate_close_${process.pid}`
  const made: string[] = []
  const create = async (name: string, template?: string) => {
    made.push(name)
    await admin((c) => c.query(`create database ${name}${template === undefined ? '' : ` template ${template}`}`))
  }
  const measured: { readonly grouping: Grouping; readonly timed: Timed }[] = []
  try {
    const accrual = await captureAccrual(`${prefix}_capture`)
    say(`captured one loan's accrual: ${accrual.statements.length} statements in its transaction`)
    const base = `${prefix}_book`
    await seededBook(create, base, CLOSE_LOANS)
    for (const [i, grouping] of GROUPINGS.entries()) {
      const copy = `${base}_${i}`
      await create(copy, base)
      const timed = await groupedCeiling(urlOf(copy), accrual, grouping)
      say(`${grouping.loansPerTransaction} loan(s) a transaction on ${grouping.connections} connection(s): ${rate(timed).toFixed(0)} loans/s`)
      measured.push({ grouping, timed })
      await admin((client) => client.query(`drop database if exists ${copy} with (force)`))
    }
  } catch (error) {
    say(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
    return false
  } finally {
    for (const name of made.reverse()) await admin((c) => c.query(`drop database if exists ${name} with (force)`))
  }
  const minutesPerMillion = (t: Timed) => 1_000_000 / rate(t) / 60
  const report = [
    `Run on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC. Machine: ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB, Node ${process.version}.`,
    '',
    `Settings: ${quick ? 'quick run' : 'full run'}; one book of ${(measured[0]?.timed.loans ?? 0).toLocaleString('en-US')} active loans (two months old, never paid: interest, late fees and a snapshot each), each grouping on a fresh copy; the job's own statements, captured from the core.`,
    '',
    '| grouping of the same statements | loans/s | minutes per million loans | target: 15 minutes (1,111 loans/s) |',
    '|---|---:|---:|---|',
    ...measured.map(({ grouping, timed }) => `| ${grouping.loansPerTransaction === 1 ? 'each loan its own transaction (the job today)' : `${grouping.loansPerTransaction} loans a transaction`}, ${grouping.connections} connection${grouping.connections === 1 ? '' : 's'} | ${rate(timed).toFixed(0)} | ${minutesPerMillion(timed).toFixed(1)} | ${rate(timed) >= CLOSE_TARGET_LOANS_PER_SECOND ? 'within' : '**beyond**'} |`),
  ].join('\n')
  process.stdout.write(`${report}\n`)
  if (!quick) {
    writeInto(join(REPO_ROOT, 'docs', 'benchmarks.md'), report, 'bench-close')
    say('written into docs/benchmarks.md')
  }
  return true
}

const main = async (): Promise<boolean> => {
  const logDir = mkdtempSync(join(tmpdir(), 'lendgate-bench-servicing-'))
  const secrets = runSecrets()
  const receiver = await startReceiver(secrets.webhook)
  const prefix = `lendgate_servicing_${process.pid}`
  const made: string[] = []
  const create = async (name: string, template?: string) => {
    made.push(name)
    await admin((c) => c.query(`create database ${name}${template === undefined ? '' : ` template ${template}`}`))
  }
  let failed = false
  const results: SizeResult[] = []
  try {
    say(`logs in ${logDir}`)
    const accrual = await captureAccrual(`${prefix}_capture`)
    say(`captured one loan's accrual: ${accrual.statements.length} statements in its transaction`)
    for (const { loans, rounds: roundsOfSize } of SIZES) {
      const base = `${prefix}_${loans}`
      const active = await seededBook(create, base, loans)
      const rounds: { job: Timed; ceiling: Timed }[] = []
      for (let round = 1; round <= roundsOfSize; round++) {
        const [forJob, forCeiling] = [`${base}_job${round}`, `${base}_ceiling${round}`]
        await create(forJob, base)
        await create(forCeiling, base)
        // Which goes first alternates, so neither always runs on a warmer cache.
        const runJob = () => job(urlOf(forJob), join(logDir, `api-${loans}-${round}.log`), secrets, receiver.url, active)
        const runCeiling = () => ceiling(urlOf(forCeiling), accrual)
        let j: Timed
        let c: Timed
        if (round % 2 === 1) {
          j = await runJob()
          c = await runCeiling()
        } else {
          c = await runCeiling()
          j = await runJob()
        }
        if (c.loans !== active) throw new Error(`the ceiling accrued ${c.loans} loans of ${active}`)
        say(`${loans.toLocaleString('en-US')} loans, round ${round}: job ${rate(j).toFixed(0)} loans/s, ceiling ${rate(c).toFixed(0)} loans/s`)
        rounds.push({ job: j, ceiling: c })
        for (const name of [forJob, forCeiling]) await admin((client) => client.query(`drop database if exists ${name} with (force)`))
      }
      const shares = rounds.map((r) => rate(r.job) / rate(r.ceiling)).sort((a, b) => a - b)
      results.push({ loans: active, job: medianRound(rounds.map((r) => r.job)), ceiling: medianRound(rounds.map((r) => r.ceiling)), share: shares[Math.floor((shares.length - 1) / 2)] as number })
    }
  } catch (error) {
    failed = true
    say(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
  } finally {
    await receiver.close()
    for (const name of made.reverse()) await admin((c) => c.query(`drop database if exists ${name} with (force)`))
  }
  if (failed) return false
  const [small, large] = results as [SizeResult, SizeResult]
  const perLoan = (t: Timed) => t.seconds / t.loans
  const report = [
    `Run on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC. Machine: ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB, Node ${process.version}.`,
    '',
    `Settings: ${quick ? 'quick run' : 'full run'}; ${SIZES.map((z) => `${z.rounds} round(s) of ${z.loans.toLocaleString('en-US')} loans`).join(', ')}, each round on fresh copies of the book, figures the median round; ${pinning === undefined ? 'no CPU pinning' : `the API pinned to CPU ${pinning.server}`}.`,
    '',
    '| loans | job loans/s | ceiling loans/s | job / ceiling (median of the rounds) | goal |',
    '|---:|---:|---:|---:|---|',
    ...results.map((r) => `| ${r.loans.toLocaleString('en-US')} | ${rate(r.job).toFixed(0)} | ${rate(r.ceiling).toFixed(0)} | ${(r.share * 100).toFixed(0)}% | ≥ ${GOAL * 100}% ${r.share >= GOAL ? 'met' : '**not met**'} |`),
    '',
    `Growth: the job's time per loan at ${large.loans.toLocaleString('en-US')} loans is ${(perLoan(large.job) / perLoan(small.job)).toFixed(2)}× its time per loan at ${small.loans.toLocaleString('en-US')} (1.00× is linear); the ceiling's, ${(perLoan(large.ceiling) / perLoan(small.ceiling)).toFixed(2)}×.`,
  ].join('\n')
  process.stdout.write(`${report}\n`)
  if (!quick) {
    writeInto(join(REPO_ROOT, 'docs', 'benchmarks.md'), report, 'bench-servicing')
    say('written into docs/benchmarks.md')
  }
  return true
}

process.exit((await (closeOnly ? closeCeilings() : main())) ? 0 : 1)
