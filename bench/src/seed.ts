import { randomBytes, randomUUID } from 'node:crypto'
import pg from 'pg'
import { bearer, type Api } from './client.js'
import { fire } from './load.js'
import type { Receiver } from './receiver.js'

export type Secrets = { readonly mint: string; readonly internal: string; readonly webhook: string }

export type ServicedLoan = { readonly loanId: string; readonly paymentMethodId: string; readonly path: string }

/** What the cases run against. */
export type Dataset = {
  /** The partner's key, which owns `sessionId`. */
  readonly partnerKey: string
  readonly sessionId: string
  /** A key of the borrower's party, which owns the loans. */
  readonly borrowerKey: string
  readonly partyId: string
  /** A loan whose ledger holds exactly one transaction (its disbursement). */
  readonly oneTransaction: ServicedLoan
  /** A loan whose ledger holds 10,000 transactions (the disbursement and 9,999 payments). */
  readonly tenThousandTransactions: ServicedLoan
  /** A loan the payment case pays. */
  readonly forPayments: ServicedLoan
  /** Submitted sessions with a webhook registered, waiting for approval. */
  readonly awaitingApproval: readonly string[]
}

export const LARGE_LEDGER = 10_000

/** A product without an origination fee, so a booked loan's ledger starts with one entry. */
const FEE_FREE_PRODUCT = {
  name: 'Benchmark Term Loan',
  currency: 'USD',
  min_amount: 100_000,
  max_amount: 100_000_000,
  min_term_months: 6,
  max_term_months: 60,
  interest_rate_bps: 1200,
  origination_fee_bps: 0,
}

/**
 * Onboards one borrower through the public API, the way a partner does (codes arrive at the
 * receiver), leaving the session SUBMITTED; returns its id. With `webhookUrl`, registers it.
 */
export const submittedSession = async (api: Api, key: string, receiver: Receiver, webhook?: { url: string; secret: string }): Promise<string> => {
  const as = bearer(key)
  const call = (method: string, path: string, json: unknown, expect: number) =>
    api.call(method, `/public/onboarding-sessions${path}`, { headers: as, json, expect })
  const codeFor = (sessionId: string, destination: string): string => {
    const sent = receiver.codes.filter((c) => c['session_id'] === sessionId && c['destination'] === destination)
    const last = sent[sent.length - 1]
    if (last === undefined) throw new Error(`no verification code arrived for ${destination}`)
    return last['code'] as string
  }
  const { session_id: id } = (await call('POST', '', { country_of_incorporation: 'US', locale: 'en-US' }, 201)) as { session_id: string }
  await call('POST', `/${id}/contact/phone`, { phone: '+14155550123' }, 201)
  await call('POST', `/${id}/contact/phone/verify`, { code: codeFor(id, '+14155550123') }, 200)
  await call('POST', `/${id}/contact/email`, { email: 'jane@acme.example' }, 201)
  await call('POST', `/${id}/contact/email/verify`, { code: codeFor(id, 'jane@acme.example') }, 200)
  await call('PUT', `/${id}/applicant-profile`, { legal_name: 'Acme Widgets LLC', legal_form: 'llc', tax_id: '12-3456789' }, 200)
  await call('POST', `/${id}/addresses`, { type: 'registered', line1: '1 Main St', city: 'Springfield', region: 'IL', postal_code: '62701', country: 'US' }, 201)
  if (webhook !== undefined) await call('PUT', `/${id}/webhook`, { webhook_url: webhook.url, webhook_secret: webhook.secret }, 200)
  await call('POST', `/${id}/submit`, {}, 201)
  return id
}

/**
 * Copies a session `count` times in SQL (with its addresses and, if it has one, its webhook
 * registration), each copy with a new id: a large dataset in seconds instead of thousands of
 * onboarding journeys (each verification code costs an scrypt hash). Returns the new ids.
 */
export const copySession = async (pool: pg.Pool, templateId: string, count: number): Promise<string[]> => {
  const { rows } = await pool.query<{ id: string }>(
    `with copies as materialized (select gen_random_uuid() as id from generate_series(1, $2::int)),
     sessions as (
       insert into onboarding_sessions
       select (jsonb_populate_record(s, jsonb_build_object('id', c.id))).* from copies c cross join onboarding_sessions s where s.id = $1
       returning id),
     addresses as (
       insert into onboarding_addresses
       select (jsonb_populate_record(a, jsonb_build_object('id', gen_random_uuid(), 'session_id', c.id))).*
       from copies c cross join onboarding_addresses a where a.session_id = $1),
     webhooks as (
       insert into webhook_endpoints
       select (jsonb_populate_record(w, jsonb_build_object('session_id', c.id))).*
       from copies c cross join webhook_endpoints w where w.session_id = $1)
     select id from sessions`,
    [templateId, count],
  )
  return rows.map((r) => r.id)
}

/** Applies for a loan on the fee-free product, has it approved and adds a bank account. */
const bookedLoan = async (api: Api, secrets: Secrets, borrowerKey: string, partyId: string, productId: string): Promise<ServicedLoan> => {
  const as = bearer(borrowerKey)
  const { application_id: applicationId } = await api.call('POST', '/public/applications', {
    headers: as,
    json: { product_id: productId, amount: 5_000_000, currency: 'USD', term_months: 24, purpose: 'benchmark' },
    expect: 201,
  })
  await api.call('POST', `/public/applications/${applicationId}/submit`, { headers: as, expect: 200 })
  const { loan } = await api.call('POST', `/internal/applications/${applicationId}/approve`, { headers: bearer(secrets.internal), expect: 200 })
  const path = `/public/parties/${partyId}/loans/${loan.loan_id}`
  const { payment_method_id: paymentMethodId } = await api.call('POST', `${path}/payment-methods`, {
    headers: as,
    json: { type: 'bank_account', account_holder_name: 'Acme Widgets LLC', routing_number: '011000015', account_number: '000123456789' },
    expect: 201,
  })
  return { loanId: loan.loan_id as string, paymentMethodId: paymentMethodId as string, path }
}

export const paymentBody = (loan: ServicedLoan): string => JSON.stringify({ amount: 1, currency: 'USD', payment_method_id: loan.paymentMethodId })

/** Mints a partner key of `partyId` with the run's mint secret; returns the key. */
export const mintKey = async (api: Api, secrets: Secrets, partyId: string, clientName: string): Promise<string> =>
  (await api.call('POST', '/public/partner/api-keys', { headers: { 'x-partner-mint-key': secrets.mint }, json: { party_id: partyId, client_name: clientName }, expect: 201 }))
    .api_key as string

/** A borrower onboarded by `partnerKey`'s partner and approved, with a key of its party and `loans` booked loans ready for payments. */
export type Borrower = { readonly sessionId: string; readonly partyId: string; readonly borrowerKey: string; readonly loans: readonly ServicedLoan[] }

/**
 * Onboards a borrower through the public API (its session stays the partner's), has it approved,
 * mints a key of its party and books `loans` loans on a fee-free product, each with a bank account.
 */
export const borrowerWithLoans = async (api: Api, receiver: Receiver, secrets: Secrets, partnerKey: string, loans: number): Promise<Borrower> => {
  const sessionId = await submittedSession(api, partnerKey, receiver)
  const { party } = await api.call('POST', `/internal/onboarding-sessions/${sessionId}/approve`, { headers: bearer(secrets.internal), expect: 200 })
  const partyId = party.party_id as string
  const borrowerKey = await mintKey(api, secrets, partyId, 'bench-borrower')
  const { product_id: productId } = await api.call('POST', '/internal/loan-products', { headers: bearer(secrets.internal), json: FEE_FREE_PRODUCT, expect: 201 })
  const booked: ServicedLoan[] = []
  for (let i = 0; i < loans; i++) booked.push(await bookedLoan(api, secrets, borrowerKey, partyId, productId))
  return { sessionId, partyId, borrowerKey, loans: booked }
}

/**
 * Seeds the benchmark dataset: a partner with `fillerSessions` onboarding sessions, a borrower
 * approved through the API with three loans (one untouched, one with 9,999 one-cent payments
 * made through the API, one for the payment case), and `awaitingApproval` submitted sessions
 * with a webhook pointing at the receiver.
 */
export const seed = async (
  api: Api,
  pool: pg.Pool,
  receiver: Receiver,
  secrets: Secrets,
  sizes: { readonly fillerSessions: number; readonly awaitingApproval: number },
): Promise<Dataset> => {
  const partnerKey = await mintKey(api, secrets, randomUUID(), 'bench-partner')
  const borrower = await borrowerWithLoans(api, receiver, secrets, partnerKey, 3)
  const [oneTransaction, tenThousandTransactions, forPayments] = borrower.loans as [ServicedLoan, ServicedLoan, ServicedLoan]
  const { sessionId: borrowerSession, partyId, borrowerKey } = borrower

  // The long ledger is written the way production writes it: one payment at a time, through the API.
  const paid = await fire(
    {
      url: `${api.url}${tenThousandTransactions.path}/payments`,
      method: 'POST',
      headers: bearer(borrowerKey),
      body: paymentBody(tenThousandTransactions),
      perRequest: () => ({ 'idempotency-key': randomUUID() }),
      expect: 201,
    },
    10,
    LARGE_LEDGER - 1,
  )
  if (Object.keys(paid.unexpected).length > 0) throw new Error(`seeding payments: unexpected answers ${JSON.stringify(paid.unexpected)}`)
  const { rows } = await pool.query<{ n: string }>('select count(*) as n from loan_transactions where loan_id = $1', [tenThousandTransactions.loanId])
  if (Number(rows[0]?.n) !== LARGE_LEDGER) throw new Error(`the long ledger holds ${rows[0]?.n} transactions, not ${LARGE_LEDGER}`)

  const webhookTemplate = await submittedSession(api, partnerKey, receiver, { url: `${receiver.url}/hooks`, secret: secrets.webhook })
  const awaitingApproval = [webhookTemplate, ...(await copySession(pool, webhookTemplate, sizes.awaitingApproval - 1))]
  const filler = await copySession(pool, borrowerSession, sizes.fillerSessions)
  await pool.query(
    `update onboarding_sessions set status = 'IN_PROGRESS', submitted_at = null, party_id = null, review_decision = null,
       reviewed_by = null, review_reason = null, decided_at = null where id = any($1::uuid[])`,
    [filler],
  )
  // Seeding left dead rows (10,000 installment and session updates): vacuum and checkpoint now, so
  // that autovacuum and a checkpoint do not run in the middle of a measured case.
  await pool.query('vacuum (analyze)')
  await pool.query('checkpoint').catch(() => undefined) // needs a superuser or pg_checkpoint; only steadier figures are lost without it
  return { partnerKey, sessionId: borrowerSession, borrowerKey, partyId, oneTransaction, tenThousandTransactions, forPayments, awaitingApproval }
}

/** Fresh secrets for one run: the mint secret, the internal token and a webhook signing secret. */
export const runSecrets = (): Secrets => ({
  mint: `bench-mint-${randomBytes(16).toString('hex')}`,
  internal: `bench-internal-${randomBytes(16).toString('hex')}`,
  webhook: `whsec_${randomBytes(24).toString('base64')}`,
})

/**
 * Where a run keeps its data: a database of its own (`<prefix>_<random>`) on the benchmark's
 * server, `BENCH_DATABASE_URL` (default the local one). `baseUrl` is where to create and drop it.
 */
export const scratchDatabase = (prefix: string): { readonly baseUrl: string; readonly name: string; readonly url: string } => {
  const baseUrl = process.env['BENCH_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test'
  const name = `${prefix}_${randomBytes(4).toString('hex')}`
  return { baseUrl, name, url: databaseUrl(baseUrl, name) }
}

/** The URL of database `name` on the server `baseUrl` names. */
export const databaseUrl = (baseUrl: string, name: string): string => Object.assign(new URL(baseUrl), { pathname: `/${name}` }).toString()

/** `run` on a connection of its own to `url`, closed afterwards whatever `run` did. */
export { onDatabase } from '@lendgate/adapters/testing'

/**
 * A large book's progress (`seedLargeBook`'s `onProgress`) told through `say` after every chunk:
 * the stage, its chunks, the time it has taken and an estimate of what is left.
 */
export const seedingProgress = (say: (message: string) => void, database: string) => {
  const started = new Map<string, number>()
  return (stage: string, done: number, total: number): void => {
    const since = started.get(stage) ?? Date.now()
    started.set(stage, since)
    const seconds = (Date.now() - since) / 1000
    const left = done > 0 ? (seconds / done) * (total - done) : Number.NaN
    if (done > 0) say(`${database}: ${stage} ${done}/${total} chunks, ${seconds.toFixed(0)} s${done < total ? `, about ${left.toFixed(0)} s left` : ''}`)
  }
}
