import { sql, type Kysely, type RawBuilder } from 'kysely'
import type { OpenDatabase } from '../postgres/database.js'
import type { Database } from '../postgres/schema.js'
import { type BookSizes, type BookSubject, type BookProgress, type BookOptions, BOOK_BORROWER_CLIENT, countOf, makeTemplates } from './large-book-templates.js'

export { BOOK_BORROWER_CLIENT, BOOK_PARTNER_CLIENT, type BookOptions, type BookProgress, type BookSizes, type BookSubject } from './large-book-templates.js'

/**
 * A lending book of any size, for the benchmarks at scale (issue 40) and the query-plan test.
 *
 * The **templates** are made by the core's own use cases over the database, with a clock that
 * starts `historyMonths` ago and moves forward a day at a time: a partner's sessions, a borrower
 * onboarded and approved, a seasoned loan with its whole servicing history (the daily accrual run
 * every day, a payment every few months, late fees between them) and a loan whose ledger is long
 * (one-cent payments). Everything else is **copied in SQL** from those rows, each copy with ids of
 * its own (`md5` of the copy's number and the template row's id, so references between copied
 * rows are found without a join), so a million rows take seconds instead of a million journeys.
 *
 * Copies are made in chunks, each in one transaction that also records it in
 * `large_book_progress`: a seeding that stops part-way resumes where it stopped.
 */

type Sql = RawBuilder<unknown>

/**
 * The id of copy `copy` of the row whose id is `of`, under `tag`: the UUID of their md5, so a copied
 * row's references to other copied rows are computed, not looked up; null where `of` is null.
 */
const copyId = (tag: string, copy: Sql, of: Sql | string): Sql => sql`md5(${tag} || ':' || ${copy} || ':' || ${of})::uuid`

/** The copy's number (`c`) or another column of the copies (`party_id`, …) inside `copyRows`. */
const k = (column: string): Sql => sql.ref(`n.${column}`)
/** A column of the template row inside `copyRows`. */
const x = (column: string): Sql => sql.raw(`(n.t).${column}`)

/**
 * Inserts into `table` a copy of each of its rows where `where` holds (over `t`), once for every
 * row of `copies` (SQL giving `c`, the copy's number, and any other column `changes` uses through
 * `k`), with the columns of `changes` replaced; the rest are the template's. Rows are numbered
 * (`n.n`) in the order of the copy and the template's `seq`, for tables with an identity column.
 */
const copyRows = (table: string, where: Sql, copies: Sql, changes: Readonly<Record<string, Sql>>, ordered = false): Sql =>
  sql`with x as materialized (select t from ${sql.table(table)} t where ${where}),
      k as materialized (${copies}),
      n as (select k.*, x.t, row_number() over (order by k.c${ordered ? sql`, (x.t).seq` : sql``}) as n from k cross join x)
    insert into ${sql.table(table)} ${ordered ? sql`overriding system value` : sql``}
    select r.* from n, lateral jsonb_populate_record(n.t, jsonb_build_object(${sql.join(Object.entries(changes).flatMap(([column, value]) => [sql.lit(column), value]))})) r`

/** Reserves `n` values of `table`'s identity column `seq`; returns the value before the first. */
const reserveSeq = async (db: Kysely<Database>, table: string, n: number): Promise<number> => {
  const { rows } = await sql<{ base: string }>`
    select (setval(s.name, nextval(s.name) + ${n}::int8 - 1) - ${n}::int8)::text as base from (select pg_get_serial_sequence(${table}, 'seq') as name) s`.execute(db)
  return Number(rows[0]?.base)
}

/**
 * Copies the seasoned loan `template` once for every row of `copies` (SQL giving `c`, the copy's
 * number, `party_id` and `client_id`, the party's client that applied and pays): its application,
 * schedule, payment method, payments, ledger, balances, collateral and documents, ids mapped.
 * Each copy's ledger and snapshots keep the template's order.
 */
const copyLoans = async (db: Kysely<Database>, template: string, copies: Sql, count: number): Promise<void> => {
  const txBase = await reserveSeq(db, 'loan_transactions', (await countOf(db, 'loan_transactions', 'loan_id', template)) * count)
  const balanceBase = await reserveSeq(db, 'loan_balances', (await countOf(db, 'loan_balances', 'loan_id', template)) * count)
  const loan = copyId('loan', k('c'), template)
  const ofLoan = sql`t.loan_id = ${template}`
  const statements: Sql[] = [
    copyRows('loan_applications', sql`t.id = (select application_id from loans where id = ${template})`, copies, {
      id: copyId('app', k('c'), x('id')),
      party_id: k('party_id'),
      client_id: k('client_id'),
      loan_id: loan,
    }),
    copyRows('loans', sql`t.id = ${template}`, copies, { id: loan, party_id: k('party_id'), application_id: copyId('app', k('c'), x('application_id')) }),
    copyRows('loan_installments', ofLoan, copies, { loan_id: loan }),
    copyRows('payment_methods', ofLoan, copies, { id: copyId('pm', k('c'), x('id')), loan_id: loan }),
    copyRows('payments', ofLoan, copies, {
      id: copyId('pay', k('c'), x('id')),
      loan_id: loan,
      client_id: k('client_id'),
      payment_method_id: copyId('pm', k('c'), x('payment_method_id')),
      transaction_id: copyId('tx', k('c'), x('transaction_id')),
      idempotency_key: sql`${x('idempotency_key')} || ':' || ${k('c')}`,
    }),
    copyRows(
      'loan_transactions',
      ofLoan,
      copies,
      {
        id: copyId('tx', k('c'), x('id')),
        loan_id: loan,
        payment_id: copyId('pay', k('c'), x('payment_id')),
        reverses_id: copyId('tx', k('c'), x('reverses_id')),
        seq: sql`${txBase}::int8 + n.n`,
      },
      true,
    ),
    copyRows('loan_balances', ofLoan, copies, { id: copyId('bal', k('c'), x('id')), loan_id: loan, transaction_id: copyId('tx', k('c'), x('transaction_id')), seq: sql`${balanceBase}::int8 + n.n` }, true),
    copyRows('collateral_items', ofLoan, copies, { id: copyId('col', k('c'), x('id')), loan_id: loan }),
    copyRows('loan_documents', ofLoan, copies, { id: copyId('ldoc', k('c'), x('id')), loan_id: loan }),
  ]
  for (const statement of statements) await statement.execute(db)
}

/** The subject's rows the copies are made from, beside the subject's ids. */
type Templates = BookSubject & { readonly borrowerClientId: string }

/**
 * Borrowers `from` to `to`: each a copy of the subject's approved session (its addresses,
 * documents, verification challenges, webhook registration and its `party.ready` event, delivered
 * at the first attempt), its party (and the party's addresses), an API client and a key.
 */
const copyParties = async (db: Kysely<Database>, t: Templates, from: number, to: number): Promise<void> => {
  const copies = sql`select c, ${copyId('session', sql.ref('c'), t.partyId)} as session_id, ${copyId('party', sql.ref('c'), t.partyId)} as party_id,
    ${copyId('client', sql.ref('c'), t.partyId)} as client_id, substr(md5('segment:' || c || ':' || ${t.partyId}), 1, 16) as segment
    from generate_series(${from}::int, ${to}::int) c`
  const ofSession = sql`t.session_id = ${t.approvedSessionId}`
  const event = (id: Sql) => sql`'evt_' || md5('event:' || ${k('c')} || ':' || ${id})`
  const statements: Sql[] = [
    copyRows('api_clients', sql`t.id = ${t.borrowerClientId}`, copies, { id: k('client_id'), party_id: k('party_id') }),
    copyRows('api_keys', sql`t.client_id = ${t.borrowerClientId}`, copies, {
      id: copyId('key', k('c'), x('id')),
      client_id: k('client_id'),
      party_id: k('party_id'),
      id_segment: k('segment'),
      key_prefix: sql`'lgk_live_' || ${k('segment')}`,
      last_used_at: sql`null`,
    }),
    // A session and its party refer to each other: the sessions first, then the parties, then the sessions' party.
    copyRows('onboarding_sessions', sql`t.id = ${t.approvedSessionId}`, copies, { id: k('session_id'), party_id: sql`null` }),
    copyRows('parties', sql`t.id = ${t.partyId}`, copies, { id: k('party_id'), session_id: k('session_id') }),
    sql`update onboarding_sessions s set party_id = k.party_id from (${copies}) k where s.id = k.session_id`,
    copyRows('party_addresses', sql`t.party_id = ${t.partyId}`, copies, { id: copyId('party-address', k('c'), x('id')), party_id: k('party_id') }),
    ...(['onboarding_addresses', 'documents', 'verification_challenges'] as const).map((table) =>
      copyRows(table, ofSession, copies, { id: copyId(table, k('c'), x('id')), session_id: k('session_id') }),
    ),
    copyRows('webhook_endpoints', ofSession, copies, { session_id: k('session_id') }),
    copyRows('webhook_events', ofSession, copies, { id: event(x('id')), session_id: k('session_id') }),
    copyRows('webhook_attempts', sql`t.event_id in (select id from webhook_events where session_id = ${t.approvedSessionId})`, copies, {
      id: sql`nextval(pg_get_serial_sequence('webhook_attempts', 'id'))`,
      event_id: event(x('event_id')),
    }),
  ]
  for (const statement of statements) await statement.execute(db)
}

/** Onboarding sessions `from` to `to`: copies of the subject's open session and its addresses. */
const copyOpenSessions = async (db: Kysely<Database>, t: Templates, from: number, to: number): Promise<void> => {
  const copies = sql`select c, ${copyId('open-session', sql.ref('c'), t.openSessionId)} as session_id from generate_series(${from}::int, ${to}::int) c`
  await copyRows('onboarding_sessions', sql`t.id = ${t.openSessionId}`, copies, { id: k('session_id') }).execute(db)
  await copyRows('onboarding_addresses', sql`t.session_id = ${t.openSessionId}`, copies, { id: copyId('open-address', k('c'), x('id')), session_id: k('session_id') }).execute(db)
}

/** The subject's `party.ready` event, delivered at its first attempt, as the worker would have left it. */
const deliverTemplateEvent = (db: Kysely<Database>, t: Templates) =>
  sql`with delivered as (
      update webhook_events set status = 'delivered', attempts = 1, locked_until = null where session_id = ${t.approvedSessionId} and status = 'pending'
      returning id, created_at)
    insert into webhook_attempts (event_id, attempt_number, url, started_at, duration_ms, status_code, error)
    select d.id, 1, w.url, d.created_at, 120, 200, null from delivered d join webhook_endpoints w on w.session_id = ${t.approvedSessionId}`.execute(db)

/** One stage of copies: `total` items in chunks of `chunk`, each chunk `copy(from, to)` in a transaction recorded when done. */
type Stage = { readonly name: string; readonly total: number; readonly chunk: number; readonly copy: (db: Kysely<Database>, from: number, to: number) => Promise<unknown> }

const runStage = async (db: Kysely<Database>, stage: Stage, onProgress: BookProgress): Promise<void> => {
  const chunks = Math.ceil(stage.total / stage.chunk)
  onProgress(stage.name, 0, chunks)
  for (let n = 0; n < chunks; n++) {
    const [from, to] = [n * stage.chunk + 1, Math.min(stage.total, (n + 1) * stage.chunk)]
    await db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ through: number | null }>`select through from large_book_progress where stage = ${stage.name} and chunk = ${n}`.execute(trx)
      const [done] = rows
      if (done !== undefined) {
        // A chunk seeded for a smaller book stopped short of this one: topping it up is not done.
        if ((done.through ?? to) < to) throw new Error(`large book: ${stage.name} was seeded to ${done.through} here, short of ${to}; a larger book needs a database of its own`)
        return
      }
      await stage.copy(trx, from, to)
      await sql`insert into large_book_progress (stage, chunk, through) values (${stage.name}, ${n}, ${to})`.execute(trx)
    })
    onProgress(stage.name, n + 1, chunks)
  }
}

/**
 * Seeds `database` (migrated) with a large book of `sizes` and returns the subject's ids; see the
 * module's comment. Resumable: the templates are made once (their ids kept in
 * `large_book_subject`, with the sizes they were made for; other sizes are refused), and each chunk
 * of copies once. A stage may grow from nothing (the large book of `bench --scale` is its fresh
 * one with the rest added) or by whole chunks; a chunk seeded short of a larger size is refused. Ends with `ANALYZE`, so the planner knows the tables' sizes.
 *
 * The subject borrower holds `subjectLoans` loans (the seasoned loan and copies of it, for deep
 * pages) and the long-ledger loan. Of the other loans, the first `bigParties × loansPerBigParty`
 * belong to the first `bigParties` borrowers; every other one to a borrower of its own.
 */
export const seedLargeBook = async (database: OpenDatabase, sizes: BookSizes, options: BookOptions = {}): Promise<BookSubject> => {
  const onProgress = options.onProgress ?? (() => undefined)
  const crowded = sizes.bigParties * sizes.loansPerBigParty
  if (sizes.parties < sizes.bigParties + Math.max(0, sizes.loans - crowded)) throw new Error('large book: too few parties for the loans asked')
  const { db } = database
  await sql`create table if not exists large_book_subject (id int primary key check (id = 1), templates jsonb not null, sizes jsonb not null)`.execute(db)
  await sql`create table if not exists large_book_progress (stage text, chunk int, primary key (stage, chunk))`.execute(db)
  // The last item each chunk reached (books seeded before it was kept have none: their chunks are whole).
  await sql`alter table large_book_progress add column if not exists through int`.execute(db)
  const made = { historyMonths: sizes.historyMonths, paymentEveryDays: sizes.paymentEveryDays, longLedger: sizes.longLedger }
  const { rows } = await sql<{ templates: Templates; sizes: typeof made }>`select templates, sizes from large_book_subject`.execute(db)
  let t = rows[0]?.templates
  if (rows[0] !== undefined && (Object.keys(made) as (keyof typeof made)[]).some((size) => rows[0]?.sizes[size] !== made[size])) {
    throw new Error(`large book: this database holds templates made for ${JSON.stringify(rows[0].sizes)}, not ${JSON.stringify(made)}`)
  }
  if (t === undefined) {
    const subject = await makeTemplates(database, sizes, options.historyEndsAt ?? new Date())
    const { rows: clients } = await sql<{ id: string }>`select id from api_clients where party_id = ${subject.partyId} and name = ${BOOK_BORROWER_CLIENT}`.execute(db)
    t = { ...subject, borrowerClientId: clients[0]?.id ?? '' }
    await deliverTemplateEvent(db, t)
    await sql`insert into large_book_subject (id, templates, sizes) values (1, ${JSON.stringify(t)}, ${JSON.stringify(made)})`.execute(db)
    onProgress('templates', 1, 1)
  }
  const templates = t
  // Copy numbers: the subject's copies first, then the others, so no two copies share ids.
  const subjectCopies = sizes.subjectLoans - 1
  const stages: Stage[] = [
    {
      name: 'subject loans',
      total: subjectCopies,
      chunk: 1_000,
      copy: (trx, from, to) =>
        copyLoans(trx, templates.seasonedLoanId, sql`select c, ${templates.partyId}::uuid as party_id, ${templates.borrowerClientId}::uuid as client_id from generate_series(${from}::int, ${to}::int) c`, to - from + 1),
    },
    { name: 'parties', total: sizes.parties, chunk: 5_000, copy: (trx, from, to) => copyParties(trx, templates, from, to) },
    {
      name: 'loans',
      total: sizes.loans,
      chunk: 1_000,
      copy: (trx, from, to) => {
        // Loan n (from 1) of the others: the first ones crowd into the big parties, then one a party.
        const partyOf = sql`case when g.n <= ${crowded}::int then (g.n - 1) / ${sizes.loansPerBigParty}::int + 1 else ${sizes.bigParties}::int + g.n - ${crowded}::int end`
        const copies = sql`select ${subjectCopies}::int + g.n as c, ${copyId('party', partyOf, templates.partyId)} as party_id, ${copyId('client', partyOf, templates.partyId)} as client_id
          from generate_series(${from}::int, ${to}::int) as g(n)`
        return copyLoans(trx, templates.seasonedLoanId, copies, to - from + 1)
      },
    },
    { name: 'open sessions', total: sizes.openSessions, chunk: 20_000, copy: (trx, from, to) => copyOpenSessions(trx, templates, from, to) },
  ]
  for (const stage of stages) await runStage(db, stage, onProgress)
  await sql`analyze`.execute(db)
  const { borrowerClientId: _, ...subject } = templates
  return subject
}

/** Records of the subject that routes name beside the subject's own ids (the first of each kind). */
export type BookRecords = {
  readonly sessionAddressId: (sessionId: string) => Promise<string>
  readonly eventId: string
  readonly partyAddressId: string
  /** An application of the subject still in `DRAFT`. */
  readonly draftApplicationId: string
  readonly paymentMethodId: (loanId: string) => Promise<string>
  /** The loan's latest payment. */
  readonly paymentId: (loanId: string) => Promise<string>
}

/** The subject's records of `BookRecords`, read from the database. */
export const bookRecords = async (database: OpenDatabase, subject: BookSubject): Promise<BookRecords> => {
  const { db } = database
  const first = async (query: RawBuilder<{ id: string }>): Promise<string> => {
    const [row] = (await query.execute(db)).rows
    if (row === undefined) throw new Error('large book: a record of the subject is missing')
    return row.id
  }
  return {
    sessionAddressId: (sessionId) => first(sql`select id from onboarding_addresses where session_id = ${sessionId} order by created_at, id limit 1`),
    eventId: await first(sql`select id from webhook_events where session_id = ${subject.approvedSessionId} limit 1`),
    partyAddressId: await first(sql`select id from party_addresses where party_id = ${subject.partyId} order by created_at, id limit 1`),
    draftApplicationId: await first(sql`select id from loan_applications where party_id = ${subject.partyId} and status = 'DRAFT' limit 1`),
    paymentMethodId: (loanId) => first(sql`select id from payment_methods where loan_id = ${loanId} limit 1`),
    paymentId: (loanId) => first(sql`select id from payments where loan_id = ${loanId} order by created_at desc, id limit 1`),
  }
}

/** Drops the seeder's own tables (the subject's ids and the progress of its chunks), leaving Lendgate's alone: what a backup test compares with its restore. */
export const dropBookBookkeeping = async (database: OpenDatabase): Promise<void> => {
  await sql`drop table if exists large_book_subject, large_book_progress`.execute(database.db)
}
