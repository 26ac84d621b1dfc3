import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { openDatabase, postgresCoreDeps, postgresIdempotencyStore, type QueryLog } from '@lendgate/adapters'
import { BOOK_BORROWER_CLIENT, type LoggedStatement } from '@lendgate/adapters/testing'
import { authenticateApiKey, createPaymentIntentForPartyLoan, mintApiKey, paymentView, type IdGenerator } from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { paymentBody } from './seed.js'

/**
 * The statements one payment runs, and the pgbench script that runs them again and again: the
 * database's ceiling for a payment (issue 40).
 *
 * **Capture.** One payment is made in this process the way the API makes it, on a database
 * opened with Kysely's query log: the idempotency claim (`postgresIdempotencyStore`, what the
 * API's idempotency middleware runs first), `createPaymentIntentForPartyLoan` through
 * `postgresCoreDeps` (the use case the route runs, on the same repositories), then the
 * idempotency completion with the payment as the API answers it. Every statement is recorded in
 * order with its parameters, `begin` and `commit` included. Not captured: what the API does on
 * timers rather than per request (key usage, rate-limit sync, key-cache refresh once a minute).
 *
 * **Script.** Each captured statement becomes one line of the script with the same SQL text,
 * every `$n` replaced by a pgbench variable, which `-M extended` sends as a parameter again
 * (untyped text, as `pg` sends it): so PostgreSQL parses, plans and runs the same statements
 * as for the API, as unnamed statements. The variables:
 *
 * - the loan and its payment method: a loan picked at random among the helper table's
 *   (`\set n random(1, count)`, then one `select … from bench_payment_loans where n = :n \gset`,
 *   the only statement the API does not run: it picks the loan and makes ids in the process);
 * - the Idempotency-Key (the claim's and the payment's) and every id the core generated for the
 *   payment (payment, ledger entry, snapshot, events): fresh `gen_random_uuid()` values from that
 *   select, an event's id as `evt_` and the hex digits of one;
 * - every other parameter (party, client, amounts, dates, JSON columns, the response body kept
 *   for replay): the captured value, passed with `-D`;
 * - a NULL parameter: the literal `NULL` in its place (pgbench has no NULL variable), the only
 *   change to the SQL text (but for line breaks, made spaces: a pgbench statement is one line).
 *
 * `begin` and `commit`, which `pg` sends as simple queries, go through the extended protocol in
 * pgbench like every other statement.
 *
 * Identity columns (`seq`) are numbered by the database, as for the API.
 */

/** One loan of the load: its id and its payment method's. */
export type PayableLoan = { readonly loanId: string; readonly paymentMethodId: string }

export type CapturedPayment = {
  readonly statements: readonly LoggedStatement[]
  readonly loan: PayableLoan
  /** The Idempotency-Key, on the claim and on the payment. */
  readonly key: string
  /** The ids the core generated for the payment's records, in order. */
  readonly generatedIds: readonly string[]
}

/** The helper table the script picks its loan from: the loans numbered 1 to n. */
export const HELPER_TABLE = 'bench_payment_loans'

/** The path a partner pays `loan` of `partyId` at. */
export const paymentPath = (partyId: string, loan: PayableLoan): string => `/public/parties/${partyId}/loans/${loan.loanId}/payments`

/** The Right of `task`, or an error naming `what`. */
const run = async <A>(what: string, task: TE.TaskEither<unknown, A>): Promise<A> => {
  const result = await task()
  if (E.isLeft(result)) throw new Error(`capturing a payment: ${what} failed: ${JSON.stringify(result.left)}`)
  return result.right
}

/** Makes one payment of one cent on `loan` of `partyId`, as the API does, and records the statements it runs. */
export const capturePayment = async (url: string, partyId: string, loan: PayableLoan): Promise<CapturedPayment> => {
  const statements: LoggedStatement[] = []
  const generatedIds: string[] = []
  let recording = false
  const log: QueryLog = (event) => {
    if (recording && event.level === 'query') statements.push({ sql: event.query.sql, parameters: event.query.parameters })
  }
  const database = await openDatabase({ url, dataDir: '', log })
  try {
    const core = postgresCoreDeps(database, { sender: { send: () => TE.right(undefined) }, webhookSecretKey: randomBytes(32) })
    const ids: IdGenerator = {
      next: () => {
        const id = core.ids.next()
        if (recording) generatedIds.push(id)
        return id
      },
    }
    const deps = { ...core, ids }
    const minted = await run('minting a key', mintApiKey(deps)({ party_id: partyId, client_name: BOOK_BORROWER_CLIENT }))
    const caller = await run('authenticating', authenticateApiKey(deps)(minted.plaintext))
    const key = randomUUID()
    const path = paymentPath(partyId, loan)
    const body = paymentBody({ ...loan, path })
    // As the API's idempotency middleware fingerprints a request: method, path, then the body's bytes.
    const fingerprint = createHash('sha256').update(`POST ${path}\n`).update(body).digest('hex')
    const ref = { scope: caller.clientId, key }
    const idempotency = postgresIdempotencyStore(database.db)
    recording = true
    const claim = await run('claiming the key', idempotency.claim(ref, fingerprint, new Date()))
    if (claim._tag !== 'Claimed') throw new Error(`capturing a payment: the key was not claimed (${claim._tag})`)
    const payment = await run(
      'paying',
      createPaymentIntentForPartyLoan(deps)(caller, { partyId, loanId: loan.loanId, ...(JSON.parse(body) as object), idempotency_key: key }),
    )
    await run('completing the key', idempotency.complete(ref, { status: 201, body: JSON.stringify(paymentView(payment)) }, new Date()))
    recording = false
    if (payment.status !== 'SUCCEEDED') throw new Error(`capturing a payment: the payment ${payment.status}`)
    return { statements, loan, key, generatedIds }
  } finally {
    await database.close()
  }
}

/** A parameter as `pg` sends it, as text; undefined for NULL. */
const asText = (value: unknown): string | undefined => {
  if (value === null || value === undefined) return undefined
  if (value instanceof Date) return value.toISOString()
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value)
  if (typeof value === 'object' && !Array.isArray(value) && !Buffer.isBuffer(value)) return JSON.stringify(value)
  throw new Error(`a payment's statement has a parameter pgbench cannot pass: ${String(value)}`)
}

export type PgbenchScript = {
  /** The script's text, for `pgbench -f`. */
  readonly text: string
  /** The captured values, for `pgbench -D name=value`. */
  readonly variables: Readonly<Record<string, string>>
  /** Statements of the payment in the script (the helper's select not counted). */
  readonly statements: number
}

/** `captured` as a pgbench script over the first `loans` loans of `HELPER_TABLE`; see the module's comment. */
export const pgbenchScript = (captured: CapturedPayment, loans: number): PgbenchScript => {
  // Fresh values: the generated ids, and an event's id made from one (`evt_` and its hex digits).
  const generated: [string, string, string][] = [
    [captured.key, 'idempotency_key', 'gen_random_uuid()'],
    ...captured.generatedIds.map((id, i): [string, string, string] => [id, `new_id_${i + 1}`, 'gen_random_uuid()']),
    ...captured.generatedIds.map((id, i): [string, string, string] => [`evt_${id.replace(/-/g, '')}`, `new_event_id_${i + 1}`, "'evt_' || replace(gen_random_uuid()::text, '-', '')"]),
  ]
  const fresh = new Map<string, string>([
    [captured.loan.loanId, 'loan_id'],
    [captured.loan.paymentMethodId, 'method_id'],
    ...generated.map(([value, name]): [string, string] => [value, name]),
  ])
  const variables: Record<string, string> = {}
  const lines = captured.statements.map((statement, s) => {
    // pgbench would read `:name` as a variable; the captured SQL has only `::` casts, if anything.
    if (/(^|[^:]):[A-Za-z_]/.test(statement.sql)) throw new Error(`a payment's statement holds a colon pgbench would misread: ${statement.sql}`)
    const sql = statement.sql.replace(/\s*\n\s*/g, ' ').replace(/\$(\d+)/g, (_, n: string) => {
      const value = statement.parameters[Number(n) - 1]
      // An array of ids (a lock of the loans `id = any($1)`): an array of the same variables, one parameter each.
      if (Array.isArray(value)) {
        return `array[${value
          .map((element: unknown, k) => {
            const renamed = typeof element === 'string' ? fresh.get(element) : undefined
            if (renamed !== undefined) return `:${renamed}`
            const text = asText(element)
            if (text === undefined) return 'NULL'
            const name = `s${s + 1}_p${n}_${k + 1}`
            variables[name] = text
            return `:${name}`
          })
          .join(', ')}]`
      }
      const text = asText(value)
      if (text === undefined) return 'NULL'
      const renamed = typeof value === 'string' ? fresh.get(value) : undefined
      if (renamed !== undefined) return `:${renamed}`
      const name = `s${s + 1}_p${n}`
      variables[name] = text
      return `:${name}`
    })
    return `${sql};`
  })
  const picked = generated.map(([, name, expression]) => `${expression} as ${name}`)
  return {
    text: [
      `\\set n random(1, ${loans})`,
      `select loan_id, method_id, ${picked.join(', ')} from ${HELPER_TABLE} where n = :n \\gset`,
      ...lines,
      '',
    ].join('\n'),
    variables,
    statements: lines.length,
  }
}
