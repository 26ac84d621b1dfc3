import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { bankingCalendar } from '../src/domain/ach/banking-days.js'
import type { Payment } from '../src/domain/loans/payment.js'
import type { AchFileContents } from '../src/ports/ach-file-format.js'
import type { AchFileSink } from '../src/ports/ach-file-sink.js'
import type { AchOriginations } from '../src/ports/ach-originations.js'
import type { LoanFailure } from '../src/ports/loan-failures.js'
import { achOriginationJob, type OriginationDeps } from '../src/use-cases/ach/origination.js'
import { achSettlementJob } from '../src/use-cases/ach/settlement.js'
import { runLeasedJob, type JobRunRequest, type SteppedJob } from '../src/use-cases/jobs/leased-job.js'
import { createPaymentMethodForPartyLoan } from '../src/use-cases/servicing/create-payment-method.js'
import { fakeAccountSeal, inMemoryAchOriginations, inMemoryJobLeases } from '../src/testing/index.js'
import { debitsLater, jsonFormat } from './fixtures/ach.js'
import { BANK, caller, CARD, colleague, right, run, setup, some, stranger, UNKNOWN_ID } from './fixtures/servicing.js'
import { deriveLoan } from '../src/lending/loan-servicing.js'
import { getLoanAutopayForParty, setLoanAutopayForParty } from '../src/use-cases/servicing/autopay.js'
import { nothing, settled } from '../src/use-cases/servicing/posting.js'

/**
 * The origination and settlement jobs (docs/ach.md "Origination job", "Settlement job") over the
 * in-memory stores: which payments go in which file, the file's contents, and a run interrupted at
 * every point finishing the same file once.
 */

/** A sink in memory that records every put, and can be made to fail the next ones. */
const recordingSink = () => {
  const files = new Map<string, Uint8Array>()
  const puts: { readonly name: string; readonly bytes: Uint8Array }[] = []
  let failures = 0
  const sink: AchFileSink = {
    put: (name, bytes) => () => {
      puts.push({ name, bytes })
      if (failures > 0) {
        failures -= 1
        return Promise.resolve(E.left({ _tag: 'SinkUnavailable', cause: new Error('disk full') }))
      }
      const there = files.get(name)
      if (there !== undefined && Buffer.compare(there, bytes) !== 0) return Promise.resolve(E.left({ _tag: 'FileNameTaken', name }))
      files.set(name, bytes)
      return Promise.resolve(E.right(undefined))
    },
  }
  return { sink, files, puts, failNext: (n: number) => void (failures = n) }
}

/** What a written file holds. */
const contentsOf = (bytes: Uint8Array): AchFileContents => JSON.parse(new TextDecoder().decode(bytes)) as AchFileContents

/** 2026: Monday 19 January is Martin Luther King Jr. Day. */
const calendar = bankingCalendar()

const bench = (options: { readonly originations?: (store: AchOriginations) => AchOriginations } = {}) => {
  const seal = fakeAccountSeal()
  const servicing = setup(debitsLater(), { accountSeal: seal })
  const store = inMemoryAchOriginations(() => servicing.loans.allPayments(), servicing.paymentMethods)
  const originations = options.originations?.(store) ?? store
  const output = recordingSink()
  /** The loans the runs skipped, and why. */
  const failed: LoanFailure[] = []
  const deps: OriginationDeps = { ...servicing.deps, accountSeal: seal, originations, format: jsonFormat, sink: output.sink, calendar, failures: { loanFailed: (failure) => void failed.push(failure) } }
  const leases = inMemoryJobLeases()
  const runJob = runLeasedJob({ leases, clock: servicing.clock })
  /** Runs `job` to its end, or stops it before step `stopAfter + 1`. */
  const attempt = <P>(job: SteppedJob<P>, runKey: string, stopAfter = Infinity) => {
    let steps = 0
    const request: JobRunRequest = { runKey, holder: 'test', leaseMs: 60_000, stopping: () => steps++ >= stopAfter }
    return runJob(job, request)()
  }
  /** The run's outcome, or why it failed. */
  const originate = async (runKey: string, stopAfter?: number) => {
    const outcome = await attempt(achOriginationJob(deps)(runKey), runKey, stopAfter)
    return E.isRight(outcome) ? outcome.right : outcome.left
  }
  const settle = (runKey: string) => attempt(achSettlementJob({ ...deps, originations: store })(runKey), runKey)
  const payment = async (id: Payment['id']) => {
    const found = await run(servicing.loans.payments.paymentById(id))
    if (O.isNone(found)) throw new Error(`payment ${id} is gone`)
    return found.value
  }
  /** Turns the autopay of the caller's loan `loanId` on, where ACH rails run. */
  const turnOnAutopay = async (loanId: string) => right(await setLoanAutopayForParty({ ...servicing.deps, debitsAutopay: true })(caller, { partyId: caller.partyId, loanId, enabled: true })())
  return { ...servicing, seal, store, output, originate, settle, payment, turnOnAutopay, failedLoans: () => [...failed] }
}

describe('ACH origination (docs/ach.md "Origination job")', () => {
  it('puts the payments taken before a cut-off in its file, effective the next banking day; later ones in the next file', async () => {
    const { book, addMethod, pay, clock, originate, output, payment, store, eventLog, expectConsistent } = bench()
    const { loan } = book()
    const bank = await addMethod(loan.id)
    // Thursday 15 January 2026, 05:00 in New York: before the 15:30 cut-off.
    const early = right(await pay(loan.id, bank, 100_000, 'debit-1'))
    clock.set(new Date('2026-01-15T21:00:00.000Z'))
    const late = right(await pay(loan.id, bank, 50_000, 'debit-2'))

    expect(await originate('2026-01-15T15:30')).to.deep.equal({ _tag: 'Completed', resumed: false })
    expect([...output.files.keys()]).to.deep.equal(['f-2026-01-15-A.ach'])
    expect(contentsOf(output.files.get('f-2026-01-15-A.ach')!)).to.deep.equal({
      effectiveEntryDate: '2026-01-16',
      creationDate: '2026-01-15',
      creationTime: '1530',
      fileIdModifier: 'A',
      debits: [{ paymentId: early.id, traceNumber: '123456780000001', secCode: 'CCD', routingNumber: BANK.routing_number, accountNumber: BANK.account_number, accountType: 'checking', amount: 100_000, name: 'Acme Corp' }],
    })
    // Posted the day its file was cut (decision 139), with its event.
    expect(await payment(early.id)).to.deep.include({ status: 'SUBMITTED', amount: 100_000, effectiveDate: '2026-01-15' })
    expect(eventLog.all().filter((e) => e.type === 'payment.submitted').map((e) => e.resourceId)).to.deep.equal([early.id])
    expect((await payment(late.id)).status).to.equal('PENDING')

    // Friday's file: effective Tuesday, Monday being a holiday.
    clock.set(new Date('2026-01-16T21:00:00.000Z'))
    expect(await originate('2026-01-16T15:30')).to.deep.equal({ _tag: 'Completed', resumed: false })
    const friday = contentsOf(output.files.get('f-2026-01-16-A.ach')!)
    expect([friday.effectiveEntryDate, friday.debits.map((d) => [d.paymentId, d.traceNumber, d.amount])]).to.deep.equal(['2026-01-20', [[late.id, '123456780000002', 50_000]]])
    expect((await payment(late.id)).status).to.equal('SUBMITTED')
    const entries = await Promise.all([early.id, late.id].map(async (id) => (await run(store.unsettled('2026-12-31', O.none, 10, null))).find((e) => e.paymentId === id)))
    expect(entries.map((e) => [e?.status, e?.submittedOn, e?.amount])).to.deep.equal([
      ['sent', '2026-01-16', 100_000],
      ['sent', '2026-01-20', 50_000],
    ])
    await expectConsistent(loan.id)
  })

  it('writes nothing for a cut-off with nothing to send, and a run repeated does nothing more', async () => {
    const { book, addMethod, pay, originate, output, payment } = bench()
    const { loan } = book()
    expect(await originate('2026-01-15T15:30')).to.deep.equal({ _tag: 'Completed', resumed: false })
    expect(output.puts).to.deep.equal([])
    const debit = right(await pay(loan.id, await addMethod(loan.id), 20_000, 'debit'))
    // Run key 2026-01-15T15:30 is complete: the payment waits for the next cut-off.
    expect(await originate('2026-01-15T15:30')).to.deep.equal({ _tag: 'NotDue' })
    expect((await payment(debit.id)).status).to.equal('PENDING')
  })

  it('fails, before any file, a debit whose account cannot be read, and leaves it out', async () => {
    const { book, pay, originate, output, payment, eventLog, ...servicing } = bench()
    const { loan } = book()
    // Added while no seal was configured: its numbers were never kept.
    const unsealed = await run(createPaymentMethodForPartyLoan({ ...servicing.deps, accountSeal: undefined })(caller, { partyId: caller.partyId, loanId: loan.id, ...BANK }))
    const debit = right(await pay(loan.id, unsealed, 20_000, 'debit'))
    expect(await originate('2026-01-15T15:30')).to.deep.equal({ _tag: 'Completed', resumed: false })
    expect(await payment(debit.id)).to.deep.include({ status: 'FAILED', failureCode: 'payment_method_unusable', allocation: null })
    expect(eventLog.all().at(-1)).to.deep.include({ type: 'payment.failed', resourceId: debit.id })
    expect(output.puts).to.deep.equal([])
  })

  it('finishes the same file once, with the same bytes, however often the run is interrupted', async () => {
    const uninterrupted = async (stops: readonly number[]) => {
      const { book, addMethod, pay, clock, originate, output, payment } = bench()
      const { loan } = book()
      const bank = await addMethod(loan.id)
      const payments = [right(await pay(loan.id, bank, 10_000, 'a')), right(await pay(loan.id, bank, 20_000, 'b')), right(await pay(loan.id, bank, 30_000, 'c'))]
      clock.set(new Date('2026-01-15T21:00:00.000Z'))
      for (const stopAfter of stops) expect(await originate('2026-01-15T15:30', stopAfter), `stopped after ${stopAfter}`).to.deep.equal({ _tag: 'Stopped' })
      expect(await originate('2026-01-15T15:30')).to.deep.include({ _tag: 'Completed' })
      return { files: [...output.files.entries()].map(([name, bytes]) => [name, new TextDecoder().decode(bytes)]), statuses: await Promise.all(payments.map(async (p) => (await payment(p.id)).status)) }
    }
    const once = await uninterrupted([])
    expect(once.statuses).to.deep.equal(['SUBMITTED', 'SUBMITTED', 'SUBMITTED'])
    expect(contentsOf(new TextEncoder().encode(once.files[0]![1]!)).debits.map((d) => d.amount)).to.deep.equal([10_000, 20_000, 30_000])
    // Stopped before each step in turn (open, claim, submit, build, write), and resumed.
    for (let stopAfter = 0; stopAfter <= 5; stopAfter += 1) {
      expect(await uninterrupted([stopAfter]), `stopped after ${stopAfter} steps`).to.deep.equal(once)
    }
    // Stopped after every step, each attempt resuming where the one before stopped.
    expect(await uninterrupted([1, 1, 1, 1, 1])).to.deep.equal(once)
  })

  it('resumes after a failed write or a failed record, writing one file and posting each payment once', async () => {
    let failMarkSent = 1
    const { book, addMethod, pay, clock, originate, output, payment, loans, expectConsistent } = bench({
      originations: (store) => ({
        ...store,
        markSent: (...args) => (failMarkSent-- > 0 ? TE.left({ _tag: 'StoreUnavailable', cause: new Error('connection reset') }) : store.markSent(...args)),
      }),
    })
    const { loan } = book()
    const debit = right(await pay(loan.id, await addMethod(loan.id), 40_000, 'debit'))
    clock.set(new Date('2026-01-15T21:00:00.000Z'))
    // The payment is submitted, then recording its entry fails: the run stops, to be resumed.
    expect(await originate('2026-01-15T15:30')).to.deep.include({ _tag: 'StoreUnavailable' })
    expect((await payment(debit.id)).status).to.equal('SUBMITTED')
    output.failNext(1)
    expect(await originate('2026-01-15T15:30')).to.deep.include({ _tag: 'StoreUnavailable' })
    expect(await originate('2026-01-15T15:30')).to.deep.equal({ _tag: 'Completed', resumed: true })
    expect(output.puts.length).to.equal(2)
    expect(Buffer.compare(output.puts[0]!.bytes, output.puts[1]!.bytes)).to.equal(0)
    expect(contentsOf(output.puts[1]!.bytes).debits.map((d) => [d.paymentId, d.amount])).to.deep.equal([[debit.id, 40_000]])
    expect((await run(loans.findById(loan.id)).then((found) => (O.isSome(found) ? found.value.transactions : []))).filter((t) => t.type === 'PAYMENT')).to.have.length(1)
    await expectConsistent(loan.id)
  })

  it('sends in its own file a payment an unfinished earlier run submitted but did not record, when the next cut-off finishes that file', async () => {
    let failMarkSent = 1
    const { book, addMethod, pay, clock, originate, output, payment } = bench({
      originations: (store) => ({
        ...store,
        markSent: (...args) => (failMarkSent-- > 0 ? TE.left({ _tag: 'StoreUnavailable', cause: new Error('connection reset') }) : store.markSent(...args)),
      }),
    })
    const { loan } = book()
    const bank = await addMethod(loan.id)
    const first = right(await pay(loan.id, bank, 40_000, 'first'))
    const second = right(await pay(loan.id, bank, 15_000, 'second'))
    clock.set(new Date('2026-01-15T21:00:00.000Z'))
    // The first is submitted, then recording it fails; that run is never resumed as its own.
    expect(await originate('2026-01-15T15:30')).to.deep.include({ _tag: 'StoreUnavailable' })
    expect([(await payment(first.id)).status, (await payment(second.id)).status]).to.deep.equal(['SUBMITTED', 'PENDING'])
    clock.set(new Date('2026-01-16T21:00:00.000Z'))
    expect(await originate('2026-01-16T15:30')).to.deep.equal({ _tag: 'Completed', resumed: false })
    // Thursday's file goes out with the debit it posted; the one still PENDING goes in Friday's.
    expect([...output.files.keys()].sort()).to.deep.equal(['f-2026-01-15-A.ach', 'f-2026-01-16-A.ach'])
    expect(contentsOf(output.files.get('f-2026-01-15-A.ach')!).debits.map((d) => [d.paymentId, d.amount])).to.deep.equal([[first.id, 40_000]])
    expect(contentsOf(output.files.get('f-2026-01-16-A.ach')!).debits.map((d) => [d.paymentId, d.amount])).to.deep.equal([[second.id, 15_000]])
    expect([(await payment(first.id)).status, (await payment(second.id)).status]).to.deep.equal(['SUBMITTED', 'SUBMITTED'])
  })

  it('releases what an unfinished earlier run claimed into the next file', async () => {
    const { book, addMethod, pay, clock, originate, output, payment, store } = bench()
    const { loan } = book()
    const debit = right(await pay(loan.id, await addMethod(loan.id), 25_000, 'debit'))
    clock.set(new Date('2026-01-15T21:00:00.000Z'))
    // Stopped after its claim (the file opened, its autopay debits taken, the claim); the process dies, and the next cut-off is the one due.
    expect(await originate('2026-01-15T15:30', 3)).to.deep.equal({ _tag: 'Stopped' })
    expect(O.map((e: { readonly paymentId: string; readonly status: string }) => [e.paymentId, e.status])(await run(store.entryByTrace('123456780000001')))).to.deep.equal(O.some([debit.id, 'claimed']))
    clock.set(new Date('2026-01-16T21:00:00.000Z'))
    expect(await originate('2026-01-16T15:30')).to.deep.equal({ _tag: 'Completed', resumed: false })
    expect([...output.files.keys()]).to.deep.equal(['f-2026-01-16-A.ach'])
    expect(contentsOf(output.files.get('f-2026-01-16-A.ach')!).debits.map((d) => d.paymentId)).to.deep.equal([debit.id])
    expect(await payment(debit.id)).to.deep.include({ status: 'SUBMITTED', effectiveDate: '2026-01-16' })
    const earlier = await run(store.unfinishedBefore('2026-01-16T15:30', null))
    expect(earlier).to.deep.equal(O.none)
  })
})

describe('ACH settlement (docs/ach.md "Settlement job")', () => {
  it('settles a debit at the end of the second banking day after its effective date, once', async () => {
    const { book, addMethod, pay, clock, originate, settle, payment, eventLog } = bench()
    const { loan } = book()
    const debit = right(await pay(loan.id, await addMethod(loan.id), 30_000, 'debit'))
    clock.set(new Date('2026-01-15T21:00:00.000Z'))
    await originate('2026-01-15T15:30')
    // Effective Friday 16 January; Monday 19 is a holiday: returns may come until Wednesday 21 opens.
    for (const day of ['2026-01-16', '2026-01-19', '2026-01-20']) {
      clock.set(new Date(`${day}T23:00:00.000Z`))
      expect(right(await settle(`${day}T21:00`))).to.deep.include({ _tag: 'Completed' })
      expect((await payment(debit.id)).status, day).to.equal('SUBMITTED')
    }
    clock.set(new Date('2026-01-21T23:00:00.000Z'))
    expect(right(await settle('2026-01-21T21:00'))).to.deep.include({ _tag: 'Completed' })
    expect((await payment(debit.id)).status).to.equal('SETTLED')
    expect(eventLog.all().filter((e) => e.type === 'payment.settled').map((e) => e.resourceId)).to.deep.equal([debit.id])
    clock.set(new Date('2026-01-22T23:00:00.000Z'))
    expect(right(await settle('2026-01-22T21:00'))).to.deep.include({ _tag: 'Completed' })
    expect(eventLog.all().filter((e) => e.type === 'payment.settled')).to.have.length(1)
  })

  it('never settles a debit whose file was not written: it has not left', async () => {
    const { book, addMethod, pay, clock, originate, settle, payment, output } = bench()
    const { loan } = book()
    const debit = right(await pay(loan.id, await addMethod(loan.id), 30_000, 'debit'))
    clock.set(new Date('2026-01-15T21:00:00.000Z'))
    output.failNext(1_000)
    expect(await originate('2026-01-15T15:30')).to.deep.include({ _tag: 'StoreUnavailable' })
    clock.set(new Date('2026-01-23T23:00:00.000Z'))
    expect(right(await settle('2026-01-23T21:00'))).to.deep.include({ _tag: 'Completed' })
    expect((await payment(debit.id)).status).to.equal('SUBMITTED')
  })
})

describe('autopay debits (docs/ach.md "Scheduled (autopay) debits")', () => {
  /** A loan booked on Thursday 15 January 2026 (first due Sunday 15 February; Monday 16 February is Presidents' Day), its bank account the default, autopay on. */
  const opted = async (options: Parameters<typeof bench>[0] = {}) => {
    const world = bench(options)
    const { loan, installments } = world.book()
    const bank = await world.addMethod(loan.id)
    expect((await world.turnOnAutopay(loan.id)).autopay?.clientId).to.equal(caller.clientId)
    expect(installments[0]!.dueDate).to.equal('2026-02-15')
    /** What installment `number` owes on its due date, as the rules derive it from the payments posted now. */
    const owedOnDueDate = async (number: number) => {
      const booked = await some(world.loans.findById(loan.id))
      const due = booked.installments.find((i) => i.number === number)!.dueDate
      return deriveLoan(booked.loan, (await run(world.loans.payments.posted(loan.id))).map(settled), due).nextDueAmount!
    }
    const autopayPayments = async () => world.loans.allPayments().filter((p) => p.loanId === loan.id && p.idempotencyKey.startsWith('autopay '))
    return { ...world, loan, bank, owedOnDueDate, autopayPayments }
  }

  it("debits an installment in the last file before it falls due (Friday's for a Sunday before a holiday), for what it owes on its due date, once", async () => {
    const { loan, clock, originate, output, payment, eventLog, owedOnDueDate, autopayPayments, expectConsistent } = await opted()
    // Thursday's file is effective Friday 13 February: before the installment falls due.
    clock.set(new Date('2026-02-12T21:00:00.000Z'))
    expect(await originate('2026-02-12T15:30')).to.deep.equal({ _tag: 'Completed', resumed: false })
    expect([[...output.files.keys()], await autopayPayments()]).to.deep.equal([[], []])

    // Friday's file is effective Tuesday 17 February: the last one before Sunday's installment.
    const owed = await owedOnDueDate(1)
    clock.set(new Date('2026-02-13T21:00:00.000Z'))
    expect(await originate('2026-02-13T15:30')).to.deep.equal({ _tag: 'Completed', resumed: false })
    const [taken, ...more] = await autopayPayments()
    expect(more).to.deep.equal([])
    expect(taken).to.deep.include({ idempotencyKey: `autopay ${loan.id} 2026-02-15`, clientId: caller.clientId, amount: owed, createdAt: new Date('2026-02-13T20:30:00.000Z') })
    const file = contentsOf(output.files.get('f-2026-02-13-A.ach')!)
    expect([file.effectiveEntryDate, file.debits.map((d) => [d.paymentId, d.amount])]).to.deep.equal(['2026-02-17', [[taken!.id, owed]]])
    expect((await payment(taken!.id)).status).to.equal('SUBMITTED')
    expect(eventLog.all().filter((e) => e.resourceId === taken!.id).map((e) => e.type)).to.deep.equal(['payment.submitted'])

    // Friday's later cut-off makes none more.
    clock.set(new Date('2026-02-13T22:30:00.000Z'))
    expect(await originate('2026-02-13T17:00')).to.deep.equal({ _tag: 'Completed', resumed: false })
    expect((await autopayPayments()).map((p) => p.id)).to.deep.equal([taken!.id])
    expect([...output.files.keys()]).to.deep.equal(['f-2026-02-13-A.ach'])
    await expectConsistent(loan.id)
  })

  it('takes what the installment still owes beside a pending debit, and none when it is paid ahead', async () => {
    const { loan, bank, pay, clock, originate, owedOnDueDate, autopayPayments, payment } = await opted()
    const owed = await owedOnDueDate(1)
    clock.set(new Date('2026-02-13T14:00:00.000Z'))
    const partial = right(await pay(loan.id, bank, 10_000, 'partner-debit'))
    clock.set(new Date('2026-02-13T21:00:00.000Z'))
    expect(await originate('2026-02-13T15:30')).to.deep.equal({ _tag: 'Completed', resumed: false })
    const [taken] = await autopayPayments()
    expect([taken?.amount, (await payment(partial.id)).status]).to.deep.equal([owed - 10_000, 'SUBMITTED'])

    // Paid ahead: the second installment owes nothing by the cut-off before it falls due (Friday 13 March, for Sunday 15 March).
    const second = await owedOnDueDate(2)
    clock.set(new Date('2026-03-02T14:00:00.000Z'))
    right(await pay(loan.id, bank, second, 'paid-ahead'))
    clock.set(new Date('2026-03-02T21:00:00.000Z'))
    expect(await originate('2026-03-02T15:30')).to.deep.equal({ _tag: 'Completed', resumed: false })
    clock.set(new Date('2026-03-13T20:00:00.000Z'))
    expect(await originate('2026-03-13T15:30')).to.deep.equal({ _tag: 'Completed', resumed: false })
    expect((await autopayPayments()).map((p) => p.idempotencyKey)).to.deep.equal([`autopay ${loan.id} 2026-02-15`])
  })

  it('takes none once autopay is turned off, and fails the debit of a blocked default account without turning autopay off', async () => {
    const { loan, bank, deps, turnOnAutopay, clock, originate, autopayPayments, paymentMethods, eventLog, output } = await opted()
    right(await setLoanAutopayForParty({ ...deps, debitsAutopay: true })(caller, { partyId: caller.partyId, loanId: loan.id, enabled: false })())
    clock.set(new Date('2026-02-13T21:00:00.000Z'))
    expect(await originate('2026-02-13T15:30')).to.deep.equal({ _tag: 'Completed', resumed: false })
    expect(await autopayPayments()).to.deep.equal([])

    await turnOnAutopay(loan.id)
    right(await paymentMethods.block(bank.id, clock.now())())
    clock.set(new Date('2026-03-13T20:00:00.000Z'))
    expect(await originate('2026-03-13T15:30')).to.deep.equal({ _tag: 'Completed', resumed: false })
    const [failed, ...more] = await autopayPayments()
    expect([failed?.idempotencyKey, failed?.status, failed?.failureCode, more]).to.deep.equal([`autopay ${loan.id} 2026-03-15`, 'FAILED', 'payment_method_unusable', []])
    expect(eventLog.all().filter((e) => e.resourceId === failed?.id).map((e) => e.type)).to.deep.equal(['payment.failed'])
    expect([...output.files.keys()]).to.deep.equal([])
    const setting = right(await getLoanAutopayForParty({ ...deps, debitsAutopay: true })(caller, { partyId: caller.partyId, loanId: loan.id })())
    expect(setting.autopay?.clientId).to.equal(caller.clientId)
  })

  it("asks a last installment's debit at the day's bill when its interest to its due date passes it, never refused as an over-payment", async () => {
    const { book, addMethod, turnOnAutopay, clock, originate, loans, output } = bench()
    // One month of 1,234.57 at 12 %: its one installment, due Sunday 15 February, is its last.
    const { loan } = book({ amount: 123_457, termMonths: 1 })
    await addMethod(loan.id)
    await turnOnAutopay(loan.id)
    clock.set(new Date('2026-02-13T21:00:00.000Z'))
    expect(await originate('2026-02-13T15:30')).to.deep.equal({ _tag: 'Completed', resumed: false })
    const [taken, ...more] = loans.allPayments().filter((p) => p.loanId === loan.id)
    expect([taken?.idempotencyKey, taken?.status, more]).to.deep.equal([`autopay ${loan.id} 2026-02-15`, 'SUBMITTED', []])
    expect(contentsOf(output.files.get('f-2026-02-13-A.ach')!).debits.map((d) => d.paymentId)).to.deep.equal([taken!.id])
  })

  it('takes every debit of a window of more than a batch, each once', async () => {
    const { book, addMethod, turnOnAutopay, clock, originate, output } = bench()
    const loans = []
    for (let k = 0; k < 30; k++) {
      const { loan } = book()
      await addMethod(loan.id)
      await turnOnAutopay(loan.id)
      loans.push(loan.id)
    }
    clock.set(new Date('2026-02-13T21:00:00.000Z'))
    expect(await originate('2026-02-13T15:30')).to.deep.equal({ _tag: 'Completed', resumed: false })
    const debits = contentsOf(output.files.get('f-2026-02-13-A.ach')!).debits
    expect(debits).to.have.length(30)
    expect(new Set(debits.map((d) => d.paymentId)).size).to.equal(30)
  })

  it("takes the next banking day what a day's run died before taking: late rather than never", async () => {
    const { loan, clock, originate, output, autopayPayments } = await opted()
    // Friday's run opens its file and dies; Monday 16 February is a holiday.
    clock.set(new Date('2026-02-13T21:00:00.000Z'))
    expect(await originate('2026-02-13T15:30', 1)).to.deep.equal({ _tag: 'Stopped' })
    expect(await autopayPayments()).to.deep.equal([])
    // Tuesday's run finishes Friday's file (empty), then takes Sunday's installment in its own.
    clock.set(new Date('2026-02-17T21:00:00.000Z'))
    expect(await originate('2026-02-17T15:30')).to.deep.equal({ _tag: 'Completed', resumed: false })
    const [taken, ...more] = await autopayPayments()
    expect([taken?.idempotencyKey, taken?.status, more]).to.deep.equal([`autopay ${loan.id} 2026-02-15`, 'SUBMITTED', []])
    expect([...output.files.keys()]).to.deep.equal(['f-2026-02-17-A.ach'])
    expect(contentsOf(output.files.get('f-2026-02-17-A.ach')!).debits.map((d) => d.paymentId)).to.deep.equal([taken!.id])
  })

  it('tells the operators of a loan with autopay on and no payment method, and takes the others', async () => {
    const { book, turnOnAutopay, clock, originate, failedLoans, autopayPayments, loan } = await opted()
    const { loan: bare } = book()
    await turnOnAutopay(bare.id)
    clock.set(new Date('2026-02-13T21:00:00.000Z'))
    expect(await originate('2026-02-13T15:30')).to.deep.equal({ _tag: 'Completed', resumed: false })
    expect(failedLoans()).to.deep.equal([{ job: 'ach-origination', loanId: bare.id, reason: 'no autopay debit for the installment due 2026-02-15: the loan has no payment_method' }])
    expect((await autopayPayments()).map((p) => p.loanId)).to.deep.equal([loan.id])
  })

  it('asks a caught-up installment only what it still owes after a payment made since it fell due', async () => {
    const { loan, addMethod, pay, clock, originate, autopayPayments, owedOnDueDate } = await opted()
    const owed = await owedOnDueDate(1)
    // Friday's run opens its file and dies; on Monday 16 February (a holiday) the partner collects 1,000.00 by card.
    clock.set(new Date('2026-02-13T21:00:00.000Z'))
    expect(await originate('2026-02-13T15:30', 1)).to.deep.equal({ _tag: 'Stopped' })
    const card = await addMethod(loan.id, CARD)
    clock.set(new Date('2026-02-16T15:00:00.000Z'))
    expect(right(await pay(loan.id, card, 100_000, 'by-card')).status).to.equal('SUCCEEDED')
    // Tuesday's run catches the installment up, for the rest only.
    clock.set(new Date('2026-02-17T21:00:00.000Z'))
    expect(await originate('2026-02-17T15:30')).to.deep.equal({ _tag: 'Completed', resumed: false })
    expect((await autopayPayments()).map((p) => [p.idempotencyKey, p.amount, p.status])).to.deep.equal([[`autopay ${loan.id} 2026-02-15`, owed - 100_000, 'SUBMITTED']])
  })

  it('never collects an installment that fell due before autopay was turned on', async () => {
    const { book, addMethod, turnOnAutopay, clock, originate, loans } = bench()
    const { loan } = book()
    await addMethod(loan.id)
    // Turned on on Tuesday 17 February: Tuesday's window reaches back to Sunday's installment, which fell due before.
    clock.set(new Date('2026-02-17T14:00:00.000Z'))
    await turnOnAutopay(loan.id)
    clock.set(new Date('2026-02-17T21:00:00.000Z'))
    expect(await originate('2026-02-17T15:30')).to.deep.equal({ _tag: 'Completed', resumed: false })
    expect(loans.allPayments().filter((p) => p.loanId === loan.id)).to.deep.equal([])
    // The next installment, due Sunday 15 March, is taken by Friday 13 March's file.
    clock.set(new Date('2026-03-13T20:00:00.000Z'))
    expect(await originate('2026-03-13T15:30')).to.deep.equal({ _tag: 'Completed', resumed: false })
    expect(loans.allPayments().filter((p) => p.loanId === loan.id).map((p) => p.idempotencyKey)).to.deep.equal([`autopay ${loan.id} 2026-03-15`])
  })

  it('stops the run while the processor is unreachable, and takes the debit when the run is repeated', async () => {
    const { loan, clock, originate, processor, autopayPayments, failedLoans } = await opted()
    processor.down(new Error('connection refused'))
    clock.set(new Date('2026-02-13T21:00:00.000Z'))
    const stopped = await originate('2026-02-13T15:30')
    expect([stopped._tag, await autopayPayments(), failedLoans()]).to.deep.equal(['StoreUnavailable', [], []])
    processor.up()
    expect(await originate('2026-02-13T15:30')).to.deep.equal({ _tag: 'Completed', resumed: true })
    expect((await autopayPayments()).map((p) => [p.idempotencyKey, p.status])).to.deep.equal([[`autopay ${loan.id} 2026-02-15`, 'SUBMITTED']])
  })

  it('takes each debit once when its run is stopped after every step and resumed', async () => {
    const { loan, clock, originate, output, autopayPayments, owedOnDueDate } = await opted()
    const owed = await owedOnDueDate(1)
    clock.set(new Date('2026-02-13T21:00:00.000Z'))
    const outcomes: string[] = []
    while (outcomes.length < 20 && outcomes.at(-1) !== 'Completed') outcomes.push((await originate('2026-02-13T15:30', 1))._tag)
    // Stopped after each step: the file opened, the autopay step, the claim, the submission, the build, the write; then it completes.
    expect(outcomes).to.deep.equal(['Stopped', 'Stopped', 'Stopped', 'Stopped', 'Stopped', 'Stopped', 'Completed'])
    const taken = await autopayPayments()
    expect(taken.map((p) => [p.idempotencyKey, p.amount, p.status])).to.deep.equal([[`autopay ${loan.id} 2026-02-15`, owed, 'SUBMITTED']])
    expect(contentsOf(output.files.get('f-2026-02-13-A.ach')!).debits.map((d) => d.paymentId)).to.deep.equal([taken[0]!.id])
  })
})

describe('turning autopay on and off (setLoanAutopayForParty)', () => {
  it('keeps the first setting when turned on again, answers off after off, and refuses a loan that is not ACTIVE or not the party', async () => {
    const { book, deps, clock } = setup()
    const { loan } = book()
    const set = (enabled: unknown, who = caller, loanId: string = loan.id) => setLoanAutopayForParty({ ...deps, debitsAutopay: true })(who, { partyId: who.partyId, loanId, enabled })()
    expect(right(await getLoanAutopayForParty({ ...deps, debitsAutopay: true })(caller, { partyId: caller.partyId, loanId: loan.id })())).to.deep.equal({ loanId: loan.id, autopay: null })
    const on = right(await set(true))
    expect(on).to.deep.equal({ loanId: loan.id, autopay: { loanId: loan.id, clientId: caller.clientId, enabledAt: clock.now() } })
    clock.set(new Date('2026-01-16T10:00:00.000Z'))
    expect(right(await set(true, colleague))).to.deep.equal(on)
    expect(right(await set(false))).to.deep.equal({ loanId: loan.id, autopay: null })
    expect(right(await getLoanAutopayForParty({ ...deps, debitsAutopay: true })(caller, { partyId: caller.partyId, loanId: loan.id })())).to.deep.equal({ loanId: loan.id, autopay: null })
    expect(await set('yes')).to.deep.equal(E.left({ _tag: 'InvalidRequest', detail: 'enabled must be true or false', param: 'enabled' }))
    expect((await set(true, caller, UNKNOWN_ID)) as unknown).to.deep.equal(E.left({ _tag: 'NotFound', resource: 'loan' }))
    expect(await set(true, stranger, loan.id)).to.deep.equal(E.left({ _tag: 'NotFound', resource: 'loan' }))
    const { loan: paidOff } = book()
    await run(deps.loans.change({ loanId: paidOff.id }, (found) => (O.isNone(found) ? TE.left(new Error('gone')) : TE.right({ posting: { ...nothing(found.value), loanStatus: 'PAID_OFF' as const }, result: undefined }))))
    expect(await set(true, caller, paidOff.id)).to.deep.equal(E.left({ _tag: 'InvalidState', resource: 'loan', status: 'PAID_OFF', action: 'turn autopay on' }))
    expect(right(await set(false, caller, paidOff.id)).autopay).to.equal(null)
  })

  it('refuses to turn autopay on where no ACH rails take its debits, and turns it off there all the same', async () => {
    const { book, deps } = setup()
    const { loan } = book()
    const railless = { ...deps, debitsAutopay: false }
    const set = (enabled: boolean) => setLoanAutopayForParty(railless)(caller, { partyId: caller.partyId, loanId: loan.id, enabled })()
    expect(await set(true)).to.deep.equal(E.left({ _tag: 'InvalidState', resource: 'autopay', status: 'unavailable', action: 'turn autopay on where the lender does not collect by ACH' }))
    expect(right(await getLoanAutopayForParty(railless)(caller, { partyId: caller.partyId, loanId: loan.id })()).autopay).to.equal(null)
    right(await setLoanAutopayForParty({ ...deps, debitsAutopay: true })(caller, { partyId: caller.partyId, loanId: loan.id, enabled: true })())
    expect(right(await set(false)).autopay).to.equal(null)
  })
})
