import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { OPERATOR, SYSTEM, type AuditEvent } from '../src/domain/audit/audit-event.js'
import { invalidRequest, storeUnavailable } from '../src/domain/foundations/errors.js'
import type { PaymentMethod } from '../src/domain/loans/payment-method.js'
import type { Payment } from '../src/domain/loans/payment.js'
import type { AccountCorrection, AchIngestReport, InboundNotice, InboundOther } from '../src/ports/ach-inbound.js'
import { ingestAchFile, type IngestionDeps } from '../src/use-cases/ach/ingestion.js'
import { createPaymentMethodForPartyLoan } from '../src/use-cases/servicing/create-payment-method.js'
import { fakeAccountSeal } from '../src/testing/index.js'
import { fileOf, returnOf, trace } from './fixtures/ach.js'
import { inboundBench } from './fixtures/ach-bench.js'
import { at, BANK, caller, right, run, some } from './fixtures/servicing.js'

/**
 * Notices of change (docs/ach.md "Returns and notices of change", `ingestNotice` through
 * `ingestAchFile`) over the in-memory stores: debits taken from a bank account, cut into a file by
 * the origination job, then a file the bank sends back (a tiny JSON format) says the account has
 * other numbers or another type.
 */

/** A sink that keeps nothing: the outbound files are ach-origination.test.ts's concern. */
const UNKNOWN_TRACE = '999999999999999'

/** The account the fixtures add (BANK): its numbers, and the corrected ones the notices carry. */
const OLD_ROUTING = BANK.routing_number
const OLD_ACCOUNT = BANK.account_number
const NEW_ROUTING = '011000015'
const NEW_ACCOUNT = '000987654321'

/** A notice of change of record `record`: a correction, or (a string) why there is none. */
const noticeOf = (record: number, originalTrace: string, changeCode: string, correction: AccountCorrection | string): InboundNotice => ({
  record,
  originalTrace,
  changeCode,
  correction: typeof correction === 'string' ? E.left(correction) : E.right(correction),
})

const bench = () => {
  const base = inboundBench()
  const { seal, inbound, originate, payment, entry } = base
  const servicing = base
  /** The numbers of method `id` as a new debit would read them: none when none open. */
  const numbers = async (id: PaymentMethod['id']) => O.chain((sealed: string) => seal.open(id, sealed))(await run(servicing.paymentMethods.sealedAccount(id)))
  const corrections = () => servicing.applications.audit.all().filter((e) => e.action === 'payment_method.corrected')
  /** What a notice that changes nothing must leave as it was. */
  const world = () => ({
    methods: servicing.paymentMethods.all(),
    sealed: servicing.paymentMethods.all().map((m) => servicing.paymentMethods.sealedNumbers(m.id)),
    audit: servicing.applications.audit.all(),
    notices: inbound.notices(),
    returns: inbound.returns(),
    payments: servicing.loans.allPayments(),
  })

  /** A bank account of a loan of `caller`'s party, numbers sealed unless `sealed` is false. */
  const bankAccount = (loanId: string, sealed = true) =>
    run(createPaymentMethodForPartyLoan({ ...servicing.deps, accountSeal: sealed ? seal : undefined })(caller, { partyId: caller.partyId, loanId, ...BANK }))

  /**
   * A loan booked today with a bank account (BANK, checking), and `amounts` debited from it, all
   * cut into Thursday 15 January 2026's 15:30 file: entries trace(1), trace(2)…; then the clock at
   * Friday 16 January, 10:00 UTC.
   */
  const submitted = async (amounts: readonly number[], sealed = true) => {
    const { loan } = servicing.book()
    const bank = await bankAccount(loan.id, sealed)
    const debits: Payment[] = []
    for (const [i, amount] of amounts.entries()) debits.push(right(await servicing.pay(loan.id, bank, amount, `debit-${i + 1}`)))
    servicing.clock.set(new Date('2026-01-15T21:00:00.000Z'))
    expect(await originate('2026-01-15T15:30')).to.deep.equal({ _tag: 'Completed', resumed: false })
    for (const [i, debit] of debits.entries()) {
      expect(await entry(trace(i + 1))).to.deep.include({ paymentId: debit.id, paymentMethodId: bank.id, status: sealed ? 'sent' : 'dropped' })
    }
    servicing.clock.set(at('2026-01-16'))
    return { loan, bank, debits }
  }

  return { ...base, numbers, corrections, world, bankAccount, submitted }
}

/** The report line of a notice. */
const reported = (record: number, originalTrace: string, changeCode: string, paymentMethodId: string | null, outcome: string, detail: string | null = null): AchIngestReport['notices'][number] =>
  ({ record, originalTrace, changeCode, paymentMethodId, outcome, detail }) as AchIngestReport['notices'][number]

/** The details of an audit event, and the event, as JSON: no account number may be found in them. */
const expectNoAccountNumber = (events: readonly AuditEvent[], ...accountNumbers: readonly string[]) => {
  const json = JSON.stringify(events)
  for (const number of accountNumbers) expect(json, `audit holds ${number}`).to.not.include(number)
}

const NOT_KEPT = "the account's numbers are not kept (it was added before they were sealed): add it again"

describe('ACH notices of change (docs/ach.md "Returns and notices of change")', () => {
  describe('a correction applied', () => {
    it('C01: corrects the account number (sealed, last4), audited without the number, and reports it applied', async () => {
      const { ingest, submitted, method, numbers, corrections, inbound, paymentMethods, seal } = bench()
      const { loan, bank, debits } = await submitted([40_000])
      expect(bank).to.deep.include({ last4: '6789', accountType: 'checking', status: 'active' })
      const before = method(bank.id)
      const context = { actor: SYSTEM, requestId: 'req-noc-1' }

      const file = right(await ingest({ notices: [noticeOf(5, trace(1), 'C01', { accountNumber: NEW_ACCOUNT })] }, {}, context))
      expect(file.status).to.equal('ingested')
      expect(file.report).to.deep.equal({ returns: [], notices: [reported(5, trace(1), 'C01', bank.id, 'applied')], others: [] })

      // The method: its last four and update time; nothing else of it.
      expect(method(bank.id)).to.deep.equal({ ...before, last4: '4321', updatedAt: at('2026-01-16') })
      expect(await numbers(bank.id)).to.deep.equal(O.some({ routingNumber: OLD_ROUTING, accountNumber: NEW_ACCOUNT }))
      const sealed = await run(paymentMethods.sealedAccount(bank.id))
      expect(O.isSome(sealed) && seal.open(bank.id, sealed.value)).to.deep.equal(O.some({ routingNumber: OLD_ROUTING, accountNumber: NEW_ACCOUNT }))

      const audited = corrections()
      expect(audited).to.have.length(1)
      expect(audited[0]).to.deep.equal({
        id: audited[0]!.id,
        occurredAt: at('2026-01-16'),
        actor: SYSTEM,
        action: 'payment_method.corrected',
        subject: { type: 'payment_method', id: bank.id },
        apiClientId: debits[0]!.clientId,
        partyId: loan.partyId,
        requestId: 'req-noc-1',
        details: {
          loan_id: loan.id,
          change_code: 'C01',
          inbound_file_id: file.id,
          original_trace: trace(1),
          before: { last4: '6789', routing_number: OLD_ROUTING, account_type: 'checking' },
          after: { last4: '4321', routing_number: OLD_ROUTING, account_type: 'checking' },
        },
      })
      expect(audited[0]!.apiClientId).to.equal(caller.clientId)
      expectNoAccountNumber(audited, NEW_ACCOUNT, OLD_ACCOUNT)

      // The notice as recorded: never the corrected data.
      expect(inbound.notices()).to.deep.equal([
        { id: inbound.notices()[0]!.id, inboundFileId: file.id, record: 5, originalTrace: trace(1), changeCode: 'C01', paymentMethodId: bank.id, receivedOn: '2026-01-16', outcome: 'applied', detail: null },
      ])
      expect(JSON.stringify(inbound.notices())).to.not.include(NEW_ACCOUNT)
      expect(JSON.stringify(file)).to.not.include(NEW_ACCOUNT)
      // Notices change no payment.
      expect((await some(paymentMethods.findForLoan(loan.id, bank.id))).last4).to.equal('4321')
    })

    it('audits as the operator, outside HTTP, when no context is given', async () => {
      const { ingest, submitted, corrections } = bench()
      await submitted([40_000])
      right(await ingest({ notices: [noticeOf(5, trace(1), 'C01', { accountNumber: NEW_ACCOUNT })] }))
      expect(corrections().map((e) => [e.actor, e.requestId])).to.deep.equal([[OPERATOR, null]])
    })

    it('C02: corrects the routing number alone, the account number and last4 unchanged', async () => {
      const { ingest, submitted, method, numbers, corrections } = bench()
      const { bank } = await submitted([40_000])
      const before = method(bank.id)
      const file = right(await ingest({ notices: [noticeOf(5, trace(1), 'C02', { routingNumber: NEW_ROUTING })] }))
      expect(file.report?.notices).to.deep.equal([reported(5, trace(1), 'C02', bank.id, 'applied')])
      expect(method(bank.id)).to.deep.equal({ ...before, updatedAt: at('2026-01-16') })
      expect(method(bank.id).last4).to.equal('6789')
      expect(await numbers(bank.id)).to.deep.equal(O.some({ routingNumber: NEW_ROUTING, accountNumber: OLD_ACCOUNT }))
      expect(corrections().map((e) => e.details)).to.deep.equal([
        {
          loan_id: bank.loanId,
          change_code: 'C02',
          inbound_file_id: file.id,
          original_trace: trace(1),
          before: { last4: '6789', routing_number: OLD_ROUTING, account_type: 'checking' },
          after: { last4: '6789', routing_number: NEW_ROUTING, account_type: 'checking' },
        },
      ])
      expectNoAccountNumber(corrections(), OLD_ACCOUNT)
    })

    it('C05: corrects the account type alone, its numbers unchanged', async () => {
      const { ingest, submitted, method, numbers, corrections, paymentMethods } = bench()
      const { bank } = await submitted([40_000])
      const before = method(bank.id)
      const sealedBefore = paymentMethods.sealedNumbers(bank.id)
      const file = right(await ingest({ notices: [noticeOf(5, trace(1), 'C05', { accountType: 'savings' })] }))
      expect(file.report?.notices).to.deep.equal([reported(5, trace(1), 'C05', bank.id, 'applied')])
      expect(method(bank.id)).to.deep.equal({ ...before, accountType: 'savings', updatedAt: at('2026-01-16') })
      expect(await numbers(bank.id)).to.deep.equal(O.some({ routingNumber: OLD_ROUTING, accountNumber: OLD_ACCOUNT }))
      expect(paymentMethods.sealedNumbers(bank.id)).to.equal(sealedBefore)
      expect(corrections().map((e) => e.details)).to.deep.equal([
        {
          loan_id: bank.loanId,
          change_code: 'C05',
          inbound_file_id: file.id,
          original_trace: trace(1),
          before: { last4: '6789', routing_number: OLD_ROUTING, account_type: 'checking' },
          after: { last4: '6789', routing_number: OLD_ROUTING, account_type: 'savings' },
        },
      ])
      expectNoAccountNumber(corrections(), OLD_ACCOUNT)
    })

    const combined: readonly (readonly [string, AccountCorrection, { readonly routingNumber: string; readonly accountNumber: string }, 'checking' | 'savings'])[] = [
      ['C03', { routingNumber: NEW_ROUTING, accountNumber: NEW_ACCOUNT }, { routingNumber: NEW_ROUTING, accountNumber: NEW_ACCOUNT }, 'checking'],
      ['C06', { accountNumber: NEW_ACCOUNT, accountType: 'savings' }, { routingNumber: OLD_ROUTING, accountNumber: NEW_ACCOUNT }, 'savings'],
      ['C07', { routingNumber: NEW_ROUTING, accountNumber: NEW_ACCOUNT, accountType: 'savings' }, { routingNumber: NEW_ROUTING, accountNumber: NEW_ACCOUNT }, 'savings'],
    ]
    for (const [code, correction, expected, accountType] of combined) {
      it(`${code}: corrects ${Object.keys(correction).join(', ')} at once`, async () => {
        const { ingest, submitted, method, numbers, corrections } = bench()
        const { bank } = await submitted([40_000])
        const before = method(bank.id)
        const file = right(await ingest({ notices: [noticeOf(5, trace(1), code, correction)] }))
        expect(file.report?.notices).to.deep.equal([reported(5, trace(1), code, bank.id, 'applied')])
        expect(method(bank.id)).to.deep.equal({ ...before, last4: '4321', accountType, updatedAt: at('2026-01-16') })
        expect(await numbers(bank.id)).to.deep.equal(O.some(expected))
        expect(corrections().map((e) => e.details)).to.deep.equal([
          {
            loan_id: bank.loanId,
            change_code: code,
            inbound_file_id: file.id,
            original_trace: trace(1),
            before: { last4: '6789', routing_number: OLD_ROUTING, account_type: 'checking' },
            after: { last4: '4321', routing_number: expected.routingNumber, account_type: accountType },
          },
        ])
        expectNoAccountNumber(corrections(), NEW_ACCOUNT, OLD_ACCOUNT)
      })
    }

    it('a debit taken after the correction goes out with the corrected numbers', async () => {
      const { ingest, submitted, pay, clock, originate, store, method, seal } = bench()
      const { loan, bank } = await submitted([40_000])
      right(await ingest({ notices: [noticeOf(5, trace(1), 'C03', { routingNumber: NEW_ROUTING, accountNumber: NEW_ACCOUNT })] }))
      const later = right(await pay(loan.id, method(bank.id), 10_000, 'after-correction'))
      clock.set(new Date('2026-01-16T21:00:00.000Z'))
      expect(await originate('2026-01-16T15:30')).to.deep.equal({ _tag: 'Completed', resumed: false })
      const sent = await some(store.entryByTrace(trace(2)))
      expect(sent).to.deep.include({ paymentId: later.id, status: 'sent' })
      const rows = await run(store.debitsOf(sent.fileId))
      expect(rows.map((r) => [r.paymentId, r.sealedAccount === null ? null : O.toNullable(seal.open(r.paymentMethodId, r.sealedAccount))])).to.deep.equal([
        [later.id, { routingNumber: NEW_ROUTING, accountNumber: NEW_ACCOUNT }],
      ])
    })
  })

  describe('applied once', () => {
    it('changes nothing when the same file is ingested again: it answers the record it stored', async () => {
      const { ingest, submitted, world, clock, inbound, corrections } = bench()
      const { bank } = await submitted([40_000])
      const bytes = fileOf({ notices: [noticeOf(5, trace(1), 'C01', { accountNumber: NEW_ACCOUNT })] })
      const first = right(await ingest(bytes))
      expect(first.report?.notices).to.deep.equal([reported(5, trace(1), 'C01', bank.id, 'applied')])
      const before = world()
      expect(corrections()).to.have.length(1)

      clock.set(at('2026-01-20'))
      const again = right(await ingest(bytes))
      expect(again).to.deep.equal(first)
      expect(world()).to.deep.equal(before)
      expect(corrections()).to.have.length(1)
      expect(inbound.notices().map((n) => [n.inboundFileId, n.outcome])).to.deep.equal([[first.id, 'applied']])
    })

    it('reports duplicate, changing nothing, for another file\'s notice of the same entry', async () => {
      const { ingest, submitted, world, clock, inbound, method, numbers, corrections } = bench()
      const { bank } = await submitted([40_000])
      const first = right(await ingest({ notices: [noticeOf(5, trace(1), 'C01', { accountNumber: NEW_ACCOUNT })] }))
      const before = world()

      clock.set(at('2026-01-20'))
      // The same notice resent, then another correction of the same entry: each file's notice of it is a duplicate.
      const resent = right(await ingest({ notices: [noticeOf(5, trace(1), 'C01', { accountNumber: NEW_ACCOUNT })], batch: 'resent' }))
      expect(resent.id).to.not.equal(first.id)
      expect(resent.report?.notices).to.deep.equal([reported(5, trace(1), 'C01', bank.id, 'duplicate')])
      const other = right(await ingest({ notices: [noticeOf(7, trace(1), 'C02', { routingNumber: NEW_ROUTING })] }))
      expect(other.report?.notices).to.deep.equal([reported(7, trace(1), 'C02', bank.id, 'duplicate')])

      expect(world()).to.deep.equal(before)
      expect(corrections()).to.have.length(1)
      expect(method(bank.id)).to.deep.include({ last4: '4321', updatedAt: at('2026-01-16') })
      expect(await numbers(bank.id)).to.deep.equal(O.some({ routingNumber: OLD_ROUTING, accountNumber: NEW_ACCOUNT }))
      expect(inbound.notices().map((n) => [n.inboundFileId, n.changeCode, n.outcome])).to.deep.equal([[first.id, 'C01', 'applied']])
    })

    // Once per notice (decision 143): a second notice of the same entry in the same file is not
    // applied (it was never recorded), and the report names it, not the first one again.
    it('applies one notice of an entry that a file names twice: the second is a duplicate, reported as itself', async () => {
      const { ingest, submitted, method, numbers, corrections, inbound } = bench()
      const { bank } = await submitted([10_000])
      const file = right(
        await ingest({ notices: [noticeOf(3, trace(1), 'C01', { accountNumber: NEW_ACCOUNT }), noticeOf(5, trace(1), 'C02', { routingNumber: NEW_ROUTING })] }),
      )
      expect(inbound.notices().map((n) => [n.record, n.changeCode, n.outcome])).to.deep.equal([[3, 'C01', 'applied']])
      expect(method(bank.id).last4).to.equal('4321')
      expect(await numbers(bank.id)).to.deep.equal(O.some({ routingNumber: OLD_ROUTING, accountNumber: NEW_ACCOUNT }))
      expect(corrections().map((e) => e.details['change_code'])).to.deep.equal(['C01'])
      expect(file.report?.notices).to.deep.equal([reported(3, trace(1), 'C01', bank.id, 'applied'), reported(5, trace(1), 'C02', bank.id, 'duplicate')])
    })

    it('finishes a file whose ingestion stopped after recording the notice, before correcting: corrected once', async () => {
      const { ingest, submitted, method, numbers, corrections, inbound, paymentMethods } = bench()
      const { bank } = await submitted([40_000])
      const before = method(bank.id)
      const bytes = fileOf({ notices: [noticeOf(5, trace(1), 'C01', { accountNumber: NEW_ACCOUNT })] })
      let failures = 1
      const failingCorrect: IngestionDeps['paymentMethods'] = {
        ...paymentMethods,
        correct: (m, sealed, audit, before) => (failures-- > 0 ? TE.left(storeUnavailable('connection reset')) : paymentMethods.correct(m, sealed, audit, before)),
      }
      expect(await ingest(bytes, { paymentMethods: failingCorrect })).to.deep.equal(E.left(storeUnavailable('connection reset')))
      // Recorded applied, the account not yet corrected, the file not finished.
      expect(inbound.notices().map((n) => [n.originalTrace, n.paymentMethodId, n.outcome])).to.deep.equal([[trace(1), bank.id, 'applied']])
      expect(method(bank.id)).to.deep.equal(before)
      expect(await numbers(bank.id)).to.deep.equal(O.some({ routingNumber: OLD_ROUTING, accountNumber: OLD_ACCOUNT }))
      expect(corrections()).to.deep.equal([])
      const fileId = inbound.notices()[0]!.inboundFileId
      expect((await some(inbound.findFile(fileId))).status).to.equal('ingesting')

      const finished = right(await ingest(bytes, { paymentMethods: failingCorrect }))
      expect(finished).to.deep.include({ id: fileId, status: 'ingested' })
      expect(finished.report?.notices).to.deep.equal([reported(5, trace(1), 'C01', bank.id, 'applied')])
      expect(method(bank.id)).to.deep.equal({ ...before, last4: '4321', updatedAt: at('2026-01-16') })
      expect(await numbers(bank.id)).to.deep.equal(O.some({ routingNumber: OLD_ROUTING, accountNumber: NEW_ACCOUNT }))
      expect(corrections()).to.have.length(1)
      expect(corrections()[0]!.details).to.deep.include({ change_code: 'C01', inbound_file_id: fileId, original_trace: trace(1) })
      expect(inbound.notices()).to.have.length(1)

      // Once more: the file answers as stored, nothing corrected again.
      expect(right(await ingest(bytes))).to.deep.equal(finished)
      expect(corrections()).to.have.length(1)
    })

    it('finishes a file whose ingestion stopped after correcting, before the file was finished: not corrected twice', async () => {
      const { ingest, submitted, method, corrections, inbound, clock } = bench()
      const { bank } = await submitted([40_000])
      const bytes = fileOf({ notices: [noticeOf(5, trace(1), 'C05', { accountType: 'savings' })] })
      let failures = 1
      const failingFinish: IngestionDeps['inbound'] = { ...inbound, finish: (id, report) => (failures-- > 0 ? TE.left(storeUnavailable('connection reset')) : inbound.finish(id, report)) }
      expect(await ingest(bytes, { inbound: failingFinish })).to.deep.equal(E.left(storeUnavailable('connection reset')))
      expect(method(bank.id)).to.deep.include({ accountType: 'savings', updatedAt: at('2026-01-16') })
      expect(corrections()).to.have.length(1)

      clock.set(at('2026-01-20'))
      const finished = right(await ingest(bytes, { inbound: failingFinish }))
      expect(finished.status).to.equal('ingested')
      expect(finished.report?.notices).to.deep.equal([reported(5, trace(1), 'C05', bank.id, 'applied')])
      expect(corrections()).to.have.length(1)
      // The account already is so: not written again.
      expect(method(bank.id)).to.deep.include({ accountType: 'savings', updatedAt: at('2026-01-16') })
    })
  })

  describe('a notice not applied', () => {
    it('records unsupported, with why, a notice whose correction is none we apply (C09)', async () => {
      const { ingest, submitted, world, inbound } = bench()
      const { bank } = await submitted([40_000])
      const before = world()
      const reason = 'change code C09 (individual identification number) is not one we apply'
      const file = right(await ingest({ notices: [noticeOf(5, trace(1), 'C09', reason)] }))
      expect(file.report?.notices).to.deep.equal([reported(5, trace(1), 'C09', bank.id, 'unsupported', reason)])
      const after = world()
      expect({ ...after, notices: [] }).to.deep.equal({ ...before, notices: [] })
      expect(inbound.notices().map((n) => [n.inboundFileId, n.changeCode, n.paymentMethodId, n.outcome, n.detail])).to.deep.equal([[file.id, 'C09', bank.id, 'unsupported', reason]])
    })

    it('records unmatched, with no method, a notice naming none of our entries', async () => {
      const { ingest, submitted, world, inbound } = bench()
      await submitted([40_000])
      const before = world()
      const file = right(await ingest({ notices: [noticeOf(5, UNKNOWN_TRACE, 'C01', { accountNumber: NEW_ACCOUNT })] }))
      expect(file.report?.notices).to.deep.equal([reported(5, UNKNOWN_TRACE, 'C01', null, 'unmatched')])
      expect({ ...world(), notices: [] }).to.deep.equal({ ...before, notices: [] })
      expect(inbound.notices().map((n) => [n.originalTrace, n.paymentMethodId, n.outcome, n.detail])).to.deep.equal([[UNKNOWN_TRACE, null, 'unmatched', null]])
    })

    it('records method_blocked, correcting nothing, a notice of a blocked method', async () => {
      const { ingest, submitted, world, inbound, paymentMethods, method, clock } = bench()
      const { bank } = await submitted([40_000])
      await run(paymentMethods.block(bank.id, at('2026-01-16')))
      expect(method(bank.id).status).to.equal('blocked')
      const before = world()
      clock.set(at('2026-01-20'))
      const file = right(await ingest({ notices: [noticeOf(5, trace(1), 'C01', { accountNumber: NEW_ACCOUNT })] }))
      expect(file.report?.notices).to.deep.equal([reported(5, trace(1), 'C01', bank.id, 'method_blocked')])
      expect({ ...world(), notices: [] }).to.deep.equal({ ...before, notices: [] })
      expect(method(bank.id)).to.deep.include({ last4: '6789', status: 'blocked', updatedAt: at('2026-01-16') })
      expect(inbound.notices().map((n) => [n.paymentMethodId, n.outcome, n.detail])).to.deep.equal([[bank.id, 'method_blocked', null]])
    })

    it('records method_blocked for a method a return in the same file blocked first', async () => {
      const { ingest, submitted, method, corrections } = bench()
      const { bank, debits } = await submitted([10_000, 20_000])
      const file = right(await ingest({ returns: [returnOf(3, trace(1), 'R02', 10_000)], notices: [noticeOf(5, trace(2), 'C01', { accountNumber: NEW_ACCOUNT })] }))
      expect(file.report?.returns.map((r) => [r.paymentId, r.outcome])).to.deep.equal([[debits[0]!.id, 'applied']])
      expect(file.report?.notices).to.deep.equal([reported(5, trace(2), 'C01', bank.id, 'method_blocked')])
      expect(method(bank.id)).to.deep.include({ status: 'blocked', last4: '6789' })
      expect(corrections()).to.deep.equal([])
    })
  })

  describe('an account whose numbers are not kept', () => {
    it('records unsupported a number corrected alone (C01); applies a correction of its type (C05)', async () => {
      const { ingest, submitted, method, paymentMethods, numbers, corrections, inbound } = bench()
      // Added while no seal was configured: its debits were dropped from the file, their entries numbered all the same.
      const { bank } = await submitted([10_000, 20_000], false)
      expect(paymentMethods.sealedNumbers(bank.id)).to.equal(undefined)
      const before = method(bank.id)

      const file = right(
        await ingest({
          notices: [noticeOf(5, trace(1), 'C01', { accountNumber: NEW_ACCOUNT }), noticeOf(7, trace(2), 'C05', { accountType: 'savings' })],
        }),
      )
      expect(file.report?.notices).to.deep.equal([reported(5, trace(1), 'C01', bank.id, 'unsupported', NOT_KEPT), reported(7, trace(2), 'C05', bank.id, 'applied')])
      expect(inbound.notices().map((n) => [n.changeCode, n.outcome, n.detail])).to.deep.equal([
        ['C01', 'unsupported', NOT_KEPT],
        ['C05', 'applied', null],
      ])
      // The type alone is corrected: no numbers are kept for it still.
      expect(method(bank.id)).to.deep.equal({ ...before, accountType: 'savings', updatedAt: at('2026-01-16') })
      expect(paymentMethods.sealedNumbers(bank.id)).to.equal(undefined)
      expect(await numbers(bank.id)).to.deep.equal(O.none)
      expect(corrections().map((e) => e.details)).to.deep.equal([
        {
          loan_id: bank.loanId,
          change_code: 'C05',
          inbound_file_id: file.id,
          original_trace: trace(2),
          before: { last4: '6789', routing_number: null, account_type: 'checking' },
          after: { last4: '6789', routing_number: null, account_type: 'savings' },
        },
      ])
    })

    it('stops, deciding and recording nothing, on an account whose sealed numbers do not open with the key given (not the server’s)', async () => {
      const { ingest, submitted, method, paymentMethods, corrections, inbound } = bench()
      const { bank } = await submitted([40_000])
      const sealedBefore = paymentMethods.sealedNumbers(bank.id)
      const before = method(bank.id)
      // Both numbers corrected at once (C03) would otherwise be sealed over numbers the server's key opens.
      for (const notice of [noticeOf(5, trace(1), 'C02', { routingNumber: NEW_ROUTING }), noticeOf(5, trace(1), 'C03', { routingNumber: NEW_ROUTING, accountNumber: NEW_ACCOUNT })]) {
        const stopped = await ingest({ notices: [notice] }, { accountSeal: fakeAccountSeal('another-key') })
        if (E.isRight(stopped)) return expect.fail('a notice was decided on numbers that do not open')
        expect(stopped.left._tag).to.equal('StoreUnavailable')
        expect(String((stopped.left as { readonly cause: unknown }).cause)).to.match(/do not open with this sealing key/)
      }
      expect(inbound.notices()).to.deep.equal([])
      expect(method(bank.id)).to.deep.equal(before)
      expect(paymentMethods.sealedNumbers(bank.id)).to.equal(sealedBefore)
      expect(corrections()).to.deep.equal([])
      // With the server's key, the same file applies.
      const file = right(await ingest({ notices: [noticeOf(5, trace(1), 'C02', { routingNumber: NEW_ROUTING })] }))
      expect(file.report?.notices).to.deep.equal([reported(5, trace(1), 'C02', bank.id, 'applied')])
    })

    it('records unsupported a corrected account number a partner could not add (letters, or fewer than 4 digits)', async () => {
      const { ingest, submitted, method, corrections } = bench()
      const { bank } = await submitted([40_000, 10_000])
      const before = method(bank.id)
      const file = right(await ingest({ notices: [noticeOf(3, trace(1), 'C01', { accountNumber: '12-34A' }), noticeOf(5, trace(2), 'C01', { accountNumber: '123' })] }))
      const why = 'the corrected account number is not 4 to 17 digits, as a bank account added here must be'
      expect(file.report?.notices).to.deep.equal([reported(3, trace(1), 'C01', bank.id, 'unsupported', why), reported(5, trace(2), 'C01', bank.id, 'unsupported', why)])
      expect(method(bank.id)).to.deep.equal(before)
      expect(corrections()).to.deep.equal([])
    })

    it('applies both numbers corrected at once (C03): they are kept, sealed, from then on', async () => {
      const { ingest, submitted, method, numbers, corrections } = bench()
      const { bank } = await submitted([10_000], false)
      expect(await numbers(bank.id)).to.deep.equal(O.none)
      const before = method(bank.id)
      const file = right(await ingest({ notices: [noticeOf(5, trace(1), 'C03', { routingNumber: NEW_ROUTING, accountNumber: NEW_ACCOUNT })] }))
      expect(file.report?.notices).to.deep.equal([reported(5, trace(1), 'C03', bank.id, 'applied')])
      expect(method(bank.id)).to.deep.equal({ ...before, last4: '4321', updatedAt: at('2026-01-16') })
      expect(await numbers(bank.id)).to.deep.equal(O.some({ routingNumber: NEW_ROUTING, accountNumber: NEW_ACCOUNT }))
      expect(corrections().map((e) => [e.details['before'], e.details['after']])).to.deep.equal([
        [
          { last4: '6789', routing_number: null, account_type: 'checking' },
          { last4: '4321', routing_number: NEW_ROUTING, account_type: 'checking' },
        ],
      ])
      expectNoAccountNumber(corrections(), NEW_ACCOUNT)
    })
  })

  describe('the seal', () => {
    it('refuses a file holding a notice without the seal, recording nothing; a file of returns alone is ingested', async () => {
      const { ingest, submitted, world, inbound, payment } = bench()
      const { debits } = await submitted([10_000, 20_000])
      const before = world()
      const refused = await ingest({ returns: [returnOf(3, trace(1), 'R01', 10_000)], notices: [noticeOf(9, trace(2), 'C01', { accountNumber: NEW_ACCOUNT })] }, { accountSeal: undefined })
      expect(refused).to.deep.equal(E.left(invalidRequest('Record 9 is a notice of change: applying it needs the key that seals account numbers (WEBHOOK_SECRET_KEY). Nothing was applied.', 'file')))
      expect(world()).to.deep.equal(before)
      expect(inbound.notices()).to.deep.equal([])
      expect(inbound.returns()).to.deep.equal([])

      const returnsOnly = right(await ingest({ returns: [returnOf(3, trace(1), 'R01', 10_000)] }, { accountSeal: undefined }))
      expect(returnsOnly.status).to.equal('ingested')
      expect(returnsOnly.report).to.deep.equal({
        returns: [{ record: 3, originalTrace: trace(1), returnCode: 'R01', amount: 10_000, paymentId: debits[0]!.id, clientId: debits[0]!.clientId, outcome: 'applied', late: false }],
        notices: [],
        others: [],
      })
      expect((await payment(debits[0]!.id)).status).to.equal('RETURNED')
      expect(inbound.notices()).to.deep.equal([])
    })
  })

  describe('returns and notices in one file', () => {
    it('applies both, returns then notices, and reports each', async () => {
      const { ingest, submitted, payment, method, numbers, inbound, applications } = bench()
      const { bank, debits } = await submitted([10_000, 20_000])
      const others: InboundOther[] = [{ record: 11, traceNumber: '021000020000042', amount: 5_000 }]
      const file = right(
        await ingest({
          // The notice comes first in the file; returns are applied first all the same.
          notices: [noticeOf(3, trace(2), 'C01', { accountNumber: NEW_ACCOUNT })],
          returns: [returnOf(7, trace(1), 'R01', 10_000)],
          others,
        }),
      )
      expect(file.report).to.deep.equal({
        returns: [{ record: 7, originalTrace: trace(1), returnCode: 'R01', amount: 10_000, paymentId: debits[0]!.id, clientId: debits[0]!.clientId, outcome: 'applied', late: false }],
        notices: [reported(3, trace(2), 'C01', bank.id, 'applied')],
        others,
      })
      expect((await payment(debits[0]!.id)).status).to.equal('RETURNED')
      expect((await payment(debits[1]!.id)).status).to.equal('SUBMITTED')
      expect(method(bank.id)).to.deep.include({ status: 'active', last4: '4321' })
      expect(await numbers(bank.id)).to.deep.equal(O.some({ routingNumber: OLD_ROUTING, accountNumber: NEW_ACCOUNT }))
      expect(applications.audit.all().map((e) => e.action).filter((a) => a === 'payment.returned' || a === 'payment_method.corrected')).to.deep.equal(['payment.returned', 'payment_method.corrected'])
      expect(inbound.returns().map((r) => [r.inboundFileId, r.outcome])).to.deep.equal([[file.id, 'applied']])
      expect(inbound.notices().map((n) => [n.inboundFileId, n.outcome])).to.deep.equal([[file.id, 'applied']])
    })

    it('reports several notices in file order, each with its outcome', async () => {
      const { ingest, submitted, method, corrections } = bench()
      const { bank } = await submitted([10_000, 20_000, 30_000])
      const file = right(
        await ingest({
          notices: [
            noticeOf(3, trace(3), 'C05', { accountType: 'savings' }),
            noticeOf(5, UNKNOWN_TRACE, 'C01', { accountNumber: NEW_ACCOUNT }),
            noticeOf(7, trace(1), 'C13', 'change code C13 is not one we apply'),
            noticeOf(9, trace(2), 'C02', { routingNumber: NEW_ROUTING }),
          ],
        }),
      )
      expect(file.report?.notices).to.deep.equal([
        reported(3, trace(3), 'C05', bank.id, 'applied'),
        reported(5, UNKNOWN_TRACE, 'C01', null, 'unmatched'),
        reported(7, trace(1), 'C13', bank.id, 'unsupported', 'change code C13 is not one we apply'),
        reported(9, trace(2), 'C02', bank.id, 'applied'),
      ])
      expect(method(bank.id)).to.deep.include({ accountType: 'savings', last4: '6789' })
      // The second correction starts from what the first left.
      expect(corrections().map((e) => [e.details['change_code'], e.details['before'], e.details['after']])).to.deep.equal([
        ['C05', { last4: '6789', routing_number: OLD_ROUTING, account_type: 'checking' }, { last4: '6789', routing_number: OLD_ROUTING, account_type: 'savings' }],
        ['C02', { last4: '6789', routing_number: OLD_ROUTING, account_type: 'savings' }, { last4: '6789', routing_number: NEW_ROUTING, account_type: 'savings' }],
      ])
    })
  })
})
