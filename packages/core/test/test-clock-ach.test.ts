import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { daysPastDue } from '../src/domain/loans/loan.js'
import type { PartyId } from '../src/domain/foundations/ids.js'
import type { TestClock } from '../src/domain/testing/test-clock.js'
import type { AchFileSink } from '../src/ports/ach-file-sink.js'
import type { AchInbox, ArrivedAchFile } from '../src/ports/ach-inbox.js'
import type { AchFileContents } from '../src/ports/ach-file-format.js'
import type { IngestionDeps } from '../src/use-cases/ach/ingestion.js'
import { achOriginationJob, type OriginationDeps } from '../src/use-cases/ach/origination.js'
import { runLeasedJob } from '../src/use-cases/jobs/leased-job.js'
import { advanceClaimedClock } from '../src/use-cases/testing/test-clocks.js'
import { setLoanAutopayForParty } from '../src/use-cases/servicing/autopay.js'
import { fakeAccountSeal, inMemoryAchInbound, inMemoryAchOriginations, inMemoryAuditLog, inMemoryJobLeases, inMemoryTestClockRepository, testId } from '../src/testing/index.js'
import { debitsLater, fileOf, jsonFormat, jsonInbound } from './fixtures/ach.js'
import { calendar } from './fixtures/ach-bench.js'
import { at, caller, right, setup, some } from './fixtures/servicing.js'

/**
 * A party's debits on its test clock (decision 147): the clock's advance cuts the party's own files
 * in the clock's time, takes its bank's answers on their days, and settles the rest, each banking
 * day it crosses. The bank here returns the debits of the payments the test names (R01) two
 * banking days after their file's effective date; the others settle.
 */

/** Wednesday 10 December 2025 at 20:00 UTC (15:00 New York): a loan booked then has its first installment due on Saturday 10 January. */
const BOOKING = new Date('2025-12-10T20:00:00.000Z')

const bench = () => {
  const seal = fakeAccountSeal()
  const servicing = setup(debitsLater(), { accountSeal: seal })
  const testClocks = inMemoryTestClockRepository()
  const clocked = new Set<string>()
  const parties = { partyOfLoan: (loanId: string) => servicing.loans.all().find((l) => l.loan.id === loanId)?.loan.partyId, onClock: (partyId: string) => clocked.has(partyId) }
  const store = inMemoryAchOriginations(() => servicing.loans.allPayments(), servicing.paymentMethods, { next: 1 }, parties)
  /** The files the bank received, by name. */
  const received = new Map<string, AchFileContents>()
  /** How many puts are to fail before the sink takes files. */
  const outage = { puts: 0 }
  const sink: AchFileSink = {
    put: (name, bytes) =>
      outage.puts-- > 0
        ? TE.left({ _tag: 'SinkUnavailable', cause: new Error('the bank connection is down') })
        : TE.fromIO(() => {
            received.set(name, JSON.parse(new TextDecoder().decode(bytes)) as AchFileContents)
          }),
  }
  const taken = new Set<string>()
  /** The payments the bank returns. */
  const returning = new Set<string>()
  /** The bank's answers to `partyId`'s files (named after the party), due by `day`. */
  const inboxOf = (partyId: PartyId): AchInbox => ({
    arrivedBy: (day, limit) =>
      TE.fromIO(() =>
        [...received.entries()]
          .filter(([name]) => name.startsWith(`${partyId}-`))
          .flatMap(([name, contents]): ArrivedAchFile[] => {
            const returned = contents.debits.filter((d) => returning.has(d.paymentId))
            const on = calendar.addBankingDays(contents.effectiveEntryDate, 2)
            const answer = `${name}.returns`
            return returned.length === 0 || on > day || taken.has(answer)
              ? []
              : [{ name: answer, bytes: fileOf({ returns: returned.map((d, i) => ({ record: 3 + i, originalTrace: d.traceNumber, returnCode: 'R01', amount: d.amount })) }), arrivedOn: on, receipt: name }]
          })
          .slice(0, limit),
      ),
    take: (file) => TE.fromIO(() => void taken.add(file.name)),
  })
  const origination: OriginationDeps = { ...servicing.deps, accountSeal: seal, originations: store, format: jsonFormat, sink, calendar }
  const ingestion: IngestionDeps = { ...origination, loans: servicing.loans, inbound: inMemoryAchInbound(), inboundFormat: jsonInbound, paymentMethods: servicing.paymentMethods, accountSeal: seal }
  const audit = inMemoryAuditLog()
  const advance = advanceClaimedClock({ testClocks, loans: servicing.loans, audit, ids: servicing.ids, clock: servicing.clock, rails: { origination, ingestion, inboxOf } })
  /** Puts the caller's party on a clock frozen at `frozen` and sends it to `to`, then works the advance to its end. */
  const clockOf = async (frozen: Date): Promise<TestClock> => {
    const clock: TestClock = { id: testId('00000000-0000-4000-8000-00000000c10c'), partyId: caller.partyId, name: null, frozenTime: frozen, advancingTo: null, createdAt: frozen }
    right(await testClocks.insert(clock)())
    clocked.add(caller.partyId)
    return clock
  }
  const advanceTo = async (clock: TestClock, to: Date) => {
    const started = some(testClocks.startAdvance(clock.id, to))
    expect((await started).advancingTo).to.deep.equal(to)
    const worked = await advance()()
    expect(E.isRight(worked) && O.isSome(worked.right) && worked.right.value.frozenTime).to.deep.equal(to)
  }
  /** Sends the clock to `to` and works the advance once: how that attempt ended, and where the clock stands. */
  const attemptAdvance = async (clock: TestClock, to: Date) => {
    await testClocks.startAdvance(clock.id, to)()
    const worked = await advance()()
    return { worked, clock: some(testClocks.findForParty(clock.partyId)) }
  }
  const payment = (id: string) => some(servicing.loans.payments.paymentById(testId(id)))
  const originate = async (runKey: string) => right(await runLeasedJob({ leases: inMemoryJobLeases(), clock: servicing.clock })(achOriginationJob(origination)(runKey), { runKey, holder: 'test', leaseMs: 60_000, stopping: () => false })())
  /** The caller's party on a clock frozen at `BOOKING`, a loan booked then, and its bank account (the default). */
  const clockedLoan = async () => {
    servicing.clock.set(BOOKING)
    const clock = await clockOf(BOOKING)
    const { loan } = servicing.book()
    return { clock, loan, bank: await servicing.addMethod(loan.id) }
  }
  return { ...servicing, store, received, clockOf, clockedLoan, advanceTo, attemptAdvance, clocked, returning, payment, originate, outage }
}

describe("a party's ACH debits on its test clock", () => {
  it('cuts them into its own files in the clock’s time, returns the one the bank returns (its installment past due again), and settles the other', async () => {
    const b = bench()
    const { clock, loan, bank } = await b.clockedLoan()
    // Monday 5 January 2026, in the clock's time: the borrower pays the installment (returned later) and 100.00 (settles).
    const monday = new Date('2026-01-05T20:00:00.000Z')
    await b.advanceTo(clock, monday)
    b.clock.set(monday)
    const installment = right(await b.pay(loan.id, bank, loan.paymentAmount, 'installment'))
    const settling = right(await b.pay(loan.id, bank, 10_000, 'settling'))
    b.returning.add(installment.id)
    for (const p of [installment, settling]) expect(p.status).to.equal('PENDING')
    // The advance's real time is later than the clock's: only the clock's time dates what it does.
    b.clock.set(new Date('2026-06-01T00:00:00.000Z'))
    // Tuesday 6 January: the party's cut-off puts both in its own file, effective Wednesday 7.
    await b.advanceTo(clock, new Date('2026-01-06T20:00:00.000Z'))
    expect(b.received.size).to.equal(1)
    const [[name, contents]] = [...b.received.entries()] as [[string, AchFileContents]]
    expect(name.startsWith(`${caller.partyId}-`)).to.equal(true)
    expect([contents.creationDate, contents.effectiveEntryDate, contents.debits.map((d) => d.paymentId).sort()]).to.deep.equal(['2026-01-06', '2026-01-07', [installment.id, settling.id].sort()])
    expect(await b.payment(installment.id)).to.deep.include({ status: 'SUBMITTED', effectiveDate: '2026-01-06' })
    expect((await b.stored(loan.id)).installments[0]).to.deep.include({ dueDate: '2026-01-10', principalPaid: (await b.stored(loan.id)).installments[0]!.principalDue })

    // Friday 16 January: the bank returned the installment on Friday 9 (E + 2 banking days), before it fell due; the other settled that evening.
    await b.advanceTo(clock, new Date('2026-01-16T20:00:00.000Z'))
    expect(await b.payment(installment.id)).to.deep.include({ status: 'RETURNED', returnCode: 'R01', returnedOn: '2026-01-09' })
    expect(await b.payment(settling.id)).to.deep.include({ status: 'SETTLED' })
    const after = await b.stored(loan.id)
    // What stays paid of the first installment is the settled 100.00 alone.
    const [first] = after.installments
    expect([first!.dueDate, first!.principalPaid + first!.interestPaid + first!.feesPaid]).to.deep.equal(['2026-01-10', 10_000])
    expect(daysPastDue(after.loan, '2026-01-16')).to.equal(6)
    expect(b.received.size).to.equal(1)
    await b.expectConsistent(loan.id)
  })

  it("debits an opted-in loan's installment on the clock's last cut-off before it falls due, and a return makes it past due again", async () => {
    const b = bench()
    const { clock, loan } = await b.clockedLoan()
    right(await setLoanAutopayForParty({ ...b.deps, debitsAutopay: true })(caller, { partyId: caller.partyId, loanId: loan.id, enabled: true })())
    b.clock.set(new Date('2026-06-01T00:00:00.000Z'))
    // Thursday 8 January: that day's file is effective Friday 9, before the installment falls due: nothing is cut.
    await b.advanceTo(clock, new Date('2026-01-08T22:00:00.000Z'))
    expect(b.received.size).to.equal(0)
    // Friday 9 January: the party's cut-off takes the installment, in a file effective Monday 12.
    await b.advanceTo(clock, new Date('2026-01-09T22:00:00.000Z'))
    const [[name, contents]] = [...b.received.entries()] as [[string, AchFileContents]]
    expect(name.startsWith(`${caller.partyId}-`)).to.equal(true)
    const [debit, ...more] = b.loans.allPayments().filter((p) => p.idempotencyKey === `autopay ${loan.id} 2026-01-10`)
    expect(more).to.deep.equal([])
    expect([contents.creationDate, contents.effectiveEntryDate, contents.debits.map((d) => [d.paymentId, d.amount])]).to.deep.equal(['2026-01-09', '2026-01-12', [[debit!.id, debit!.amount]]])
    expect(await b.payment(debit!.id)).to.deep.include({ status: 'SUBMITTED', createdAt: new Date('2026-01-09T20:30:00.000Z') })
    // The bank returns it on Wednesday 14 (E + 2 banking days): the installment is past due again.
    b.returning.add(debit!.id)
    await b.advanceTo(clock, new Date('2026-01-16T20:00:00.000Z'))
    expect(await b.payment(debit!.id)).to.deep.include({ status: 'RETURNED', returnCode: 'R01', returnedOn: '2026-01-14' })
    expect(daysPastDue((await b.stored(loan.id)).loan, '2026-01-16')).to.equal(6)
    expect([b.received.size, b.loans.allPayments().filter((p) => p.idempotencyKey.startsWith('autopay ')).length]).to.deep.equal([1, 1])
    await b.expectConsistent(loan.id)
  })

  it('resumes a day whose file could not be written, on the next attempt: the same file once, each debit submitted once', async () => {
    const b = bench()
    const { clock, loan, bank } = await b.clockedLoan()
    const debit = right(await b.pay(loan.id, bank, 10_000, 'debit'))
    b.outage.puts = 1
    const realNow = new Date('2026-06-01T00:00:00.000Z')
    b.clock.set(realNow)
    // A one-day advance: the resumed step is the one that must finish the file.
    const thursday = new Date('2025-12-11T20:00:00.000Z')
    const stopped = await b.attemptAdvance(clock, thursday)
    expect(E.isLeft(stopped.worked)).to.equal(true)
    // Thursday 11 December's step stopped at the write: the clock waits before it, the debit already posted.
    expect((await stopped.clock).frozenTime).to.deep.equal(BOOKING)
    expect(await b.payment(debit.id)).to.deep.include({ status: 'SUBMITTED', effectiveDate: '2025-12-11' })
    expect(b.received.size).to.equal(0)
    // Once the lease has run out, the advance is taken up again and the day finished.
    b.clock.set(new Date(realNow.getTime() + 60_000))
    const resumed = await b.attemptAdvance(clock, thursday)
    expect(E.isRight(resumed.worked)).to.equal(true)
    expect((await resumed.clock).frozenTime).to.deep.equal(thursday)
    expect([...b.received.values()].map((c) => [c.creationDate, c.debits.map((d) => d.paymentId)])).to.deep.equal([['2025-12-11', [debit.id]]])
    expect(b.store.entries().map((e) => [e.paymentId, e.status])).to.deep.equal([[debit.id, 'sent']])
    expect((await b.stored(loan.id)).transactions.filter((t) => t.type === 'PAYMENT')).to.have.length(1)
  })

  it("leaves a clocked party's debits out of the world's cut-offs", async () => {
    const b = bench()
    const { loan, bank } = await b.clockedLoan()
    const debit = right(await b.pay(loan.id, bank, 10_000, 'clocked'))
    b.clock.set(new Date('2025-12-10T22:00:00.000Z'))
    expect(await b.originate('2025-12-10T15:30')).to.deep.equal({ _tag: 'Completed', resumed: false })
    expect(await b.payment(debit.id)).to.deep.include({ status: 'PENDING' })
    expect(b.store.entries()).to.deep.equal([])
  })
})
