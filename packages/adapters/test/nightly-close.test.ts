import { runInterestAccrual, storeUnavailable, type AccrualRun, type CoreDeps, type LoanRepository } from '@lendgate/core'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { sql } from 'kysely'
import { postgresCoreDeps } from '../src/postgres-core-deps.js'
import { seedLargeBook, type BookSizes } from '../src/testing/large-book.js'
import { scratchDatabase, testDatabases, type ScratchDatabase } from '../src/testing/test-databases.js'

/**
 * The nightly close on the database (issue 61, item 2): loans closed a group to a transaction,
 * several groups a step, each loan's posting what closing it alone posts; a close cut short
 * part-way resumes with nothing posted twice.
 */

/**
 * A book of loans never paid, their history ending 35 days ago: each owes the interest since, a
 * late fee for the installment whose grace ran out meanwhile, and crosses a delinquency bucket
 * (each told as an event).
 */
const SIZES: BookSizes = {
  historyMonths: 2,
  paymentEveryDays: 1_000,
  longLedger: 10,
  subjectLoans: 1,
  parties: 240,
  loans: 240,
  bigParties: 0,
  loansPerBigParty: 0,
  openSessions: 0,
}

const DAY_MS = 86_400_000

for (const database of testDatabases()) {
  describe(`the nightly close on ${database.name}`, function () {
    this.timeout(180_000)
    let scratch: ScratchDatabase
    let deps: CoreDeps
    let active: number

    const rows = async <R>(query: string): Promise<R[]> => (await sql<R>`${sql.raw(query)}`.execute(scratch.database.db)).rows
    const count = async (query: string): Promise<number> => Number((await rows<{ n: string }>(query))[0]?.n)

    /** The loans whose latest snapshot is not their ledger's sums. */
    const inconsistent = () =>
      count(`
        select count(*) as n from loans l
        cross join lateral (select * from loan_balances b where b.loan_id = l.id order by b.seq desc limit 1) b
        cross join lateral (select sum(principal) as p, sum(interest) as i, sum(fees) as f from loan_transactions t where t.loan_id = l.id) s
        where (s.p, s.i, s.f) is distinct from (b.principal_outstanding::numeric, b.interest_outstanding::numeric, b.fees_outstanding::numeric)`)

    /** Entries after `seq` of one loan, type and day written more than once. */
    const postedTwice = (seq: number) => count(`select count(*) as n from (select 1 from loan_transactions where seq > ${seq} group by loan_id, type, effective_date having count(*) > 1) twice`)

    /** Each loan's count of events (`loans.event_sequence`), and the last event's place in the log. */
    const eventCounts = async () => ({
      counts: new Map((await rows<{ id: string; n: number }>('select id, event_sequence as n from loans')).map((r) => [r.id, Number(r.n)])),
      last: await count('select coalesce(max(seq), 0) as n from events'),
    })

    /** The loans whose events written after `before` are not numbered on from their count then, 1 by 1, up to their count now. */
    const misnumbered = async (before: Awaited<ReturnType<typeof eventCounts>>): Promise<string[]> => {
      const now = await eventCounts()
      const written = new Map((await rows<{ loan_id: string; numbers: number[] }>(`select loan_id, array_agg(loan_sequence order by seq) as numbers from events where seq > ${before.last} and loan_id is not null group by loan_id`)).map((r) => [r.loan_id, r.numbers.map(Number)]))
      return [...now.counts].filter(([id, n]) => {
        const from = before.counts.get(id) ?? 0
        return JSON.stringify(written.get(id) ?? []) !== JSON.stringify(Array.from({ length: n - from }, (_, k) => from + k + 1))
      }).map(([id]) => id)
    }

    const close = async (withDeps: CoreDeps = deps): Promise<E.Either<unknown, AccrualRun>> => runInterestAccrual(withDeps)({})()

    before(async () => {
      scratch = await scratchDatabase(database.kind)
      await seedLargeBook(scratch.database, SIZES, { historyEndsAt: new Date(Date.now() - 35 * DAY_MS) })
      deps = postgresCoreDeps(scratch.database, { sender: { send: () => TE.right(undefined) }, webhookSecretKey: new Uint8Array(32) })
      active = await count(`select count(*) as n from loans where status = 'ACTIVE'`)
      // Half the book's checkpoints in the form earlier builds wrote, each installment an object with names (decision 157).
      await sql`
        update loans set checkpoint = jsonb_set(checkpoint, '{installments}', (
          select jsonb_agg(jsonb_build_object(
            'number', i->0, 'dueDate', i->1, 'principalDue', i->2, 'interest', i->3, 'feesDue', i->4, 'principalPaid', i->5, 'interestPaid', i->6, 'feesPaid', i->7,
            'closed', ((i->>8)::int & 1) <> 0, 'reached', ((i->>8)::int & 2) <> 0, 'feeChecked', ((i->>8)::int & 4) <> 0) order by k)
          from jsonb_array_elements(checkpoint->'installments') with ordinality as e(i, k)))
        where id in (select id from loans where checkpoint is not null order by md5(id::text) limit ${Math.floor(active / 2)})`.execute(scratch.database.db)
    })

    after(async () => {
      await scratch?.drop()
    })

    /** How many loans' checkpoints hold installments of each form. */
    const checkpointForms = async () =>
      Object.fromEntries((await rows<{ form: string; n: string }>(`select jsonb_typeof(checkpoint->'installments'->0) as form, count(*)::text as n from loans where checkpoint is not null group by 1`)).map((r) => [r.form, Number(r.n)]))

    it('is seeded as the close expects: more active loans than one step, each consistent, none closed today', async () => {
      expect(active).to.be.above(200)
      expect(await inconsistent()).to.equal(0)
      expect(await checkpointForms()).to.deep.equal({ object: Math.floor(active / 2), array: active - Math.floor(active / 2) })
    })

    it('cut short after its first group committed, stops on the outage; run again, it closes the rest, each loan once, its events numbered on from its count', async () => {
      // The second group's transaction fails as the store goes down; the first one's has committed.
      let groups = 0
      let down = false
      const outage = storeUnavailable(new Error('Connection terminated unexpectedly'))
      const loans: LoanRepository = {
        ...deps.loans,
        changeMany: (ids, decide) => () => {
          if (groups++ === 0) return deps.loans.changeMany(ids, decide)()
          down = true
          return TE.left(outage)()
        },
        change: (key, decide) => (down ? TE.left(outage) : deps.loans.change(key, decide)),
        activeLoanIds: (after, limit) => (down ? TE.left(outage) : deps.loans.activeLoanIds(after, limit)),
      }
      const entries = await count('select count(*) as n from loan_transactions')
      const lastEntry = await count('select max(seq) as n from loan_transactions')
      const counted = await eventCounts()
      expect(await close({ ...deps, loans })).to.deep.equal(E.left(outage))
      const closedFirst = await count(`select count(distinct loan_id) as n from loan_transactions where effective_date = (select max(effective_date) from loan_transactions) and type = 'INTEREST_ACCRUAL'`)
      expect(closedFirst, 'the first group of the step').to.equal(100)
      expect(await count('select count(*) as n from loan_transactions')).to.be.above(entries)

      const run = await close()
      expect(run).to.deep.include({ _tag: 'Right' })
      const figures = (run as E.Right<AccrualRun>).right
      expect(figures).to.deep.include({ loansExamined: active, loansChanged: active - 100, loansFailed: 0 })
      expect(await postedTwice(lastEntry)).to.equal(0)
      // Every checkpoint read, whichever its form, and written back as rows; the copies of one loan closed alike.
      expect(await checkpointForms()).to.deep.equal({ array: active })
      expect(await count(`select count(distinct (t.type, t.amount, t.principal, t.interest, t.fees)) as n from loan_transactions t join loans l on l.id = t.loan_id where t.seq > ${lastEntry} and l.party_id <> (select party_id from loans order by created_at limit 1)`)).to.equal(2)
      expect(await inconsistent()).to.equal(0)
      expect(await misnumbered(counted)).to.deep.equal([])
      // Nearly every loan was charged a fee and moved a bucket (a loan paid in the seeded history, not both): each told once.
      const told = (type: string) => rows<{ loan_id: string }>(`select loan_id from events where seq > ${counted.last} and type = '${type}' order by loan_id`)
      const fees = await told('loan.late_fee_assessed')
      expect(fees.length).to.be.at.least(active - 2)
      expect(fees).to.deep.equal(await rows(`select loan_id from loan_transactions where seq > ${lastEntry} and type = 'LATE_FEE' order by loan_id`))
      expect((await told('loan.delinquency_changed')).length).to.be.at.least(active - 2)
      expect(await count(`select count(distinct loan_id) as n from loan_transactions where effective_date = (select max(effective_date) from loan_transactions) and type = 'INTEREST_ACCRUAL'`)).to.equal(active)
    })

    it('run again for the same day, posts nothing and tells nothing', async () => {
      const before = await count('select count(*) as n from loan_transactions')
      const snapshots = await count('select count(*) as n from loan_balances')
      const events = await count('select count(*) as n from events')
      const counted = await eventCounts()
      const again = await close()
      expect(E.isRight(again) && again.right).to.deep.include({ loansExamined: active, loansChanged: 0, accruals: 0, loansFailed: 0 })
      expect([await count('select count(*) as n from loan_transactions'), await count('select count(*) as n from loan_balances'), await count('select count(*) as n from events')]).to.deep.equal([before, snapshots, events])
      expect(await misnumbered(counted)).to.deep.equal([])
    })
  })
}
