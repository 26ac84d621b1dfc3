/**
 * `pnpm bench:servicing [--quick]` (issue 40) and `pnpm bench:servicing --close [--loans N,…]`
 * (issue 61, item 2): the daily servicing job (the nightly close) against a plain script doing
 * the same SQL work on the same database (the database's ceiling for it), in one run.
 *
 * For each size a book is seeded (`seedLargeBook`) whose history ends yesterday, so that every
 * loan has one day of interest to post today. Each round works on a copy of it
 * (`create database … template …`):
 *
 * - **The job**: the API process started with `RUN_JOBS=true` runs today's servicing run at start
 *   (the scheduler's leased, stepped job: 200 loans a step, in two transactions of 100 loans side
 *   by side, each locking its loans, reading them a statement per kind and writing every posting
 *   in one statement). Its throughput is timed from its first saved step to its completion, read
 *   from `job_leases`, so the process's start is not counted.
 * - **The ceiling**: the statements of one such transaction, captured from the core itself
 *   (`captureClose`), replayed for every full group of 100 active loans of the copy with `pg`, two
 *   groups at a time on two connections, as the job works: the same SQL text, in the same
 *   transactions, with the group's loan ids in place of the captured ones and fresh ids for new
 *   rows, and the step's query listing the loans before each step. It runs no domain code, so its
 *   rate is what the database allows for this work.
 *
 * `bench:servicing` measures 10,000 loans (three rounds) and 100,000 (one), and how the time per
 * loan grows between them; `--close` measures the sizes of `--loans` (100,000 by default, 3,000
 * with `--quick`) as minutes per million loans against the 15-minute target.
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
/** `--close` (issue 61, item 2): the close per million loans, on books of the sizes `--loans` lists. */
const closeOnly = flags.close === true
const CLOSE_LOANS = (flags.loans ?? (quick ? '3000' : '100000')).split(',').map(Number)

/** The loans of each measured book (the issue's two sizes, or two small ones with `--quick`) and its rounds. */
const SIZES = closeOnly
  ? CLOSE_LOANS.map((loans) => ({ loans, rounds: 1 }))
  : quick
    ? [{ loans: 300, rounds: 1 }, { loans: 3_000, rounds: 1 }]
    : [{ loans: 10_000, rounds: 3 }, { loans: 100_000, rounds: 1 }]
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
 * The close's shape, as the job's (packages/core/src/use-cases/servicing/accrue-loans.ts): the
 * loans of one transaction, the transactions run side by side, and so the loans of a step.
 * `captureClose` checks the captured statements have it.
 */
const GROUP = 100
const GROUPS_AT_ONCE = 2
const BATCH = GROUP * GROUPS_AT_ONCE
/** The loans of the book the statements are captured on: more than one step, so both step queries run. */
const CAPTURE_LOANS = BATCH + 1

/**
 * One transaction of the close as the core runs it: its statements and the loans it closed (in
 * the order locked), and the query that lists a step's active loans, for the first step and for
 * the next ones.
 */
type Close = { readonly loanIds: readonly string[]; readonly statements: readonly LoggedStatement[]; readonly firstBatch: LoggedStatement; readonly nextBatch: LoggedStatement }

/** The loans a statement of the close names as one array parameter (its `id = any($1)`), if it does. */
const loansNamed = (statement: LoggedStatement): readonly string[] | undefined => statement.parameters.find((p): p is string[] => Array.isArray(p))

/**
 * The statements of one transaction of the close, captured from the core: a book of
 * `CAPTURE_LOANS` loans whose history ended yesterday, accrued to today in this process with
 * Kysely's query log on. A transaction (from its `begin` to its `commit`) that locked a whole
 * group and wrote ledger entries is the one replayed.
 */
const captureClose = async (name: string): Promise<Close> => {
  await admin((c) => c.query(`create database ${name}`))
  const logged: LoggedStatement[] = []
  // One connection: the step's transactions take turns, so each one's statements are together in the log.
  const database = await openDatabase({ url: urlOf(name), dataDir: '', poolSize: 1, log: (event) => void (event.level === 'query' && logged.push(event.query)) })
  try {
    await migrateToLatest(database.db)
    await seedLargeBook(database, { ...bookOf(0), subjectLoans: CAPTURE_LOANS }, { historyEndsAt: new Date(Date.now() - DAY_MS) })
    logged.length = 0
    const deps = postgresCoreDeps(database, { sender: { send: () => TE.right(undefined) }, webhookSecretKey: new Uint8Array(32) })
    const run = await runInterestAccrual(deps)({})()
    if (E.isLeft(run) || run.right.accruals === 0) throw new Error(`capturing the close: ${JSON.stringify(run)}`)
    const batches = logged.filter((s) => /^select "id" from "loans"/.test(s.sql))
    const [firstBatch, nextBatch] = [batches.find((s) => !/"id" >/.test(s.sql)), batches.find((s) => /"id" >/.test(s.sql))]
    const begins = logged.flatMap((s, i) => (/^begin/i.test(s.sql) ? [i] : []))
    const transactions = begins.map((start) => logged.slice(start, logged.findIndex((s, i) => i > start && /^commit/i.test(s.sql)) + 1))
    const statements = transactions.find((tx) => loansNamed(tx[1] ?? { sql: '', parameters: [] })?.length === GROUP && tx.some((s) => /insert into "loan_transactions"/.test(s.sql)))
    if (firstBatch === undefined || nextBatch === undefined || statements === undefined) throw new Error(`capturing the close: no transaction of ${GROUP} loans, or no step query, in the query log`)
    if (!firstBatch.parameters.includes(BATCH)) throw new Error(`capturing the close: the step lists ${JSON.stringify(firstBatch.parameters)}, not ${BATCH} loans`)
    return { loanIds: loansNamed(statements[1]!)!, statements, firstBatch, nextBatch }
  } finally {
    await database.close()
    await admin((c) => c.query(`drop database if exists ${name} with (force)`))
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * The step query listing the loans after `last`: its id parameter (the loan the captured step
 * started after) replaced, whichever loan that was.
 */
const batchAfter = (statement: LoggedStatement, last: string): LoggedStatement => ({
  sql: statement.sql,
  parameters: statement.parameters.map((p) => (typeof p === 'string' && UUID.test(p) ? last : p)),
})

/**
 * `close`'s statements for the loans `loanIds` (as many as it closed): each captured loan's id
 * replaced by the loan's in the same place, in arrays too, and every other UUID (the rows it
 * inserts) by a fresh one, the same wherever the capture used the same.
 */
const closeOf = (close: Close, loanIds: readonly string[]): LoggedStatement[] => {
  const ids = new Map<string, string>(close.loanIds.map((id, k) => [id, loanIds[k] as string]))
  const replaced = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(replaced)
    if (typeof value !== 'string' || !UUID.test(value)) return value
    return ids.get(value) ?? (ids.set(value, randomUUID()), ids.get(value))
  }
  return close.statements.map((s) => ({ sql: s.sql, parameters: s.parameters.map(replaced) }))
}

/**
 * The ceiling: the close's SQL replayed for every active loan of the book, as the job runs it: a
 * step query, then the step's groups of `GROUP` loans side by side, each its captured
 * transaction on a connection of its own. A last group short of `GROUP` is left out (its
 * statements name `GROUP` loans): the loans answered are those replayed.
 */
const ceiling = async (url: string, close: Close): Promise<Timed> => {
  const clients = await Promise.all(
    Array.from({ length: GROUPS_AT_ONCE }, async () => {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      return client
    }),
  )
  try {
    const [lister] = clients as [pg.Client]
    const started = performance.now()
    let loans = 0
    for (let after: string | null = null; ; ) {
      const last: string | null = after
      const batch: LoggedStatement = last === null ? close.firstBatch : batchAfter(close.nextBatch, last)
      const { rows }: { rows: { id: string }[] } = await lister.query<{ id: string }>(batch.sql, [...batch.parameters])
      const groups = Array.from({ length: Math.floor(rows.length / GROUP) }, (_, k) => rows.slice(k * GROUP, (k + 1) * GROUP).map((row) => row.id))
      await Promise.all(
        groups.map(async (group, k) => {
          const client = clients[k % GROUPS_AT_ONCE] as pg.Client
          for (const statement of closeOf(close, group)) await client.query(statement.sql, [...statement.parameters])
        }),
      )
      loans += groups.length * GROUP
      if (rows.length < BATCH) break
      after = rows[rows.length - 1]?.id ?? null
    }
    return { loans, seconds: (performance.now() - started) / 1000 }
  } finally {
    await Promise.all(clients.map((client) => client.end()))
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
    // Half an hour, or 10 ms a loan for the largest books.
    const deadline = Date.now() + Math.max(30 * 60_000, activeLoans * 10)
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
    throw new Error(`the servicing run did not complete within ${Math.max(30, activeLoans / 6_000).toFixed(0)} minutes`)
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
    const close = await captureClose(`${prefix}_capture`)
    say(`captured one transaction of the close: ${close.statements.length} statements for ${close.loanIds.length} loans`)
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
        const runCeiling = () => ceiling(urlOf(forCeiling), close)
        let j: Timed
        let c: Timed
        if (round % 2 === 1) {
          j = await runJob()
          c = await runCeiling()
        } else {
          c = await runCeiling()
          j = await runJob()
        }
        if (c.loans !== active - (active % GROUP)) throw new Error(`the ceiling closed ${c.loans} loans of ${active}`)
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
  const [small, large] = [results[0] as SizeResult, results[results.length - 1] as SizeResult]
  const perLoan = (t: Timed) => t.seconds / t.loans
  const minutesPerMillion = (t: Timed) => 1_000_000 / rate(t) / 60
  const report = [
    `Run on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC. Machine: ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB, Node ${process.version}.`,
    '',
    `Settings: ${quick ? 'quick run' : 'full run'}; ${SIZES.map((z) => `${z.rounds} round(s) of ${z.loans.toLocaleString('en-US')} loans`).join(', ')}, each round on fresh copies of the book, figures the median round; ${pinning === undefined ? 'no CPU pinning' : `the API pinned to CPU ${pinning.server}`}.`,
    '',
    '| loans | job loans/s | job minutes per million loans (target 15) | ceiling loans/s | job / ceiling (median of the rounds) | goal |',
    '|---:|---:|---:|---:|---:|---|',
    ...results.map(
      (r) =>
        `| ${r.loans.toLocaleString('en-US')} | ${rate(r.job).toFixed(0)} | ${minutesPerMillion(r.job).toFixed(1)} ${rate(r.job) >= CLOSE_TARGET_LOANS_PER_SECOND ? 'within' : '**beyond**'} | ${rate(r.ceiling).toFixed(0)} | ${(r.share * 100).toFixed(0)}% | ≥ ${GOAL * 100}% ${r.share >= GOAL ? 'met' : '**not met**'} |`,
    ),
    ...(results.length < 2
      ? []
      : ['', `Growth: the job's time per loan at ${large.loans.toLocaleString('en-US')} loans is ${(perLoan(large.job) / perLoan(small.job)).toFixed(2)}× its time per loan at ${small.loans.toLocaleString('en-US')} (1.00× is linear); the ceiling's, ${(perLoan(large.ceiling) / perLoan(small.ceiling)).toFixed(2)}×.`]),
  ].join('\n')
  process.stdout.write(`${report}\n`)
  if (!quick) {
    writeInto(join(REPO_ROOT, 'docs', 'benchmarks.md'), report, closeOnly ? 'bench-close' : 'bench-servicing')
    say('written into docs/benchmarks.md')
  }
  return true
}

process.exit((await main()) ? 0 : 1)
