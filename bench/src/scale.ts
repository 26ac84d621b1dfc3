/**
 * `pnpm bench --scale [--quick]` (issue 40): the partner reads on a large book against the same
 * reads on a fresh database, side by side in one run.
 *
 * Two databases on the benchmark's server: **fresh**, holding only the book's subject (a partner,
 * its borrower with 2,000 loans, one of them with a 100,000-transaction ledger: the records every
 * case reads), and **large**, a copy of it with the rest of the book copied in beside (a million
 * onboarding sessions, 100,000 borrowers with keys and loans, ten million ledger transactions,
 * a million payments; `seedLargeBook`). An API serves each; every partner GET route of the API's
 * own OpenAPI document is loaded on both in turn (lists also at a deep page reached by cursor),
 * and each case's p99 on the large book is compared with its p99 on the fresh one.
 *
 * Then the large book's API memory (issue 61), with V8's defaults: its resident set, sampled
 * every 100 ms, under a sustained mixed load (every case in turn, request by request, at the
 * cases' connections); and, after it, its heap in use after a full collection, read from a heap
 * snapshot (V8 collects before it writes one; `--heapsnapshot-signal`, which only installs a
 * signal handler, lets the bench ask for one).
 *
 * `--memory` measures the large book's memory alone (no per-case rounds) and writes nothing.
 *
 * A full run keeps both databases (`lendgate_scale_fresh`, `lendgate_scale`), so seeding, which
 * takes a while, is resumed where it stopped and done once; `--quick` seeds a small book into
 * databases of its own and drops them. Nothing here fails on time: only a wrong answer fails.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { BOOK_BORROWER_CLIENT, BOOK_PARTNER_CLIENT, bookRecords, seedLargeBook, type BookSizes, type BookSubject } from '@lendgate/adapters/testing'
import { migrateToLatest, openDatabase } from '@lendgate/adapters'
import pg from 'pg'
import { apiAt, bearer, type Api } from './client.js'
import { drive, medianOf, type Drive, type Load, type Measured } from './load.js'
import { apiEnvironment, pinning, REPO_ROOT, startChild, type Child } from './processes.js'
import { startReceiver } from './receiver.js'
import { writeInto } from './report.js'
import { databaseUrl, mintKey, onDatabase, runSecrets, seedingProgress } from './seed.js'

/** The book of a full run (issue 40's sizes) and of `--quick`. */
const FULL: BookSizes = {
  historyMonths: 3,
  paymentEveryDays: 9,
  longLedger: 100_000,
  subjectLoans: 2_000,
  parties: 99_999,
  loans: 98_000,
  bigParties: 5,
  loansPerBigParty: 2_000,
  openSessions: 900_000,
}
const QUICK: BookSizes = { historyMonths: 1, paymentEveryDays: 9, longLedger: 300, subjectLoans: 100, parties: 2_000, loans: 2_000, bigParties: 2, loansPerBigParty: 300, openSessions: 10_000 }

/** The subject alone: what the fresh database holds. */
const subjectOnly = (sizes: BookSizes): BookSizes => ({ ...sizes, parties: 0, loans: 0, bigParties: 0, openSessions: 0 })

/** The p99 on the large book within this many times the fresh database's, route by route. */
const P99_GOAL = 1.5
/** The large book's API: its heap in use after a full collection, and its resident set under the sustained mixed load, at most these (bytes). */
const HEAP_GOAL = 64 * 1024 * 1024
const RSS_GOAL = 256 * 1024 * 1024
const MB = 1024 * 1024

/**
 * The heap `child` holds after a full collection: the live objects of a heap snapshot it writes
 * into `dir` on SIGUSR2 (it runs with `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=dir`), their
 * self sizes added up. Waits for the snapshot to be whole (it parses).
 */
const heapAfterCollection = async (child: Child, dir: string): Promise<number> => {
  const before = new Set(readdirSync(dir))
  process.kill(child.pid, 'SIGUSR2')
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 500))) {
    const file = readdirSync(dir).find((name) => name.endsWith('.heapsnapshot') && !before.has(name))
    if (file === undefined) continue
    let snapshot: { snapshot: { meta: { node_fields: string[] } }; nodes: number[] }
    try {
      snapshot = JSON.parse(readFileSync(join(dir, file), 'utf8'))
    } catch {
      continue
    }
    const fields = snapshot.snapshot.meta.node_fields
    const selfSize = fields.indexOf('self_size')
    let total = 0
    for (let i = selfSize; i < snapshot.nodes.length; i += fields.length) total += snapshot.nodes[i] as number
    rmSync(join(dir, file))
    return total
  }
  throw new Error(`${child.name} wrote no heap snapshot into ${dir} within 2 minutes`)
}

const say = (message: string) => process.stderr.write(`bench --scale: ${message}\n`)

/** Seeds `url` with `sizes` (resuming), then vacuums it so index-only scans and the planner's figures are current. */
const seedInto = async (url: string, name: string, sizes: BookSizes): Promise<BookSubject> => {
  const database = await openDatabase({ url, dataDir: '' })
  try {
    await migrateToLatest(database.db)
    const subject = await seedLargeBook(database, sizes, { onProgress: seedingProgress(say, name) })
    return subject
  } finally {
    await database.close()
  }
}

/**
 * The records the cases name, by path parameter (`addressId` as `sessionAddressId` and
 * `partyAddressId`): the subject's, and its long-ledger loan's. The same in both databases.
 */
const routeIds = async (url: string, subject: BookSubject): Promise<Readonly<Record<string, string>>> => {
  const database = await openDatabase({ url, dataDir: '' })
  try {
    const records = await bookRecords(database, subject)
    const loanId = subject.longLedgerLoanId
    return {
      sessionId: subject.approvedSessionId,
      sessionAddressId: await records.sessionAddressId(subject.approvedSessionId),
      eventId: records.eventId,
      partyId: subject.partyId,
      partyAddressId: records.partyAddressId,
      applicationId: records.draftApplicationId,
      loanId,
      paymentMethodId: await records.paymentMethodId(loanId),
      paymentId: await records.paymentId(loanId),
    }
  } finally {
    await database.close()
  }
}

const exists = async (admin: pg.Client, name: string): Promise<boolean> => (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1

/**
 * The two databases: the fresh one seeded with the subject, then (once) the large one created
 * from it and seeded with the rest. Both are resumed where an earlier run stopped.
 */
const prepare = async (baseUrl: string, names: { readonly fresh: string; readonly large: string }, sizes: BookSizes) => {
  const urlOf = (name: string) => databaseUrl(baseUrl, name)
  return onDatabase(baseUrl, async (admin) => {
    if (!(await exists(admin, names.fresh))) await admin.query(`create database ${names.fresh}`)
    const subject = await seedInto(urlOf(names.fresh), names.fresh, subjectOnly(sizes))
    if (!(await exists(admin, names.large))) await admin.query(`create database ${names.large} template ${names.fresh}`)
    await seedInto(urlOf(names.large), names.large, sizes)
    for (const name of [names.fresh, names.large]) {
      say(`${name}: vacuum (analyze)`)
      await onDatabase(urlOf(name), (client) => client.query('vacuum (analyze)'))
    }
    return { subject, fresh: urlOf(names.fresh), large: urlOf(names.large) }
  })
}

type OpenApiDocument = { readonly paths: Record<string, Record<string, { readonly operationId: string; readonly security?: unknown[]; readonly parameters?: readonly { readonly name: string; readonly in: string }[] }>> }

/** A partner GET route, from the API's partner OpenAPI document: its path under `/public/v1`, the document's server. */
type Route = { readonly operationId: string; readonly path: string; readonly list: boolean }

const partnerGets = async (api: Api): Promise<Route[]> => {
  const document = (await api.call('GET', '/public/openapi.json', { expect: 200 })) as OpenApiDocument
  return Object.entries(document.paths).flatMap(([path, operations]) => {
    const get = operations['get']
    // The books are live: test helpers take test keys only (docs/testing.md).
    if (get === undefined || (get.security !== undefined && get.security.length === 0) || path.startsWith('/test-helpers/')) return []
    return [{ operationId: get.operationId, path: `/public/v1${path}`, list: (get.parameters ?? []).some((p) => p.in === 'query' && p.name === 'cursor') }]
  })
}

/** One case: a route on the subject's records, at its first page or at a deep one. */
type Case = { readonly name: string; readonly path: (side: Side) => string; readonly key: 'partner' | 'borrower' }

/** One API and what it was set up with. */
type Side = {
  readonly label: 'fresh' | 'large'
  readonly child: Child
  readonly keys: { readonly partner: string; readonly borrower: string }
  readonly deep: Map<string, string>
  /** A webhook endpoint of the borrower's client, made through this side's API (its client is minted there). */
  readonly endpointId: string
}

/**
 * The cursor of the page that starts about half-way down a list (but at most `maxPages` pages of
 * 100 in), walked through the API as a partner would, and how many items come before that page;
 * undefined when the list fits in one page of 100.
 */
const deepCursor = async (api: Api, path: string, key: string, maxPages: number): Promise<{ readonly cursor: string; readonly skipped: number } | undefined> => {
  // after[i]: the cursor of the page that follows the first (i + 1) × 100 items.
  const after: string[] = []
  for (let cursor: string | null = null; after.length < 2 * maxPages; ) {
    const page = (await api.call('GET', `${path}?limit=100${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`, { headers: bearer(key), expect: 200 })) as { next_cursor: string | null }
    if (page.next_cursor === null) break
    cursor = page.next_cursor
    after.push(cursor)
  }
  const index = Math.min(maxPages, Math.ceil(after.length / 2)) - 1
  const cursor = after[index]
  return cursor === undefined ? undefined : { cursor, skipped: (index + 1) * 100 }
}

export const runScale = async (quick: boolean, memoryOnly = false): Promise<boolean> => {
  const sizes = quick ? QUICK : FULL
  const baseUrl = process.env['BENCH_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test'
  const suffix = quick ? `_quick_${process.pid}` : ''
  const names = { fresh: `lendgate_scale_fresh${suffix}`, large: `lendgate_scale${suffix}` }
  const how: Drive = quick ? { connections: 10, seconds: 1, warmupSeconds: 0 } : { connections: 10, seconds: 5, warmupSeconds: 1 }
  const sustained: Drive = { ...how, seconds: quick ? 3 : 60, warmupSeconds: 0 }
  const rounds = quick ? 1 : 3
  const secrets = runSecrets()
  const logDir = mkdtempSync(join(tmpdir(), 'lendgate-bench-scale-'))
  say(`logs in ${logDir}`)
  const receiver = await startReceiver(secrets.webhook)
  const children: Child[] = []
  let failed = false
  try {
    say(`seeding ${names.fresh} and ${names.large} (resumable: run again to go on)`)
    const { subject, fresh, large } = await prepare(baseUrl, names, sizes)
    const ids = await routeIds(fresh, subject)
    const fill = (path: string): string =>
      path.replace(/\{([A-Za-z]+)\}/g, (_, name: string) => {
        const id = name === 'addressId' ? (path.startsWith('/public/v1/onboarding-sessions/') ? ids.sessionAddressId : ids.partyAddressId) : ids[name]
        if (id === undefined) throw new Error(`the scale benchmark knows no record for {${name}} of ${path}`)
        return id
      })

    const environment = (url: string) => ({ ...apiEnvironment(url, secrets, receiver.url), RUN_JOBS: 'false', LOG_LEVEL: 'warn' })
    const sides: Side[] = []
    for (const [label, url] of [['fresh', fresh], ['large', large]] as const) {
      const child = await startChild(`api (${label})`, 'apps/api/dist/main.js', environment(url), join(logDir, `api-${label}.log`), [
        '--heapsnapshot-signal=SIGUSR2',
        `--diagnostic-dir=${logDir}`,
      ])
      children.push(child)
      const api = apiAt(child.url)
      const borrower = await mintKey(api, secrets, subject.partyId, BOOK_BORROWER_CLIENT)
      // An IP address literal: a public host without a DNS lookup.
      const endpoint = (await api.call('POST', '/public/webhook-endpoints', {
        headers: bearer(borrower),
        json: { url: 'https://93.184.216.34/hooks/scale', enabled_events: ['payment.succeeded'] },
        expect: 201,
      })) as { webhook_endpoint_id: string }
      sides.push({
        label,
        child,
        keys: { partner: await mintKey(api, secrets, subject.partnerPartyId, BOOK_PARTNER_CLIENT), borrower },
        deep: new Map(),
        endpointId: endpoint.webhook_endpoint_id,
      })
    }
    const routes = await partnerGets(apiAt(sides[0]!.child.url))
    const keyOf = (path: string): 'partner' | 'borrower' => (path.startsWith('/public/v1/onboarding-sessions/') || path.startsWith('/public/v1/partner/') ? 'partner' : 'borrower')
    const cases: Case[] = []
    for (const route of routes) {
      const key = keyOf(route.path)
      if (route.path.includes('{endpointId}')) {
        // Each side's own endpoint: its client was minted on that side.
        cases.push({ name: route.operationId, path: (side) => fill(route.path.replace('{endpointId}', side.endpointId)), key })
        continue
      }
      const path = fill(route.path)
      cases.push({ name: route.operationId, path: () => path, key })
      if (!route.list) continue
      let skipped = 0
      for (const side of sides) {
        const deep = await deepCursor(apiAt(side.child.url), path, side.keys[key], quick ? 20 : 500)
        if (deep !== undefined) {
          side.deep.set(route.operationId, `${path}?cursor=${encodeURIComponent(deep.cursor)}`)
          skipped = deep.skipped
        }
      }
      if (sides.every((side) => side.deep.has(route.operationId))) {
        cases.push({ name: `${route.operationId}, after ${skipped.toLocaleString('en-US')} items`, path: (side) => side.deep.get(route.operationId) ?? path, key })
      }
    }

    let peakRss = 0
    const largeSide = sides[1]!
    const measured = new Map<string, { fresh: Measured[]; large: Measured[] }>(cases.map((c) => [c.name, { fresh: [], large: [] }]))
    for (let round = 1; round <= (memoryOnly ? 0 : rounds); round++) {
      for (const [index, c] of cases.entries()) {
        // Which database goes first alternates, so neither side always follows the other's load.
        const order = (round + index) % 2 === 0 ? sides : [...sides].reverse()
        for (const side of order) {
          const load: Load = { url: `${side.child.url}${c.path(side)}`, headers: bearer(side.keys[c.key]), expect: 200 }
          const sampler = side.label === 'large' ? setInterval(() => (peakRss = Math.max(peakRss, side.child.rss())), 100) : undefined
          const m = await drive(load, how)
          if (sampler !== undefined) clearInterval(sampler)
          if (Object.keys(m.unexpected).length > 0) {
            failed = true
            say(`${c.name} on ${side.label}: unexpected answers ${JSON.stringify(m.unexpected)}`)
          }
          measured.get(c.name)?.[side.label].push(m)
          // Each round's own figures, so the spread behind a median can be read from the output.
          if (rounds > 1) say(`${c.name} on ${side.label}, round ${round}: ${m.rps.toFixed(0)} req/s, p50 ${m.p50.toFixed(2)} ms, p99 ${m.p99.toFixed(2)} ms`)
        }
        say(`round ${round} of ${rounds}: ${c.name}; the large book's API at ${(largeSide.child.rss() / 1024 / 1024).toFixed(0)} MB resident`)
      }
    }

    // The large book's API under every case at once, then its heap once the load is over.
    let turn = 0
    const mixed: Load = {
      url: largeSide.child.url,
      expect: 200,
      perRequestTarget: () => {
        const c = cases[turn++ % cases.length]!
        return { path: c.path(largeSide), headers: bearer(largeSide.keys[c.key]) }
      },
    }
    let sustainedRss = 0
    const sampler = setInterval(() => (sustainedRss = Math.max(sustainedRss, largeSide.child.rss())), 100)
    const mixedLoad = await drive(mixed, sustained).finally(() => clearInterval(sampler))
    if (Object.keys(mixedLoad.unexpected).length > 0) {
      failed = true
      say(`the mixed load: unexpected answers ${JSON.stringify(mixedLoad.unexpected)}`)
    }
    const heap = await heapAfterCollection(largeSide.child, logDir)
    say(`mixed load ${mixedLoad.rps.toFixed(0)} req/s, peak ${(sustainedRss / MB).toFixed(0)} MB resident; heap after a full collection ${(heap / MB).toFixed(1)} MB`)
    const memoryLine =
      `The large book's API, V8's defaults: ` +
      (memoryOnly ? '' : `peak resident memory during the cases' loads ${(peakRss / MB).toFixed(0)} MB; `) +
      `under ${sustained.seconds} s of mixed load (every case in turn, ${sustained.connections} connections, ${mixedLoad.rps.toFixed(0)} req/s) ${(sustainedRss / MB).toFixed(0)} MB at its peak ` +
      `(goal ≤ ${RSS_GOAL / MB} MB: ${sustainedRss <= RSS_GOAL ? 'met' : '**not met**'}); heap in use after a full collection, after that load, ${(heap / MB).toFixed(1)} MB ` +
      `(goal ≤ ${HEAP_GOAL / MB} MB: ${heap <= HEAP_GOAL ? 'met' : '**not met**'}).`

    if (memoryOnly) {
      process.stdout.write(`${memoryLine}\n`)
      return !failed
    }
    const table = cases.map((c) => {
      const m = measured.get(c.name)!
      const f = medianOf(m.fresh)
      const l = medianOf(m.large)
      return { name: c.name, fresh: f, large: l, ratio: l.p99 / f.p99 }
    })
    const { rows: version } = await onDatabase(baseUrl, (client) => client.query<{ server_version: string }>('show server_version'))
    const report = [
      `Run on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC. Machine: ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB, Node ${process.version}, PostgreSQL ${version[0]?.server_version ?? '?'}.`,
      '',
      `Settings: ${quick ? 'quick run, a small book' : 'full run'}; autocannon with ${how.connections} connections, ${how.warmupSeconds} s warm-up + ${how.seconds} s per case and side, ${rounds} round(s), each figure the median of its rounds; ` +
        `${pinning === undefined ? 'no CPU pinning' : `both APIs pinned to CPU ${pinning.server}, the load generator to CPU ${pinning.load}`}. ` +
        `Book: ${JSON.stringify(sizes)}.`,
      '',
      `| case | fresh req/s | fresh p50 ms | fresh p99 ms | large req/s | large p50 ms | large p99 ms | p99 large / fresh | within ${P99_GOAL}× |`,
      '|---|---:|---:|---:|---:|---:|---:|---:|---|',
      ...table.map(
        (r) =>
          `| ${r.name} | ${r.fresh.rps.toFixed(0)} | ${r.fresh.p50.toFixed(2)} | ${r.fresh.p99.toFixed(2)} | ${r.large.rps.toFixed(0)} | ${r.large.p50.toFixed(2)} | ${r.large.p99.toFixed(2)} | ${r.ratio.toFixed(2)}× | ${r.ratio <= P99_GOAL ? 'yes' : '**no**'} |`,
      ),
      '',
      memoryLine,
    ].join('\n')
    process.stdout.write(`${report}\n`)
    if (!quick) {
      writeInto(join(REPO_ROOT, 'docs', 'benchmarks.md'), report, 'bench-scale')
      say('written into docs/benchmarks.md')
    }
  } catch (error) {
    failed = true
    say(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
  } finally {
    await Promise.all(children.map((c) => c.stop()))
    await receiver.close()
    if (quick) {
      await onDatabase(baseUrl, async (admin) => {
        for (const name of [names.large, names.fresh]) await admin.query(`drop database if exists ${name} with (force)`)
      })
    }
  }
  return !failed
}
