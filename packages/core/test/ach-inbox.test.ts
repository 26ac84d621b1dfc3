import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { SYSTEM } from '../src/domain/audit/audit-event.js'
import type { AchInbox, ArrivedAchFile } from '../src/ports/ach-inbox.js'
import { achInboxJob, achInboxJobName } from '../src/use-cases/ach/inbox.js'
import type { IngestionDeps } from '../src/use-cases/ach/ingestion.js'
import { runLeasedJob, type JobRunRequest } from '../src/use-cases/jobs/leased-job.js'
import { simulatePaymentReturn } from '../src/use-cases/testing/simulations.js'
import { inMemoryJobLeases } from '../src/testing/index.js'
import { fileOf, jsonInbound, returnOf, trace, type FileBody } from './fixtures/ach.js'
import { calendar, inboundBench } from './fixtures/ach-bench.js'
import { at, caller, right } from './fixtures/servicing.js'

/**
 * The inbox job (`achInboxJob`): the files a bank sent by a day, ingested as the system and then
 * taken; and a test helper's return of a bank debit (`simulatePaymentReturn`), which returns it as
 * a return file would.
 */

/** An inbox in memory: files arriving on their days, each offered until taken; `takes` counts the takes. */
const memoryInbox = (arrivals: readonly { readonly on: string; readonly body: FileBody }[]) => {
  const files: ArrivedAchFile[] = arrivals.map((a, i) => ({ name: `answer-${i + 1}.ach`, bytes: fileOf(a.body), arrivedOn: a.on, receipt: `sent-${i + 1}` }))
  const taken = new Set<string>()
  let takes = 0
  const inbox: AchInbox = {
    arrivedBy: (day, limit) => TE.right(files.filter((f) => f.arrivedOn <= day && !taken.has(f.name)).slice(0, limit)),
    take: (file) =>
      TE.fromIO(() => {
        takes += 1
        taken.add(file.name)
      }),
  }
  return { inbox, taken: () => [...taken].sort(), takes: () => takes }
}

/** The inbound bench's stores, and a run of the inbox job over `inbox` for `runKey`, stopped after `stopAfter` steps. */
const inboxBench = () => {
  const bench = inboundBench()
  const deps: IngestionDeps = {
    loans: bench.loans,
    originations: bench.store,
    inbound: bench.inbound,
    inboundFormat: jsonInbound,
    paymentMethods: bench.paymentMethods,
    accountSeal: bench.seal,
    calendar,
    ids: bench.ids,
    clock: bench.clock,
  }
  const leases = inMemoryJobLeases()
  const collect = async (inbox: AchInbox, runKey: string, stopAfter = Infinity) => {
    let steps = 0
    const request: JobRunRequest = { runKey, holder: 'test', leaseMs: 60_000, stopping: () => steps++ >= stopAfter }
    return runLeasedJob({ leases, clock: bench.clock })(achInboxJob({ ...deps, inbox }, 'test')(runKey), request)()
  }
  /** A loan with a bank debit cut into Monday 12 January 2026's file (effective Tuesday 13): its payment. */
  const debited = async () => {
    bench.clock.set(at('2025-12-10'))
    const { loan } = bench.book()
    const bank = await bench.addMethod(loan.id)
    bench.clock.set(at('2026-01-12'))
    const debit = right(await bench.pay(loan.id, bank, 25_000, 'debit-1'))
    bench.clock.set(new Date('2026-01-12T21:00:00.000Z'))
    expect(await bench.originate('2026-01-12T15:30')).to.deep.equal({ _tag: 'Completed', resumed: false })
    return { loan, bank, debit }
  }
  return { ...bench, collect, debited }
}

describe('the ACH inbox job', () => {
  it('is named per world', () => {
    expect([achInboxJobName('live'), achInboxJobName('test')]).to.deep.equal(['ach-inbox', 'ach-inbox:test'])
  })

  it('ingests the files arrived by its day, as the system, and takes them; later ones wait for their day', async () => {
    const b = inboxBench()
    const { debit } = await b.debited()
    const { inbox, taken } = memoryInbox([
      { on: '2026-01-15', body: { returns: [returnOf(3, trace(1), 'R01', 25_000)] } },
      { on: '2026-01-16', body: { returns: [returnOf(3, '999999999999999', 'R03', 1)] } },
    ])
    b.clock.set(at('2026-01-14'))
    expect(right(await b.collect(inbox, '2026-01-14T08:00'))).to.deep.equal({ _tag: 'Completed', resumed: false })
    expect(taken()).to.deep.equal([])
    expect(await b.payment(debit.id)).to.include({ status: 'SUBMITTED' })

    b.clock.set(at('2026-01-15'))
    expect(right(await b.collect(inbox, '2026-01-15T08:00'))).to.deep.equal({ _tag: 'Completed', resumed: false })
    expect(taken()).to.deep.equal(['answer-1.ach'])
    expect(await b.payment(debit.id)).to.include({ status: 'RETURNED', returnCode: 'R01', returnedOn: '2026-01-15' })
    const audited = b.applications.audit.all().filter((e) => e.action === 'payment.returned')
    expect(audited.map((e) => [e.actor, e.requestId])).to.deep.equal([[SYSTEM, null]])

    b.clock.set(at('2026-01-16'))
    expect(right(await b.collect(inbox, '2026-01-16T08:00'))).to.deep.equal({ _tag: 'Completed', resumed: false })
    expect(taken()).to.deep.equal(['answer-1.ach', 'answer-2.ach'])
    expect(b.inbound.returns().map((r) => [r.originalTrace, r.outcome])).to.deep.equal([
      [trace(1), 'applied'],
      ['999999999999999', 'unmatched'],
    ])
  })

  it('works through more files than a step takes, each once', async () => {
    const b = inboxBench()
    const arrivals = Array.from({ length: 23 }, (_, i) => ({ on: '2026-01-15', body: { returns: [returnOf(3, `99999999${String(i).padStart(7, '0')}`, 'R03', i + 1)] } }))
    const { inbox, taken, takes } = memoryInbox(arrivals)
    b.clock.set(at('2026-01-15'))
    expect(right(await b.collect(inbox, '2026-01-15T08:00'))).to.deep.equal({ _tag: 'Completed', resumed: false })
    expect(taken()).to.have.length(23)
    expect(takes()).to.equal(23)
    expect(b.inbound.returns()).to.have.length(23)
  })

  it('offers a file again after a run stopped before taking it: ingested again, it changes nothing', async () => {
    const b = inboxBench()
    const { debit } = await b.debited()
    const { inbox } = memoryInbox([{ on: '2026-01-15', body: { returns: [returnOf(3, trace(1), 'R01', 25_000)] } }])
    // Taking fails once, after the file was ingested.
    let failures = 1
    const flaky: AchInbox = { ...inbox, take: (file) => (failures-- > 0 ? TE.left({ _tag: 'StoreUnavailable', cause: new Error('down') }) : inbox.take(file)) }
    b.clock.set(at('2026-01-15'))
    const first = await b.collect(flaky, '2026-01-15T08:00')
    expect(E.isLeft(first)).to.equal(true)
    const returned = await b.payment(debit.id)
    expect(returned).to.include({ status: 'RETURNED' })
    const state = { payments: b.loans.allPayments(), returns: b.inbound.returns(), events: b.eventLog.all().length, audit: b.applications.audit.all().length }
    expect(right(await b.collect(flaky, '2026-01-15T08:00'))).to.deep.equal({ _tag: 'Completed', resumed: true })
    expect({ payments: b.loans.allPayments(), returns: b.inbound.returns(), events: b.eventLog.all().length, audit: b.applications.audit.all().length }).to.deep.equal(state)
  })

  it('stops at a file the ingestion refuses, naming it, and leaves it in the inbox', async () => {
    const b = inboxBench()
    const { inbox, taken } = memoryInbox([{ on: '2026-01-15', body: { unreadable: { record: 4, field: 'trace number', reason: 'not 15 digits' } } }])
    b.clock.set(at('2026-01-15'))
    const refused = await b.collect(inbox, '2026-01-15T08:00')
    if (E.isRight(refused)) return expect.fail('the run stops')
    expect(String((refused.left as { cause: Error }).cause.message)).to.match(/answer-1\.ach is refused: The file is refused at record 4, trace number/)
    expect(taken()).to.deep.equal([])
  })

  it('refuses a run key that is not a cut-off', async () => {
    const b = inboxBench()
    const refused = await b.collect(memoryInbox([]).inbox, 'yesterday')
    expect(E.isLeft(refused)).to.equal(true)
  })
})

describe('a test helper’s return of a bank debit (simulatePaymentReturn)', () => {
  const returnIt = (b: ReturnType<typeof inboxBench>, loanId: string, paymentId: string, returnCode?: string) =>
    simulatePaymentReturn({ ...b.deps, achEntries: b.store })(caller, { partyId: caller.partyId, loanId, paymentId, ...(returnCode === undefined ? {} : { return_code: returnCode }) }, { actor: SYSTEM, requestId: 'req-1' })()

  it('returns a SUBMITTED debit as a return file would: RETURNED with its code, its entry returned, an R02 blocking its method', async () => {
    const b = inboxBench()
    const { loan, bank, debit } = await b.debited()
    b.clock.set(at('2026-01-14'))
    const returned = right(await returnIt(b, loan.id, debit.id, 'R02'))
    expect(returned).to.include({ id: debit.id, status: 'RETURNED', returnCode: 'R02', returnedOn: '2026-01-14' })
    expect(await b.entry(trace(1))).to.include({ status: 'returned' })
    expect(b.method(bank.id)).to.include({ status: 'blocked' })
    const audited = b.applications.audit.all().filter((e) => e.action === 'payment.returned')
    expect(audited.map((e) => (e.details as Record<string, unknown>).inbound_file_id)).to.deep.equal([null])
    expect(b.eventLog.all().filter((e) => e.type === 'payment.returned').map((e) => e.resourceId)).to.deep.equal([debit.id])
    // Once returned, it cannot be returned again.
    const again = await returnIt(b, loan.id, debit.id)
    expect(E.isLeft(again) && again.left._tag).to.equal('InvalidState')
    await b.expectConsistent(loan.id)
  })

  it('finishes on its retry a return whose blocking failed after the payment was returned', async () => {
    const b = inboxBench()
    const { loan, bank, debit } = await b.debited()
    b.clock.set(at('2026-01-14'))
    let failures = 1
    const flaky = { ...b.deps.paymentMethods, block: (id: Parameters<typeof b.deps.paymentMethods.block>[0], when: Date) => (failures-- > 0 ? TE.left({ _tag: 'StoreUnavailable' as const, cause: new Error('down') }) : b.deps.paymentMethods.block(id, when)) }
    const attempt = () => simulatePaymentReturn({ ...b.deps, paymentMethods: flaky, achEntries: b.store })(caller, { partyId: caller.partyId, loanId: loan.id, paymentId: debit.id, return_code: 'R02' }, { actor: SYSTEM, requestId: 'req-1' })()
    const first = await attempt()
    expect(E.isLeft(first) && first.left._tag).to.equal('StoreUnavailable')
    expect(await b.payment(debit.id)).to.include({ status: 'RETURNED', returnCode: 'R02' })
    expect(b.method(bank.id)).to.include({ status: 'active' })
    // The retry is refused, as a second return of a returned payment is, after finishing what the first left undone.
    const retry = await attempt()
    expect(E.isLeft(retry) && retry.left._tag).to.equal('InvalidState')
    expect(b.method(bank.id)).to.include({ status: 'blocked' })
    expect(await b.entry(trace(1))).to.include({ status: 'returned' })
    expect(b.eventLog.all().filter((e) => e.type === 'payment.returned')).to.have.length(1)
  })

  it('returns a SETTLED debit with R01 (the default), leaving its method active', async () => {
    const b = inboxBench()
    const { loan, bank, debit } = await b.debited()
    // E is Tuesday 13 January: settled on the evening of the second banking day after it.
    b.clock.set(new Date('2026-01-16T02:30:00.000Z'))
    expect(await b.settle('2026-01-15T21:00')).to.deep.equal({ _tag: 'Completed', resumed: false })
    expect(await b.payment(debit.id)).to.include({ status: 'SETTLED' })
    b.clock.set(at('2026-01-20'))
    expect(right(await returnIt(b, loan.id, debit.id))).to.include({ status: 'RETURNED', returnCode: 'R01', returnedOn: '2026-01-20' })
    expect(await b.entry(trace(1))).to.include({ status: 'returned' })
    expect(b.method(bank.id)).to.include({ status: 'active' })
    await b.expectConsistent(loan.id)
  })
})
