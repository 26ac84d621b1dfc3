import { randomUUID } from 'node:crypto'
import { migrateToLatest, openDatabase, type OpenDatabase } from '@lendgate/adapters'
import { onDatabase, startReplicatedPostgres, type ReplicatedPostgres } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { DATA_AS_OF_HEADER } from '../src/http/reads-behind.js'
import type { ReadServedBy } from '../src/metrics.js'
import { OPERATIONS, type Operation } from '../src/routes/operations.js'
import { bookLoan } from './support/booked-loan.js'
import { startCodeReceiver } from './support/code-receiver.js'
import { bearer, mintKey, request, type Reply } from './support/client.js'
import { onboardBorrower } from './support/borrower.js'
import { buildSubject, callOperation, type Subject } from './support/isolation-fixtures.js'
import { INTERNAL_TOKEN, startTestServer, type TestServer } from './support/test-server.js'

/**
 * Reads that may be behind (decision 156) through the API, on a primary and a streaming replica
 * (`DATABASE_READ_URL`): each is served by the replica once it is current enough for its reader,
 * none writes there, every answer says how fresh it is, a reader's read after its own write sees
 * it, and a replica that is paused or killed is skipped with no error.
 */

const MAX_LAG_MS = 4_000
const BEHIND = OPERATIONS.filter((op) => op.readsBehind === true)

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Runs `sql` on `url` on a connection of its own. */
const query = (url: string, sql: string): Promise<unknown> => onDatabase(url, (client) => client.query(sql))

describe('reads that may be behind, on a primary and a streaming replica (decision 156)', function () {
  this.timeout(180_000)
  let pair: ReplicatedPostgres
  let database: OpenDatabase
  let server: TestServer
  let receiver: Awaited<ReturnType<typeof startCodeReceiver>>
  let subject: Subject

  /** How many reads that may be behind each place has served so far (`lendgate_db_reads_behind_total`). */
  const served = async (): Promise<Record<ReadServedBy, number>> => {
    const metric = server.deps.metrics.registry.getSingleMetric('lendgate_db_reads_behind_total')
    const values = (await metric?.get())?.values ?? []
    return Object.fromEntries(values.map((value) => [value.labels['served_by'], value.value])) as Record<ReadServedBy, number>
  }
  /** Who reads `op`: the party's borrower key on a partner route (its partner's key for the event list), the internal token otherwise. */
  const readerOf = (op: Operation): Record<string, string> =>
    bearer(op.auth !== 'partner' ? INTERNAL_TOKEN : op.operationId === 'listEvents' ? subject.partnerKey.api_key : subject.borrowerKey.api_key)
  /** `send`'s answer and where it was served, from the metrics read around it (the test sends nothing else meanwhile). */
  const sent = async (send: () => Promise<Reply>): Promise<{ readonly reply: Reply; readonly by: ReadServedBy }> => {
    const before = await served()
    const reply = await send()
    const after = await served()
    const by = (Object.keys(after) as ReadServedBy[]).filter((where) => after[where] > before[where])
    expect(by, `where ${reply.status} ${reply.text.slice(0, 200)} was served`).to.have.length(1)
    return { reply, by: by[0]! }
  }
  /** `send` again every 100 ms until the replica serves it; fails after 10 s. */
  const fromReplica = async (send: () => Promise<Reply>): Promise<Reply> => {
    for (const deadline = Date.now() + 10_000; ; await sleep(100)) {
      const { reply, by } = await sent(send)
      expect(by, `${reply.status} ${reply.text.slice(0, 200)}`).to.not.equal('primary_after_replica_failed')
      if (by === 'replica') return reply
      if (Date.now() > deadline) expect.fail('the replica did not serve the read within 10 s')
    }
  }

  before(async () => {
    pair = await startReplicatedPostgres()
    database = await openDatabase({ url: pair.primaryUrl, dataDir: '/nonexistent' })
    await database.withSession(migrateToLatest)
    receiver = await startCodeReceiver()
    server = await startTestServer(
      { name: 'replicated PostgreSQL', kind: 'postgres', open: async () => database },
      { verificationDeliveryUrl: receiver.url, databaseUrl: pair.primaryUrl, databaseReadUrls: [pair.replicaUrl], replicaMaxLagMs: MAX_LAG_MS },
    )
    subject = await buildSubject(server, receiver, 'replicated', 1)
  })
  after(async () => {
    await server?.stop()
    await database?.close()
    await receiver?.close()
    await pair?.stop()
  })

  it('serves every read that may be behind from the replica once it holds its reader\'s writes, none needing the primary, each saying how fresh it is', async () => {
    expect(BEHIND.map((op) => op.operationId)).to.include.members(['listLoansForParty', 'listTransactionsForPartyLoan', 'listLoanScheduleForParty', 'listEvents', 'listLoans', 'getDelinquencySummary'])
    for (const op of BEHIND) {
      const started = Date.now()
      const reply = await fromReplica(() => callOperation(server, op, subject.worlds.approved, readerOf(op)))
      expect(reply.status, `${op.operationId}: ${reply.text}`).to.equal(200)
      const asOf = Date.parse(reply.headers.get(DATA_AS_OF_HEADER) ?? '')
      expect(asOf, `${op.operationId}'s ${DATA_AS_OF_HEADER}`).to.be.within(started - MAX_LAG_MS, Date.now())
    }
    // A read that decides (one loan, its payoff) is the primary's and has no such header.
    const loan = await request(server.url, subject.loan.paths.loan, { headers: bearer(subject.borrowerKey.api_key) })
    expect(loan.status).to.equal(200)
    expect(loan.headers.get(DATA_AS_OF_HEADER)).to.equal(null)
  })

  it("sends a reader's read after its own write to the primary; another reader may be served a little behind, and is told so; past the limit the replica is skipped", async () => {
    const payments = subject.loan.paths.payments
    const internalPayments = `/internal/loans/${subject.loan.loanId}/payments`
    const ownList = () => request(server.url, payments, { headers: bearer(subject.borrowerKey.api_key) })
    const operatorList = () => request(server.url, internalPayments, { headers: bearer(INTERNAL_TOKEN) })
    const ids = (reply: Reply): string[] => (reply.body.data as { payment_id: string }[]).map((payment) => payment.payment_id)
    const methodId = (await ownList()).body.data[0].payment_method_id as string
    await fromReplica(operatorList)

    let paymentId = ''
    await query(pair.replicaUrl, 'select pg_wal_replay_pause()')
    try {
      const payment = await request(server.url, payments, {
        method: 'POST',
        headers: { ...bearer(subject.borrowerKey.api_key), 'Idempotency-Key': `replicas-${randomUUID()}` },
        json: { amount: 10_000, currency: 'USD', payment_method_id: methodId },
      })
      expect(payment.status, payment.text).to.equal(201)
      paymentId = payment.body.payment_id as string
      // The write's answer says an instant after it committed.
      const wrote = Date.parse(payment.headers.get(DATA_AS_OF_HEADER) ?? '')
      expect(wrote, `the payment's ${DATA_AS_OF_HEADER}`).to.be.a('number').and.not.NaN

      const own = await sent(ownList)
      expect(own.by, 'the writer\'s own read').to.equal('primary')
      expect(ids(own.reply)).to.include(paymentId)
      expect(Date.parse(own.reply.headers.get(DATA_AS_OF_HEADER) ?? '')).to.be.at.least(wrote)

      // The operator did not write: the paused replica, within the limit, serves it, and its
      // answer is current to before the payment, which it does not hold.
      const other = await sent(operatorList)
      expect(other.by, 'another reader, within the limit').to.equal('replica')
      expect(Date.parse(other.reply.headers.get(DATA_AS_OF_HEADER) ?? '')).to.be.below(wrote)
      expect(ids(other.reply)).to.not.include(paymentId)

      // Past the limit the replica is skipped: the operator is served by the primary.
      let skipped: Awaited<ReturnType<typeof sent>> | undefined
      for (const deadline = Date.now() + 3 * MAX_LAG_MS; skipped?.by !== 'primary'; await sleep(200)) {
        if (Date.now() > deadline) expect.fail(`the paused replica was not skipped within ${3 * MAX_LAG_MS} ms`)
        skipped = await sent(operatorList)
      }
      expect(ids(skipped.reply)).to.include(paymentId)
      const lag = (await server.deps.metrics.registry.getSingleMetric('lendgate_db_replica_lag_seconds')?.get())?.values[0]?.value
      expect(lag, 'lendgate_db_replica_lag_seconds').to.be.greaterThan(MAX_LAG_MS / 1000)
    } finally {
      await query(pair.replicaUrl, 'select pg_wal_replay_resume()')
    }
    expect(ids(await fromReplica(operatorList)), 'caught up, the replica holds the payment').to.include(paymentId)
  })

  it("answers a list of a loan the replica does not hold yet from the primary, never 404: a loan booked a moment ago by another writer", async () => {
    // A second key of the borrower's party, minted before the pause: a reader that has written nothing since.
    const reader = await mintKey(server.url, { party_id: subject.borrowerKey.party_id, client_name: subject.borrowerKey.client_name })
    await fromReplica(() => request(server.url, subject.loan.paths.schedule, { headers: bearer(reader.api_key) }))
    await query(pair.replicaUrl, 'select pg_wal_replay_pause()')
    try {
      const loan = await bookLoan(server, subject.borrower)
      const schedule = await sent(() => request(server.url, loan.paths.schedule, { headers: bearer(reader.api_key) }))
      expect(schedule.reply.status, schedule.reply.text).to.equal(200)
      expect(schedule.by, 'the replica holds no such loan: the primary answers').to.equal('primary_after_replica_not_found')
      expect(schedule.reply.body.data).to.have.length.greaterThan(0)
    } finally {
      await query(pair.replicaUrl, 'select pg_wal_replay_resume()')
    }
  })

  it("serves a party on a test clock from the primary: the clock's time is read there, so its ledger is too", async () => {
    const borrower = await onboardBorrower(server, receiver, { world: 'test' })
    const loan = await bookLoan(server, borrower)
    const clock = await request(server.url, '/public/test-helpers/clocks', { method: 'POST', headers: bearer(borrower.key.api_key), json: { frozen_time: new Date().toISOString() } })
    expect(clock.status, clock.text).to.equal(201)
    const clockWritten = Date.parse(clock.headers.get(DATA_AS_OF_HEADER) ?? '')
    // Once the replica holds the clock, read-your-writes alone would let the party read there.
    for (const deadline = Date.now() + 10_000; ; await sleep(100)) {
      const other = await fromReplica(() => request(server.url, '/internal/loans', { headers: bearer(INTERNAL_TOKEN) }))
      if (Date.parse(other.headers.get(DATA_AS_OF_HEADER) ?? '') >= clockWritten) break
      if (Date.now() > deadline) expect.fail('the replica did not hold the clock within 10 s')
    }
    const read = await sent(() => request(server.url, loan.paths.schedule, { headers: bearer(borrower.key.api_key) }))
    expect(read.reply.status, read.reply.text).to.equal(200)
    expect(read.by).to.equal('primary')
  })

  it('answers every read from the primary while the replica is killed, with no error, and goes back to it once it is started again', async () => {
    const op = BEHIND.find((o) => o.operationId === 'listTransactionsForPartyLoan')!
    const read = () => callOperation(server, op, subject.worlds.approved, readerOf(op))
    await fromReplica(read)
    await pair.killReplica()
    try {
      const before = await served()
      const answers: number[] = []
      for (let i = 0; i < 20; i++) answers.push((await read()).status)
      expect([...new Set(answers)]).to.deep.equal([200])
      const after = await served()
      expect(after.replica, 'reads the killed replica served').to.equal(before.replica)
      expect(after.primary + after.primary_after_replica_failed - before.primary - before.primary_after_replica_failed, 'reads the primary served').to.equal(20)
      expect((await server.deps.metrics.registry.getSingleMetric('lendgate_db_replica_up')?.get())?.values[0]?.value).to.equal(0)
    } finally {
      await pair.startReplica()
    }
    await fromReplica(read)
  })
})
