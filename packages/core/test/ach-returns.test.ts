import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { SYSTEM } from '../src/domain/audit/audit-event.js'
import { invalidRequest, invalidState, storeUnavailable } from '../src/domain/foundations/errors.js'
import { daysPastDue } from '../src/domain/loans/loan.js'
import type { Payment } from '../src/domain/loans/payment.js'
import type { InboundNotice, InboundOther } from '../src/ports/ach-inbound.js'
import { ingestAchFile, type IngestionDeps } from '../src/use-cases/ach/ingestion.js'
import { isLateReturn } from '../src/use-cases/ach/returns.js'
import { chargeOffLoan } from '../src/use-cases/servicing/charge-off-loan.js'
import { fileOf, returnOf, trace } from './fixtures/ach.js'
import { calendar, inboundBench } from './fixtures/ach-bench.js'
import { at, right, run, some } from './fixtures/servicing.js'

/**
 * Inbound return files (docs/ach.md "Returns and notices of change", `ingestAchFile`) over the
 * in-memory stores: debits taken, cut into a file by the origination job, then returned by a file
 * the bank sends back, read by a tiny JSON format.
 */

/** A sink that keeps nothing: the outbound files are ach-origination.test.ts's concern. */
const UNKNOWN_TRACE = '999999999999999'

const bench = () => {
  const base = inboundBench()
  const { seal, inbound, originate, payment, entry } = base
  const servicing = base
  /** What a return that changes nothing must leave as it was. */
  const world = async (loanId: string) => ({
    written: await servicing.written(loanId),
    events: servicing.eventLog.all().length,
    audit: servicing.applications.audit.all().length,
    payments: servicing.loans.allPayments(),
    methods: servicing.paymentMethods.all(),
    returns: inbound.returns(),
  })

  /**
   * A loan booked today with a bank account, and `amounts` debited from it, all cut into
   * Thursday 15 January 2026's 15:30 file (effective Friday 16 January): entries trace(1), trace(2)…
   */
  const submitted = async (amounts: readonly number[]) => {
    const { loan } = servicing.book()
    const bank = await servicing.addMethod(loan.id)
    const debits: Payment[] = []
    for (const [i, amount] of amounts.entries()) debits.push(right(await servicing.pay(loan.id, bank, amount, `debit-${i + 1}`)))
    servicing.clock.set(new Date('2026-01-15T21:00:00.000Z'))
    expect(await originate('2026-01-15T15:30')).to.deep.equal({ _tag: 'Completed', resumed: false })
    for (const [i, debit] of debits.entries()) {
      expect(await payment(debit.id)).to.deep.include({ status: 'SUBMITTED', effectiveDate: '2026-01-15' })
      expect(await entry(trace(i + 1))).to.deep.include({ paymentId: debit.id, status: 'sent', submittedOn: '2026-01-16' })
    }
    return { loan, bank, debits }
  }

  return { ...base, world, submitted }
}

describe('ACH returns (docs/ach.md "Returns and notices of change")', () => {
  describe('a return of a submitted debit', () => {
    it('returns the payment, reverses its posting, puts the installment it paid past due again, and reports it applied', async () => {
      const { book, addMethod, pay, clock, originate, ingest, payment, entry, method, stored, latest, eventLog, applications, inbound, paymentMethods, expectConsistent } = bench()
      // Booked on 10 December 2025: the first installment falls due on Saturday 10 January.
      clock.set(at('2025-12-10'))
      const { loan } = book()
      const bank = await addMethod(loan.id)
      // Monday 12 January: the borrower, 2 days late, pays the installment; cut into that day's file (effective Tuesday 13).
      clock.set(at('2026-01-12'))
      const debit = right(await pay(loan.id, bank, loan.paymentAmount, 'installment-1'))
      clock.set(new Date('2026-01-12T21:00:00.000Z'))
      expect(await originate('2026-01-12T15:30')).to.deep.equal({ _tag: 'Completed', resumed: false })
      const posted = await payment(debit.id)
      expect(posted).to.deep.include({ status: 'SUBMITTED', effectiveDate: '2026-01-12' })
      expect(await entry(trace(1))).to.deep.include({ paymentId: debit.id, status: 'sent', submittedOn: '2026-01-13' })
      const paid = await stored(loan.id)
      expect(paid.installments[0]).to.deep.include({ dueDate: '2026-01-10', principalPaid: paid.installments[0]!.principalDue, interestPaid: paid.installments[0]!.interestDue })
      expect(paid.loan.oldestUnpaidDueDate).to.equal('2026-02-10')
      expect((await latest(loan.id)).pastDueAmount).to.equal(0)
      const ledgerBefore = paid.transactions.length

      // Wednesday 14 January: the bank returns it R01 (insufficient funds), within its window.
      clock.set(at('2026-01-14'))
      const context = { actor: SYSTEM, requestId: 'req-ach-1' }
      const file = right(await ingest({ returns: [returnOf(3, trace(1), 'R01', loan.paymentAmount)] }, {}, context))
      expect(file.status).to.equal('ingested')
      expect(file.receivedAt).to.deep.equal(at('2026-01-14'))
      expect(file.report).to.deep.equal({
        returns: [{ record: 3, originalTrace: trace(1), returnCode: 'R01', amount: loan.paymentAmount, paymentId: debit.id, clientId: debit.clientId, outcome: 'applied', late: false }],
        notices: [],
        others: [],
      })

      const returned = await payment(debit.id)
      expect(returned).to.deep.equal({ ...posted, status: 'RETURNED', returnCode: 'R01', returnedOn: '2026-01-14' })
      // A REVERSAL undoes its PAYMENT entry, dated the day of the return.
      const after = await stored(loan.id)
      const reversals = after.transactions.slice(ledgerBefore).filter((t) => t.type === 'REVERSAL')
      expect(reversals.map((t) => [t.effectiveDate, t.amount, t.paymentId, t.reversesId])).to.deep.equal([['2026-01-14', loan.paymentAmount, debit.id, posted.transactionId]])
      // The installment it paid owes again, and the loan is 4 days past due.
      expect(after.installments[0]).to.deep.include({ dueDate: '2026-01-10', principalPaid: 0, interestPaid: 0, feesPaid: 0 })
      expect(after.loan.oldestUnpaidDueDate).to.equal('2026-01-10')
      expect(daysPastDue(after.loan, '2026-01-14')).to.equal(4)
      expect((await latest(loan.id)).pastDueAmount).to.equal(loan.paymentAmount)

      const [returnedEvent, delinquency] = eventLog.all().slice(-2)
      expect(returnedEvent).to.deep.include({ type: 'payment.returned', resourceId: debit.id, loanId: loan.id, previous: { status: 'SUBMITTED' } })
      expect(returnedEvent!.data).to.deep.include({ status: 'RETURNED', return_code: 'R01', amount: loan.paymentAmount })
      expect(delinquency).to.deep.include({ type: 'loan.delinquency_changed', resourceId: loan.id, previous: { days_past_due: 0, delinquency_bucket: 'CURRENT' } })
      expect(delinquency!.data).to.deep.include({ days_past_due: 4, delinquency_bucket: 'DPD_1_30' })

      const audited = applications.audit.all().filter((e) => e.action === 'payment.returned')
      expect(audited.map((e) => [e.actor, e.requestId, e.subject, e.apiClientId, e.partyId, e.details])).to.deep.equal([
        [
          SYSTEM,
          'req-ach-1',
          { type: 'payment', id: debit.id },
          debit.clientId,
          loan.partyId,
          { loan_id: loan.id, amount: loan.paymentAmount, currency: 'USD', return_code: 'R01', inbound_file_id: file.id, reversal_transaction_id: reversals[0]!.id },
        ],
      ])

      expect((await entry(trace(1))).status).to.equal('returned')
      expect(inbound.returns()).to.deep.equal([
        {
          id: inbound.returns()[0]!.id,
          inboundFileId: file.id,
          record: 3,
          originalTrace: trace(1),
          returnCode: 'R01',
          category: 'other',
          amount: loan.paymentAmount,
          paymentId: debit.id,
          clientId: debit.clientId,
          receivedOn: '2026-01-14',
          outcome: 'applied',
          late: false,
        },
      ])
      // R01 does not forbid debiting the account again.
      expect(method(bank.id).status).to.equal('active')
      expect(O.isSome(await run(paymentMethods.sealedAccount(bank.id)))).to.equal(true)
      // The ledger, the latest balance and the rules' replay without the payment agree.
      await expectConsistent(loan.id)
    })

    it('changes nothing when the same file is ingested again: it answers the record it stored', async () => {
      const { clock, ingest, submitted, world, opened, inbound } = bench()
      const { loan, debits } = await submitted([40_000])
      clock.set(at('2026-01-16'))
      const bytes = fileOf({ returns: [returnOf(3, trace(1), 'R01', 40_000)] })
      const first = right(await ingest(bytes))
      expect(first.report?.returns.map((r) => [r.paymentId, r.outcome])).to.deep.equal([[debits[0]!.id, 'applied']])
      const before = await world(loan.id)

      clock.set(at('2026-01-20'))
      const again = right(await ingest(bytes))
      expect(again).to.deep.equal(first)
      expect(again).to.deep.include({ id: first.id, status: 'ingested' })
      expect(await world(loan.id)).to.deep.equal(before)
      expect(inbound.returns().map((r) => [r.inboundFileId, r.outcome])).to.deep.equal([[first.id, 'applied']])
      expect(opened).to.have.length(2)
      expect(opened[0]).to.equal(opened[1])
      expect(await run(inbound.findFile(first.id))).to.deep.equal(O.some(first))
    })

    it('reports duplicate, changing nothing, for a second file returning the same entry', async () => {
      const { clock, ingest, submitted, world, payment, inbound } = bench()
      const { loan, debits } = await submitted([40_000])
      clock.set(at('2026-01-16'))
      const first = right(await ingest({ returns: [returnOf(3, trace(1), 'R01', 40_000)] }))
      const before = await world(loan.id)

      clock.set(at('2026-01-20'))
      const second = right(await ingest({ returns: [returnOf(3, trace(1), 'R01', 40_000)], batch: 'resent' }))
      expect(second.id).to.not.equal(first.id)
      expect(second.sha256).to.not.equal(first.sha256)
      expect(second.report?.returns).to.deep.equal([
        { record: 3, originalTrace: trace(1), returnCode: 'R01', amount: 40_000, paymentId: debits[0]!.id, clientId: debits[0]!.clientId, outcome: 'duplicate', late: false },
      ])
      expect(await world(loan.id)).to.deep.equal(before)
      expect(inbound.returns().map((r) => [r.inboundFileId, r.returnCode, r.outcome])).to.deep.equal([[first.id, 'R01', 'applied']])
      expect(await payment(debits[0]!.id)).to.deep.include({ status: 'RETURNED', returnCode: 'R01', returnedOn: '2026-01-16' })
    })

    it('applies one return of an entry a file names twice: the second is a duplicate that changes nothing', async () => {
      const { clock, ingest, submitted, method, inbound } = bench()
      const { bank } = await submitted([40_000])
      clock.set(at('2026-01-16'))
      const file = right(await ingest({ returns: [returnOf(3, trace(1), 'R01', 40_000), returnOf(5, trace(1), 'R02', 40_000)] }))
      expect(file.report?.returns.map((r) => [r.record, r.returnCode, r.outcome])).to.deep.equal([
        [3, 'R01', 'applied'],
        [5, 'R02', 'duplicate'],
      ])
      expect(inbound.returns().map((r) => [r.record, r.returnCode])).to.deep.equal([[3, 'R01']])
      // R02 would block the method: as a duplicate it changes nothing.
      expect(method(bank.id).status).to.equal('active')
    })

    // The code the payment was returned with decides the block, not a later file's.
    it('changes nothing for a duplicate return whose code (R02) blocks, when the first (R01) did not', async () => {
      const { clock, ingest, submitted, world, method } = bench()
      const { loan, bank } = await submitted([40_000])
      clock.set(at('2026-01-16'))
      right(await ingest({ returns: [returnOf(3, trace(1), 'R01', 40_000)] }))
      const before = await world(loan.id)
      const second = right(await ingest({ returns: [returnOf(3, trace(1), 'R02', 40_000)] }))
      expect(second.report?.returns.map((r) => r.outcome)).to.deep.equal(['duplicate'])
      expect(method(bank.id).status).to.equal('active')
      expect(await world(loan.id)).to.deep.equal(before)
    })

    it('finishes a file whose ingestion stopped after applying a return, recording it once as applied', async () => {
      const { clock, ingest, submitted, payment, entry, method, stored, eventLog, inbound, paymentMethods, expectConsistent } = bench()
      const { loan, bank, debits } = await submitted([40_000])
      clock.set(at('2026-01-16'))
      const bytes = fileOf({ returns: [returnOf(3, trace(1), 'R02', 40_000)] })
      // The payment is returned and the return recorded, then blocking its method fails: the run stops there.
      let failures = 1
      const failingBlock: IngestionDeps['paymentMethods'] = { ...paymentMethods, block: (id, when) => (failures-- > 0 ? TE.left(storeUnavailable('connection reset')) : paymentMethods.block(id, when)) }
      expect(await ingest(bytes, { paymentMethods: failingBlock })).to.deep.equal(E.left(storeUnavailable('connection reset')))
      expect((await payment(debits[0]!.id)).status).to.equal('RETURNED')
      expect(method(bank.id).status).to.equal('active')
      expect(inbound.returns().map((r) => r.outcome)).to.deep.equal(['applied'])
      const transactions = (await stored(loan.id)).transactions.length
      const events = eventLog.all().length

      const finished = right(await ingest(bytes, { paymentMethods: failingBlock }))
      expect(finished.status).to.equal('ingested')
      expect(finished.report?.returns.map((r) => [r.paymentId, r.outcome])).to.deep.equal([[debits[0]!.id, 'applied']])
      expect(method(bank.id).status).to.equal('blocked')
      expect((await entry(trace(1))).status).to.equal('returned')
      expect((await stored(loan.id)).transactions).to.have.length(transactions)
      expect(eventLog.all()).to.have.length(events)
      expect((await stored(loan.id)).transactions.filter((t) => t.type === 'REVERSAL')).to.have.length(1)
      expect(eventLog.all().filter((e) => e.type === 'payment.returned')).to.have.length(1)
      expect(inbound.returns().map((r) => [r.inboundFileId, r.outcome])).to.deep.equal([[finished.id, 'applied']])
      await expectConsistent(loan.id)
    })
  })

  describe('blocking the payment method', () => {
    it('blocks the method on R02: its numbers serve no new debit, a new payment is refused, the pending one fails at submission', async () => {
      const { clock, ingest, submitted, pay, originate, payment, method, paymentMethods, inbound, expectConsistent } = bench()
      const { loan, bank, debits } = await submitted([50_000])
      clock.set(at('2026-01-16'))
      // Taken before the return comes: pending, for the next cut-off.
      const pending = right(await pay(loan.id, bank, 20_000, 'pending'))
      expect(pending.status).to.equal('PENDING')
      clock.set(new Date('2026-01-16T14:00:00.000Z'))
      const file = right(await ingest({ returns: [returnOf(3, trace(1), 'R02', 50_000)] }))
      expect(file.report?.returns.map((r) => [r.paymentId, r.returnCode, r.outcome])).to.deep.equal([[debits[0]!.id, 'R02', 'applied']])
      expect(inbound.returns().map((r) => r.category)).to.deep.equal(['administrative'])
      expect((await payment(debits[0]!.id)).status).to.equal('RETURNED')

      expect(method(bank.id)).to.deep.include({ status: 'blocked', updatedAt: new Date('2026-01-16T14:00:00.000Z') })
      expect(await run(paymentMethods.sealedAccount(bank.id))).to.deep.equal(O.none)
      expect(await pay(loan.id, bank, 10_000, 'after-block')).to.deep.equal(E.left(invalidState('payment_method', 'blocked', 'charge')))
      // The debit taken before the block fails at the next cut-off: its account no longer opens.
      clock.set(new Date('2026-01-16T21:00:00.000Z'))
      expect(await originate('2026-01-16T15:30')).to.deep.equal({ _tag: 'Completed', resumed: false })
      expect(await payment(pending.id)).to.deep.include({ status: 'FAILED', failureCode: 'payment_method_unusable' })
      await expectConsistent(loan.id)
    })

    it('blocks for every blocking code and for none other', async () => {
      const blocking = ['R02', 'R03', 'R04', 'R05', 'R07', 'R08', 'R10', 'R11', 'R16', 'R29', 'R51']
      const others = ['R01', 'R06', 'R09', 'R20']
      for (const code of [...blocking, ...others]) {
        const { clock, ingest, submitted, method } = bench()
        const { bank } = await submitted([10_000])
        clock.set(at('2026-01-16'))
        const file = right(await ingest({ returns: [returnOf(3, trace(1), code, 10_000)] }))
        expect(file.report?.returns.map((r) => r.outcome), code).to.deep.equal(['applied'])
        expect(method(bank.id).status, code).to.equal(blocking.includes(code) ? 'blocked' : 'active')
      }
    })
  })

  describe('a return of none of our debits', () => {
    it('records it unmatched, with no payment, beside the matched ones and the file\'s other entries', async () => {
      const { clock, ingest, submitted, inbound, world, payment } = bench()
      const { loan, debits } = await submitted([10_000, 20_000])
      clock.set(at('2026-01-16'))
      const others: InboundOther[] = [{ record: 9, traceNumber: '021000020000042', amount: 5_000 }]
      const file = right(await ingest({ returns: [returnOf(3, UNKNOWN_TRACE, 'R03', 12_345), returnOf(5, trace(2), 'R01', 20_000)], others }))
      expect(file.report).to.deep.equal({
        returns: [
          { record: 3, originalTrace: UNKNOWN_TRACE, returnCode: 'R03', amount: 12_345, paymentId: null, clientId: null, outcome: 'unmatched', late: false },
          { record: 5, originalTrace: trace(2), returnCode: 'R01', amount: 20_000, paymentId: debits[1]!.id, clientId: debits[1]!.clientId, outcome: 'applied', late: false },
        ],
        notices: [],
        others,
      })
      expect(inbound.returns().map((r) => [r.originalTrace, r.category, r.paymentId, r.outcome, r.inboundFileId])).to.deep.equal([
        [UNKNOWN_TRACE, 'administrative', null, 'unmatched', file.id],
        [trace(2), 'other', debits[1]!.id, 'applied', file.id],
      ])
      expect((await payment(debits[0]!.id)).status).to.equal('SUBMITTED')
      // An unmatched trace returned again (another file) is a duplicate, changing nothing.
      const before = await world(loan.id)
      const again = right(await ingest({ returns: [returnOf(4, UNKNOWN_TRACE, 'R03', 12_345)] }))
      expect(again.report?.returns.map((r) => [r.paymentId, r.outcome])).to.deep.equal([[null, 'duplicate']])
      expect(await world(loan.id)).to.deep.equal(before)
    })

    it('records not_sent, changing no payment, a return naming an entry claimed but never sent', async () => {
      const { book, addMethod, pay, clock, originate, ingest, payment, entry, eventLog } = bench()
      const { loan } = book()
      const debit = right(await pay(loan.id, await addMethod(loan.id), 25_000, 'debit'))
      clock.set(new Date('2026-01-15T21:00:00.000Z'))
      // Stopped after its claim (the file opened, its autopay debits taken, the claim): the entry has its trace number, the payment is still PENDING.
      expect(await originate('2026-01-15T15:30', 3)).to.deep.equal({ _tag: 'Stopped' })
      expect(await entry(trace(1))).to.deep.include({ paymentId: debit.id, status: 'claimed' })
      const events = eventLog.all().length
      const file = right(await ingest({ returns: [returnOf(3, trace(1), 'R01', 25_000)] }))
      expect(file.report?.returns.map((r) => [r.paymentId, r.outcome, r.late])).to.deep.equal([[debit.id, 'not_sent', false]])
      expect((await payment(debit.id)).status).to.equal('PENDING')
      expect((await entry(trace(1))).status).to.equal('claimed')
      expect(eventLog.all()).to.have.length(events)
    })
  })

  describe('late returns (docs/ach.md "Late returns")', () => {
    it('applies returns of settled payments, flagged late outside their window only', async () => {
      const { clock, settle, ingest, submitted, payment, stored, eventLog, inbound, expectConsistent } = bench()
      const { loan, debits } = await submitted([10_000, 20_000, 30_000])
      const [a, b, c] = debits as [Payment, Payment, Payment]
      // Effective Friday 16 January; Monday 19 is a holiday: settled at the end of Wednesday 21.
      clock.set(new Date('2026-01-21T23:00:00.000Z'))
      expect(await settle('2026-01-21T21:00')).to.deep.include({ _tag: 'Completed' })
      for (const debit of debits) expect((await payment(debit.id)).status).to.equal('SETTLED')

      // Thursday 22 January: R01's two banking days have passed.
      clock.set(at('2026-01-22'))
      const late = right(await ingest({ returns: [returnOf(3, trace(1), 'R01', 10_000)] }))
      expect(late.report?.returns.map((r) => [r.paymentId, r.outcome, r.late])).to.deep.equal([[a.id, 'applied', true]])
      expect(await payment(a.id)).to.deep.include({ status: 'RETURNED', returnCode: 'R01', returnedOn: '2026-01-22' })
      expect(eventLog.all().filter((e) => e.type === 'payment.returned').map((e) => [e.resourceId, e.previous])).to.deep.equal([[a.id, { status: 'SETTLED' }]])

      // R10 (unauthorized, consumer) may come until the banking day after the 60th day: 16 January + 60 = Tuesday 17 March; Wednesday 18 is in time.
      clock.set(at('2026-03-18'))
      const extended = right(await ingest({ returns: [returnOf(3, trace(2), 'R10', 20_000)] }))
      expect(extended.report?.returns.map((r) => [r.paymentId, r.outcome, r.late])).to.deep.equal([[b.id, 'applied', false]])
      expect(await payment(b.id)).to.deep.include({ status: 'RETURNED', returnCode: 'R10', returnedOn: '2026-03-18' })
      // Thursday 19 is too late even for an extended code; applied all the same.
      clock.set(at('2026-03-19'))
      const tooLate = right(await ingest({ returns: [returnOf(3, trace(3), 'R05', 30_000)] }))
      expect(tooLate.report?.returns.map((r) => [r.paymentId, r.outcome, r.late])).to.deep.equal([[c.id, 'applied', true]])
      expect((await payment(c.id)).status).to.equal('RETURNED')
      expect(inbound.returns().map((r) => [r.returnCode, r.category, r.late, r.receivedOn])).to.deep.equal([
        ['R01', 'other', true, '2026-01-22'],
        ['R10', 'unauthorized', false, '2026-03-18'],
        ['R05', 'unauthorized', true, '2026-03-19'],
      ])
      // Three REVERSALs; the ledger, the latest balance and the replay without the three agree.
      expect((await stored(loan.id)).transactions.filter((t) => t.type === 'REVERSAL').map((t) => t.paymentId)).to.deep.equal([a.id, b.id, c.id])
      await expectConsistent(loan.id)
    })

    it('isLateReturn: two banking days from the effective date, or the extended window of R05, R07, R10, R11, R51', () => {
      // Effective Friday 16 January 2026; Monday 19 is a holiday.
      expect(isLateReturn(calendar, 'R01', '2026-01-16', '2026-01-21')).to.equal(false)
      expect(isLateReturn(calendar, 'R01', '2026-01-16', '2026-01-22')).to.equal(true)
      // R29 is corporate: the two-day window.
      expect(isLateReturn(calendar, 'R29', '2026-01-16', '2026-01-22')).to.equal(true)
      for (const code of ['R05', 'R07', 'R10', 'R11', 'R51']) {
        expect(isLateReturn(calendar, code, '2026-01-16', '2026-03-18'), code).to.equal(false)
        expect(isLateReturn(calendar, code, '2026-01-16', '2026-03-19'), code).to.equal(true)
      }
      // Effective Friday 2 January: day 60 is Tuesday 3 March, in time until Wednesday 4.
      expect(isLateReturn(calendar, 'R10', '2026-01-02', '2026-03-04')).to.equal(false)
      expect(isLateReturn(calendar, 'R10', '2026-01-02', '2026-03-05')).to.equal(true)
    })
  })

  describe('a file refused', () => {
    it('refuses a file the format cannot read, naming the record and field, and records nothing', async () => {
      const { clock, ingest, submitted, world, opened, inbound, payment } = bench()
      const { loan, debits } = await submitted([10_000])
      clock.set(at('2026-01-16'))
      const before = await world(loan.id)
      const refused = await ingest({ returns: [returnOf(3, trace(1), 'R01', 10_000)], unreadable: { record: 3, field: 'amount', reason: 'not a number: 12x4' } })
      expect(refused).to.deep.equal(E.left(invalidRequest('The file is refused at record 3, amount: not a number: 12x4. Nothing was applied.', 'file')))
      expect(await ingest(new TextEncoder().encode('not json'))).to.deep.equal(E.left(invalidRequest('The file is refused at record 1, record type: not JSON. Nothing was applied.', 'file')))
      expect(opened).to.deep.equal([])
      expect(inbound.returns()).to.deep.equal([])
      expect(await world(loan.id)).to.deep.equal(before)
      expect((await payment(debits[0]!.id)).status).to.equal('SUBMITTED')
    })

    it('refuses a file holding a notice of change without the seal to correct accounts with, applying none of its returns', async () => {
      const { clock, ingest, submitted, world, opened, inbound, payment, entry } = bench()
      const { loan, debits } = await submitted([10_000])
      clock.set(at('2026-01-16'))
      const before = await world(loan.id)
      const notice: InboundNotice = { record: 7, originalTrace: trace(1), changeCode: 'C01', correction: E.right({ accountNumber: '000987654321' }) }
      const refused = await ingest({ returns: [returnOf(3, trace(1), 'R01', 10_000)], notices: [notice] }, { accountSeal: undefined })
      expect(refused).to.deep.equal(E.left(invalidRequest('Record 7 is a notice of change: applying it needs the key that seals account numbers (WEBHOOK_SECRET_KEY). Nothing was applied.', 'file')))
      expect(opened).to.deep.equal([])
      expect(inbound.returns()).to.deep.equal([])
      expect(inbound.notices()).to.deep.equal([])
      expect(await world(loan.id)).to.deep.equal(before)
      expect((await payment(debits[0]!.id)).status).to.equal('SUBMITTED')
      expect((await entry(trace(1))).status).to.equal('sent')
    })
  })

  describe('a return of a payment already undone or written off', () => {
    it('records already_reversed for a payment an operator reversed, leaving the ledger as it was', async () => {
      const { clock, settle, reverse, ingest, submitted, payment, entry, world, inbound } = bench()
      const { loan, debits } = await submitted([30_000])
      clock.set(new Date('2026-01-21T23:00:00.000Z'))
      expect(await settle('2026-01-21T21:00')).to.deep.include({ _tag: 'Completed' })
      clock.set(at('2026-01-22'))
      expect(right(await reverse(debits[0]!.id)).status).to.equal('REVERSED')
      const before = await world(loan.id)

      const file = right(await ingest({ returns: [returnOf(3, trace(1), 'R01', 30_000)] }))
      expect(file.report?.returns).to.deep.equal([
        { record: 3, originalTrace: trace(1), returnCode: 'R01', amount: 30_000, paymentId: debits[0]!.id, clientId: debits[0]!.clientId, outcome: 'already_reversed', late: true },
      ])
      const after = await world(loan.id)
      expect({ ...after, returns: [] }).to.deep.equal({ ...before, returns: [] })
      expect(inbound.returns().map((r) => [r.paymentId, r.outcome])).to.deep.equal([[debits[0]!.id, 'already_reversed']])
      const reversed = await payment(debits[0]!.id)
      expect(reversed.status).to.equal('REVERSED')
      expect(reversed.returnCode).to.equal(undefined)
      expect((await entry(trace(1))).status).to.equal('settled')
    })

    it('blocks the method of a payment an operator reversed when the return says the debit was not authorized', async () => {
      const { clock, settle, reverse, ingest, submitted, method } = bench()
      const { bank, debits } = await submitted([30_000])
      clock.set(new Date('2026-01-21T23:00:00.000Z'))
      expect(await settle('2026-01-21T21:00')).to.deep.include({ _tag: 'Completed' })
      clock.set(at('2026-01-22'))
      right(await reverse(debits[0]!.id))
      const file = right(await ingest({ returns: [returnOf(3, trace(1), 'R10', 30_000)] }))
      expect(file.report?.returns.map((r) => [r.outcome, r.late])).to.deep.equal([['already_reversed', false]])
      // Nacha forbids another debit of the account, whatever became of this one.
      expect(method(bank.id).status).to.equal('blocked')
    })

    it('returns a payment of a loan charged off since: reversed and written off at once, the loan still owing nothing (loan_charged_off)', async () => {
      const { deps, clock, ingest, submitted, payment, entry, stored, eventLog, applications, expectConsistent } = bench()
      const { loan, debits } = await submitted([30_000])
      clock.set(at('2026-01-16'))
      await run(chargeOffLoan(deps)({ loanId: loan.id, reason: 'fraud' }))
      const charged = await stored(loan.id)
      expect(charged.loan.status).to.equal('CHARGED_OFF')
      const events = eventLog.all().length

      const file = right(await ingest({ returns: [returnOf(3, trace(1), 'R01', 30_000)] }))
      expect(file.report?.returns.map((r) => [r.paymentId, r.outcome, r.late])).to.deep.equal([[debits[0]!.id, 'loan_charged_off', false]])
      expect(await payment(debits[0]!.id)).to.deep.include({ status: 'RETURNED', returnCode: 'R01', returnedOn: '2026-01-16' })
      const after = await stored(loan.id)
      const paidEntry = charged.transactions.find((t) => t.type === 'PAYMENT' && t.paymentId === debits[0]!.id)!
      const [reversal, writeOff, ...others] = after.transactions.slice(charged.transactions.length)
      expect(others).to.deep.equal([])
      // What the payment paid is owed again, then written off with the rest: the charge-off grows by it.
      expect(reversal).to.deep.include({ type: 'REVERSAL', paymentId: debits[0]!.id, reversesId: paidEntry.id, effectiveDate: '2026-01-16', amount: 30_000 })
      expect([reversal!.principal, reversal!.interest, reversal!.fees]).to.deep.equal([paidEntry.principal, paidEntry.interest, paidEntry.fees].map((n) => 0 - n))
      expect(writeOff).to.deep.include({ type: 'CHARGE_OFF', effectiveDate: '2026-01-16', amount: 30_000, principal: paidEntry.principal, interest: paidEntry.interest, fees: paidEntry.fees })
      expect(after.installments).to.deep.equal(charged.installments)
      expect(after.loan.status).to.equal('CHARGED_OFF')
      expect(eventLog.all().slice(events).map((e) => [e.type, e.resourceId, e.previous])).to.deep.equal([['payment.returned', debits[0]!.id, { status: 'SUBMITTED' }]])
      const [audited] = applications.audit.all().filter((e) => e.action === 'payment.returned')
      expect(audited?.details).to.deep.include({ return_code: 'R01', inbound_file_id: file.id, reversal_transaction_id: reversal!.id })
      expect((await entry(trace(1))).status).to.equal('returned')
      await expectConsistent(loan.id)
    })
  })
})
