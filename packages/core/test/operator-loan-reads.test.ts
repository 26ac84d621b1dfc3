import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { World } from '../src/core-deps.js'
import { invalidRequest, notFound } from '../src/domain/foundations/errors.js'
import type { PartyId } from '../src/domain/foundations/ids.js'
import type { TestClock } from '../src/domain/testing/test-clock.js'
import { listLoanScheduleForParty } from '../src/use-cases/servicing/list-schedule.js'
import { asLoansParty, getLoanForOperator, listLoansForOperator } from '../src/use-cases/servicing/operator-loan-reads.js'
import { delinquencyByBucket, getDelinquencySummary } from '../src/use-cases/servicing/portfolio.js'
import { partyClock } from '../src/use-cases/testing/party-clock.js'
import { at, caller, run, setup, stranger, UNKNOWN_ID } from './fixtures/servicing.js'

/**
 * Operators' reads of every party's loans (docs/console.md): each loan on its party's today, which
 * in the test world is its party's test clock's, in one read of the book; the portfolio's
 * delinquency by bucket.
 */

/** `caller`'s party lives on a test clock six weeks after booking; `stranger`'s on real time. */
const CLOCK_TIME = at('2026-03-01')
const testClocks = {
  findForParty: (partyId: PartyId) => TE.right(partyId === caller.partyId ? O.some({ frozenTime: CLOCK_TIME } as TestClock) : O.none),
  partyTimes: () => TE.right([{ partyId: caller.partyId, now: CLOCK_TIME }]),
}

const world = (name: World) => {
  const s = setup()
  return { ...s, operatorDeps: { ...s.deps, world: name, testClocks } }
}

describe("operators' reads of every party's loans", () => {
  it("partyClock is the test clock's time in the test world only", async () => {
    const { operatorDeps } = world('test')
    expect((await run(partyClock(operatorDeps)(caller.partyId))).now()).to.deep.equal(CLOCK_TIME)
    expect((await run(partyClock(operatorDeps)(stranger.partyId))).now()).to.deep.equal(operatorDeps.clock.now())
    const live = world('live').operatorDeps
    expect((await run(partyClock(live)(caller.partyId))).now()).to.deep.equal(live.clock.now())
  })

  it("reads a loan on its party's today: the test clock's in the test world, real time in the live world", async () => {
    for (const [name, today, bucket] of [
      ['test', '2026-03-01', 'DPD_1_30'],
      ['live', '2026-01-15', 'CURRENT'],
    ] as const) {
      const { book, operatorDeps } = world(name)
      const { loan } = book()
      const read = await run(getLoanForOperator(operatorDeps)({ loanId: loan.id }))
      expect(read.today, name).to.equal(today)
      expect(read.loan.id).to.equal(loan.id)
      const page = await run(listLoansForOperator(operatorDeps)({ delinquency: bucket }))
      expect(page.items.map((l) => l.loan.id), name).to.deep.equal([loan.id])
    }
  })

  it("pages the test world's queue by cursor, each loan on its party's clock", async () => {
    const { book, operatorDeps } = world('test')
    // 130 loans of a party on real time (current), then 3 of the party on the clock (past due): the bucket's first page lies past the current ones.
    for (let i = 0; i < 130; i++) book({ partyId: stranger.partyId })
    const late = [book(), book(), book()].map((b) => b.loan.id)
    const first = await run(listLoansForOperator(operatorDeps)({ delinquency: 'DPD_1_30', limit: '2' }))
    expect(first.items.map((l) => l.loan.id)).to.deep.equal(late.slice(0, 2))
    expect(first.items.map((l) => l.today)).to.deep.equal(['2026-03-01', '2026-03-01'])
    expect(first.nextCursor).to.be.a('string')
    const second = await run(listLoansForOperator(operatorDeps)({ delinquency: 'DPD_1_30', limit: '2', cursor: first.nextCursor }))
    expect(second.items.map((l) => l.loan.id)).to.deep.equal(late.slice(2))
    expect(second.nextCursor).to.equal(null)
    const current = await run(listLoansForOperator(operatorDeps)({ delinquency: 'CURRENT', limit: '100' }))
    expect(current.items).to.have.length(100)
    expect(current.items.every((l) => l.loan.partyId === stranger.partyId)).to.equal(true)
  })

  it("reads a loan's schedule as its party does, on its party's clock", async () => {
    const { book, deps, operatorDeps } = world('test')
    const { loan } = book()
    const read = asLoansParty(operatorDeps, (clock) => listLoanScheduleForParty({ ...deps, clock }))
    const schedule = await run(read({ loanId: loan.id }))
    expect(schedule.items[0]!.status).to.equal('LATE')
    const asParty = await run(listLoanScheduleForParty({ ...deps, clock: { now: () => CLOCK_TIME } })(caller, { partyId: caller.partyId, loanId: loan.id }))
    expect(schedule).to.deep.equal(asParty)
  })

  it('refuses a command naming a party, and answers an unknown loan NotFound', async () => {
    const { book, deps, operatorDeps } = world('live')
    const { loan } = book()
    const read = asLoansParty(operatorDeps, (clock) => listLoanScheduleForParty({ ...deps, clock }))
    expect(await read({ loanId: loan.id, partyId: stranger.partyId })()).to.deep.equal(
      E.left(invalidRequest("partyId is not a parameter of an operator's read: the loan names its party.", 'partyId')),
    )
    expect(await read({ loanId: UNKNOWN_ID })()).to.deep.equal(E.left(notFound('loan')))
    expect(await getLoanForOperator(operatorDeps)({ loanId: UNKNOWN_ID })()).to.deep.equal(E.left(notFound('loan')))
  })

  it('keeps paid-off and charged-off loans out of the delinquency queue, and lists the book by status', async () => {
    const { book, loans, operatorDeps } = world('test')
    const active = book()
    const chargedOff = book()
    loans.book({ ...chargedOff, loan: { ...chargedOff.loan, status: 'CHARGED_OFF', chargedOffOn: '2026-02-20' } })
    const queue = await run(listLoansForOperator(operatorDeps)({ delinquency: 'DPD_1_30' }))
    expect(queue.items.map((l) => l.loan.id)).to.deep.equal([active.loan.id])
    const recovered = await run(listLoansForOperator(operatorDeps)({ status: 'CHARGED_OFF' }))
    expect(recovered.items.map((l) => l.loan.id)).to.deep.equal([chargedOff.loan.id])
    expect(await listLoansForOperator(operatorDeps)({ status: 'DEFAULTED' })()).to.deep.equal(E.left(invalidRequest('status must be one of: ACTIVE, PAID_OFF, CHARGED_OFF', 'status')))
  })

  it("sums the portfolio's active loans by bucket, each on its party's clock, every bucket listed", async () => {
    const { book, loans, operatorDeps } = world('test')
    const late = [book(), book()]
    const current = book({ partyId: stranger.partyId })
    const paidOff = book({ partyId: stranger.partyId })
    loans.book({ ...paidOff, loan: { ...paidOff.loan, status: 'PAID_OFF' } })
    const summary = await run(getDelinquencySummary(operatorDeps)({}))
    expect(summary.asOf).to.deep.equal(operatorDeps.clock.now())
    const zero = { loans: 0, principalOutstanding: 0, pastDueAmount: 0 }
    expect(summary.currencies).to.deep.equal([
      {
        currency: 'USD',
        buckets: [
          { bucket: 'CURRENT', loans: 1, principalOutstanding: current.balance.principalOutstanding, pastDueAmount: current.balance.pastDueAmount },
          { bucket: 'DPD_1_30', loans: 2, principalOutstanding: late[0]!.balance.principalOutstanding * 2, pastDueAmount: late[0]!.balance.pastDueAmount * 2 },
          { bucket: 'DPD_31_60', ...zero },
          { bucket: 'DPD_61_90', ...zero },
          { bucket: 'DPD_90_PLUS', ...zero },
        ],
      },
    ])
    expect(await getDelinquencySummary(operatorDeps)({ delinquency: 'CURRENT' })()).to.deep.equal(E.left(invalidRequest('delinquency is not a known field', 'delinquency')))
    expect((await run(getDelinquencySummary(world('live').operatorDeps)({}))).currencies).to.deep.equal([])
  })

  it('puts each group in the bucket of its days past due, never adds two currencies, and sorts currencies by code', () => {
    const group = (currency: string, daysPastDue: number, loans: number) => ({ currency, daysPastDue, loans, principalOutstanding: loans * 100, pastDueAmount: loans * 10 })
    const summary = delinquencyByBucket([group('USD', 0, 1), group('EUR', 31, 2), group('USD', 30, 3), group('USD', 1, 4), group('USD', 91, 5), group('EUR', 60, 6)])
    expect(summary.map(({ currency, buckets }) => [currency, buckets.map((b) => [b.bucket, b.loans, b.principalOutstanding, b.pastDueAmount])])).to.deep.equal([
      ['EUR', [['CURRENT', 0, 0, 0], ['DPD_1_30', 0, 0, 0], ['DPD_31_60', 8, 800, 80], ['DPD_61_90', 0, 0, 0], ['DPD_90_PLUS', 0, 0, 0]]],
      ['USD', [['CURRENT', 1, 100, 10], ['DPD_1_30', 7, 700, 70], ['DPD_31_60', 0, 0, 0], ['DPD_61_90', 0, 0, 0], ['DPD_90_PLUS', 5, 500, 50]]],
    ])
  })
})
