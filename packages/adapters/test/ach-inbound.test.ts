import { randomBytes, randomInt } from 'node:crypto'
import {
  OPERATOR_CONTEXT,
  newLoanProduct,
  paymentMethodCorrectedEvent,
  type AchInbound,
  type AchInboundFileRecord,
  type AchIngestReport,
  type AchNoticeRecord,
  type AchReturnRecord,
  type InboundFileId,
  type BookedLoan,
  type LoanProduct,
  type PaymentMethodRepository,
} from '@lendgate/core'
import { inMemoryAchInbound, inMemoryAuditLog, inMemoryEventLog, inMemoryLoanApplicationRepository, inMemoryPaymentMethodRepository, testId } from '@lendgate/core/testing'
import { freshId, right, type Implementation } from '@lendgate/core/testing/contracts'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type { Kysely } from 'kysely'
import { bankAccountOf, BOOKED_AT, bookingThrough, type LoanBorrower } from '../../core/src/testing/contracts/loan-servicing-contract.js'
import { postgresAchInbound } from '../src/postgres/ach-inbound.js'
import { postgresLoanApplicationRepository } from '../src/postgres/loan-application-repository.js'
import { postgresLoanProductRepository } from '../src/postgres/loan-product-repository.js'
import { postgresOnboardingSessionRepository } from '../src/postgres/onboarding-session-repository.js'
import { postgresPaymentMethodRepository } from '../src/postgres/payment-method-repository.js'
import type { Database } from '../src/postgres/schema.js'
import { testWorlds } from '../src/testing/test-databases.js'
import { clientOwner, partyMaker } from './support/database-fixtures.js'

/**
 * The inbound ACH records (`AchInbound`, docs/ach.md "Returns and notices of change") held to
 * one behaviour in memory and in PostgreSQL (each test world): one file per SHA-256, one return
 * and one notice per original trace number, whichever file brings them and however many
 * ingestions race; and `PaymentMethodRepository.block`, which a blocking return calls.
 *
 * The databases are shared by the run's suites (and a real server's by runs): every id, hash and
 * trace number here is fresh and random, and nothing assumes a table is empty.
 */

/** What a store keeps of a trace number's return or notice, whatever the implementation: the id and file of the one recorded. */
type Kept = { readonly id: string; readonly inboundFileId: string }

type InboundFixtures = {
  readonly inbound: AchInbound
  readonly returnsOf: (originalTrace: string) => Promise<readonly Kept[]>
  readonly noticesOf: (originalTrace: string) => Promise<readonly Kept[]>
}

const freshSha = (): string => randomBytes(32).toString('hex')
/** 15 random digits: a trace number no other test names. */
const freshTrace = (): string => Array.from({ length: 15 }, () => randomInt(10)).join('')

const RECEIVED_AT = new Date('2026-07-14T13:05:06.789Z')

const newFile = (receivedAt = RECEIVED_AT): Pick<AchInboundFileRecord, 'id' | 'sha256' | 'receivedAt'> => ({ id: freshId(), sha256: freshSha(), receivedAt })

const aReturn = (inboundFileId: InboundFileId, originalTrace: string, fields: Partial<AchReturnRecord> = {}): AchReturnRecord => ({
  id: freshId(),
  inboundFileId,
  record: 3,
  originalTrace,
  returnCode: 'R01',
  category: 'other',
  amount: 12_354,
  paymentId: null,
  clientId: null,
  receivedOn: '2026-07-14',
  outcome: 'unmatched',
  late: false,
  ...fields,
})

const aNotice = (inboundFileId: InboundFileId, originalTrace: string, fields: Partial<AchNoticeRecord> = {}): AchNoticeRecord => ({
  id: freshId(),
  inboundFileId,
  record: 3,
  originalTrace,
  changeCode: 'C01',
  paymentMethodId: null,
  receivedOn: '2026-07-14',
  outcome: 'unmatched',
  detail: null,
  ...fields,
})

const achInboundChecks = (impl: Implementation<InboundFixtures>): void => {
  describe(`AchInbound on ${impl.name}`, () => {
    let made: InboundFixtures
    before(async () => {
      made = await impl.make()
    })
    const inbound = (): AchInbound => made.inbound

    it('records a new file ingesting, with no report, as given', async () => {
      const file = newFile()
      const opened = await right(inbound().openFile(file))
      expect(opened).to.deep.equal({ ...file, status: 'ingesting', report: null })
      expect(await right(inbound().findFile(file.id))).to.deep.equal(O.some(opened))
    })

    it('answers the file first recorded when a file of the same SHA-256 is opened again, whatever its id and time', async () => {
      const first = newFile()
      const opened = await right(inbound().openFile(first))
      const again = { id: freshId(), sha256: first.sha256, receivedAt: new Date(RECEIVED_AT.getTime() + 86_400_000) }
      expect(await right(inbound().openFile(again))).to.deep.equal(opened)
      expect(await right(inbound().findFile(again.id))).to.deep.equal(O.none)
      expect(await right(inbound().findFile(first.id))).to.deep.equal(O.some(opened))
    })

    it('finds no file for an id never opened', async () => {
      expect(await right(inbound().findFile(freshId()))).to.deep.equal(O.none)
    })

    it('refuses a new SHA-256 under an id another file has, leaving that file as it was', async () => {
      const first = newFile()
      const opened = await right(inbound().openFile(first))
      const clash = await inbound().openFile({ ...first, sha256: freshSha() })()
      expect(E.isLeft(clash) && clash.left._tag).to.equal('StoreUnavailable')
      expect(await right(inbound().findFile(first.id))).to.deep.equal(O.some(opened))
    })

    it('records a return once per original trace: the first, answered again to a later one from the same file or another', async () => {
      const [file, other] = [await right(inbound().openFile(newFile())), await right(inbound().openFile(newFile()))]
      const trace = freshTrace()
      const first = aReturn(file.id, trace, { returnCode: 'R03', category: 'administrative', late: true })
      expect(await right(inbound().recordReturn(first))).to.deep.equal(first)
      expect(await right(inbound().recordReturn(aReturn(file.id, trace, { record: 7 })))).to.deep.equal(first)
      expect(await right(inbound().recordReturn(aReturn(other.id, trace, { returnCode: 'R10', category: 'unauthorized' })))).to.deep.equal(first)
      expect(await made.returnsOf(trace)).to.deep.equal([{ id: first.id, inboundFileId: file.id }])
      // Another trace of the same file is another return.
      const next = aReturn(file.id, freshTrace(), { record: 7 })
      expect(await right(inbound().recordReturn(next))).to.deep.equal(next)
      expect(await made.returnsOf(next.originalTrace)).to.deep.equal([{ id: next.id, inboundFileId: file.id }])
    })

    it('records a notice once per original trace: the first, answered again to a later one from the same file or another', async () => {
      const [file, other] = [await right(inbound().openFile(newFile())), await right(inbound().openFile(newFile()))]
      const trace = freshTrace()
      const first = aNotice(file.id, trace, { changeCode: 'C09', outcome: 'unsupported', detail: 'C09: not a change code this package reads' })
      expect(await right(inbound().recordNotice(first))).to.deep.equal(first)
      expect(await right(inbound().recordNotice(aNotice(file.id, trace)))).to.deep.equal(first)
      expect(await right(inbound().recordNotice(aNotice(other.id, trace, { changeCode: 'C02' })))).to.deep.equal(first)
      expect(await made.noticesOf(trace)).to.deep.equal([{ id: first.id, inboundFileId: file.id }])
      const next = aNotice(other.id, freshTrace())
      expect(await right(inbound().recordNotice(next))).to.deep.equal(next)
      expect(await made.noticesOf(next.originalTrace)).to.deep.equal([{ id: next.id, inboundFileId: other.id }])
    })

    it('keeps returns and notices apart: a notice naming a returned trace is recorded, and the other way round', async () => {
      const file = await right(inbound().openFile(newFile()))
      const [returnedFirst, noticedFirst] = [freshTrace(), freshTrace()]
      const [returned, noticed] = [aReturn(file.id, returnedFirst), aNotice(file.id, returnedFirst)]
      expect(await right(inbound().recordReturn(returned))).to.deep.equal(returned)
      expect(await right(inbound().recordNotice(noticed))).to.deep.equal(noticed)
      const [laterNotice, laterReturn] = [aNotice(file.id, noticedFirst), aReturn(file.id, noticedFirst)]
      expect(await right(inbound().recordNotice(laterNotice))).to.deep.equal(laterNotice)
      expect(await right(inbound().recordReturn(laterReturn))).to.deep.equal(laterReturn)
    })

    it('finishes a file: ingested, with its report read back as written; opening its hash again answers it so', async () => {
      const file = newFile()
      await right(inbound().openFile(file))
      const report: AchIngestReport = {
        returns: [
          { record: 3, originalTrace: freshTrace(), returnCode: 'R01', amount: 12_354, paymentId: testId(freshId()), clientId: testId(freshId()), outcome: 'applied', late: false },
          { record: 7, originalTrace: freshTrace(), returnCode: 'R03', amount: 4_565, paymentId: null, clientId: null, outcome: 'unmatched', late: true },
          { record: 9, originalTrace: freshTrace(), returnCode: 'R97', amount: 106_161, paymentId: null, clientId: null, outcome: 'duplicate', late: false },
        ],
        notices: [
          { record: 11, originalTrace: freshTrace(), changeCode: 'C01', paymentMethodId: testId(freshId()), outcome: 'applied', detail: null },
          { record: 13, originalTrace: freshTrace(), changeCode: 'C05', paymentMethodId: null, outcome: 'unsupported', detail: 'a general-ledger account cannot be debited for a loan payment' },
        ],
        others: [{ record: 15, traceNumber: freshTrace(), amount: 100_000_000 }],
      }
      await right(inbound().finish(file.id, report))
      const finished: AchInboundFileRecord = { ...file, status: 'ingested', report }
      expect(await right(inbound().findFile(file.id))).to.deep.equal(O.some(finished))
      expect(await right(inbound().openFile({ ...newFile(), sha256: file.sha256 }))).to.deep.equal(finished)
    })

    it('finishes an empty report too, and finishing an id never opened records nothing', async () => {
      const file = newFile()
      await right(inbound().openFile(file))
      const empty: AchIngestReport = { returns: [], notices: [], others: [] }
      await right(inbound().finish(file.id, empty))
      expect(await right(inbound().findFile(file.id))).to.deep.equal(O.some({ ...file, status: 'ingested', report: empty }))
      const never = freshId()
      await right(inbound().finish(never, empty))
      expect(await right(inbound().findFile(never))).to.deep.equal(O.none)
    })

    it('answers one file to openings of one hash at once, and records one return and one notice of a trace raced for', async () => {
      const sha256 = freshSha()
      const openings = Array.from({ length: 8 }, () => ({ id: freshId(), sha256, receivedAt: RECEIVED_AT }))
      const opened = await Promise.all(openings.map((file) => right(inbound().openFile(file))))
      const ids = new Set(opened.map((file) => file.id))
      expect(ids.size, 'files answered').to.equal(1)
      expect(openings.map((file) => file.id)).to.include(opened[0]!.id)
      expect(opened.every((file) => file.sha256 === sha256 && file.status === 'ingesting')).to.equal(true)
      const found = await Promise.all(openings.map((file) => right(inbound().findFile(file.id))))
      expect(found.filter(O.isSome)).to.have.length(1)

      const trace = freshTrace()
      const fileId = opened[0]!.id
      const returns = Array.from({ length: 8 }, () => aReturn(fileId, trace))
      const recorded = await Promise.all(returns.map((entry) => right(inbound().recordReturn(entry))))
      // Every racer is answered the one return recorded, which is one of theirs.
      expect(new Set(recorded.map((r) => r.id)).size).to.equal(1)
      expect(returns.map((r) => r.id)).to.include(recorded[0]!.id)
      expect(await made.returnsOf(trace)).to.deep.equal([{ id: recorded[0]!.id, inboundFileId: fileId }])
      const notices = Array.from({ length: 8 }, () => aNotice(fileId, trace))
      const noticed = await Promise.all(notices.map((notice) => right(inbound().recordNotice(notice))))
      expect(new Set(noticed.map((n) => n.id)).size).to.equal(1)
      expect(notices.map((n) => n.id)).to.include(noticed[0]!.id)
      expect(await made.noticesOf(trace)).to.deep.equal([{ id: noticed[0]!.id, inboundFileId: fileId }])
    })
  })
}

achInboundChecks({
  name: 'in memory',
  make: async () => {
    const inbound = inMemoryAchInbound()
    return {
      inbound,
      returnsOf: async (trace) => inbound.returns().filter((r) => r.originalTrace === trace).map(({ id, inboundFileId }) => ({ id, inboundFileId })),
      noticesOf: async (trace) => inbound.notices().filter((n) => n.originalTrace === trace).map(({ id, inboundFileId }) => ({ id, inboundFileId })),
    }
  },
})

for (const database of testWorlds()) {
  achInboundChecks({
    name: database.name,
    make: async () => {
      const { world } = await database.open()
      return {
        inbound: postgresAchInbound(world),
        returnsOf: async (trace) => (await world.selectFrom('ach_returns').select(['id', 'inbound_file_id']).where('original_trace', '=', trace).execute()).map((r) => ({ id: r.id, inboundFileId: r.inbound_file_id })),
        noticesOf: async (trace) => (await world.selectFrom('ach_notices').select(['id', 'inbound_file_id']).where('original_trace', '=', trace).execute()).map((n) => ({ id: n.id, inboundFileId: n.inbound_file_id })),
      }
    },
  })

  describe(`AchInbound rows on ${database.name}`, () => {
    let world: Kysely<Database>
    before(async () => {
      world = (await database.open()).world
    })

    it('stores a return and a notice field for field, and refuses one naming no recorded file or outcome `duplicate`', async () => {
      const inbound = postgresAchInbound(world)
      const file = await right(inbound.openFile(newFile()))
      const entry = aReturn(file.id, freshTrace(), { record: 17, returnCode: 'R10', category: 'unauthorized', amount: 9_007_199_254, receivedOn: '2026-12-31', outcome: 'not_sent', late: true })
      expect(await right(inbound.recordReturn(entry))).to.deep.equal(entry)
      expect(await world.selectFrom('ach_returns').selectAll().where('id', '=', entry.id).execute()).to.deep.equal([
        {
          id: entry.id,
          inbound_file_id: file.id,
          record: 17,
          original_trace: entry.originalTrace,
          return_code: 'R10',
          category: 'unauthorized',
          amount: 9_007_199_254,
          payment_id: null,
          client_id: null,
          received_on: '2026-12-31',
          outcome: 'not_sent',
          late: true,
        },
      ])
      const notice = aNotice(file.id, freshTrace(), { record: 19, changeCode: 'C13', outcome: 'unsupported', detail: 'C13: not a change code this package reads', receivedOn: '2027-01-04' })
      expect(await right(inbound.recordNotice(notice))).to.deep.equal(notice)
      expect(await world.selectFrom('ach_notices').selectAll().where('id', '=', notice.id).execute()).to.deep.equal([
        {
          id: notice.id,
          inbound_file_id: file.id,
          record: 19,
          original_trace: notice.originalTrace,
          change_code: 'C13',
          payment_method_id: null,
          received_on: '2027-01-04',
          outcome: 'unsupported',
          detail: notice.detail,
        },
      ])
      // A return or notice names a recorded file (and a duplicate is reported, never recorded).
      expect(E.isLeft(await inbound.recordReturn(aReturn(freshId(), freshTrace()))())).to.equal(true)
      expect(E.isLeft(await inbound.recordNotice(aNotice(freshId(), freshTrace()))())).to.equal(true)
      expect(E.isLeft(await inbound.recordReturn(aReturn(file.id, freshTrace(), { outcome: 'duplicate' }))())).to.equal(true)
    })
  })
}

/** `PaymentMethodRepository.block` (a return whose code forbids another debit), over a booked loan. */
type MethodFixtures = { readonly methods: PaymentMethodRepository; readonly bookedLoan: () => Promise<BookedLoan> }

const blockChecks = (impl: Implementation<MethodFixtures>): void => {
  describe(`PaymentMethodRepository.block on ${impl.name}`, () => {
    let made: MethodFixtures
    before(async () => {
      made = await impl.make()
    })

    it('marks the method blocked at `at`: its sealed numbers serve no new debit; the loan’s other methods are left alone', async () => {
      const { methods } = made
      const { loan } = await made.bookedLoan()
      const account = bankAccountOf(loan.id, BOOKED_AT, true)
      const other = bankAccountOf(loan.id, BOOKED_AT, false)
      await right(methods.insert(account, 'sealed-numbers-of-the-account'))
      await right(methods.insert(other, 'sealed-numbers-of-the-other'))
      const blockedAt = new Date('2026-07-15T14:00:00.123Z')
      await right(methods.block(account.id, blockedAt))
      const blocked = { ...account, status: 'blocked' as const, updatedAt: blockedAt }
      expect(await right(methods.findForLoan(loan.id, account.id))).to.deep.equal(O.some(blocked))
      expect(await right(methods.sealedAccount(account.id))).to.deep.equal(O.none)
      expect(await right(methods.findForLoan(loan.id, other.id))).to.deep.equal(O.some(other))
      expect(await right(methods.sealedAccount(other.id))).to.deep.equal(O.some('sealed-numbers-of-the-other'))

      // Repeatable: a blocked method is left as it is.
      await right(methods.block(account.id, new Date('2026-07-16T09:00:00.000Z')))
      expect(await right(methods.findForLoan(loan.id, account.id))).to.deep.equal(O.some(blocked))

      // An update writes the nickname and default flag only: the method stays blocked.
      const renamedAt = new Date('2026-07-17T10:00:00.000Z')
      await right(methods.update({ ...account, status: 'active', nickname: 'Renamed account', updatedAt: renamedAt }))
      expect(await right(methods.findForLoan(loan.id, account.id))).to.deep.equal(O.some({ ...blocked, nickname: 'Renamed account', updatedAt: renamedAt }))
      expect(await right(methods.sealedAccount(account.id))).to.deep.equal(O.none)
    })

    it('blocks a method kept without sealed numbers, and does nothing for an id that is no method', async () => {
      const { methods } = made
      const { loan } = await made.bookedLoan()
      const account = bankAccountOf(loan.id, BOOKED_AT, true)
      await right(methods.insert(account, null))
      const blockedAt = new Date('2026-07-15T14:00:00.000Z')
      await right(methods.block(account.id, blockedAt))
      expect(await right(methods.findForLoan(loan.id, account.id))).to.deep.equal(O.some({ ...account, status: 'blocked', updatedAt: blockedAt }))
      await right(methods.block(freshId(), blockedAt))
    })

    it('corrects a bank account as a notice of change says: last4, type and sealed numbers replaced together; null keeps the numbers', async () => {
      const { methods } = made
      const { loan } = await made.bookedLoan()
      const account = bankAccountOf(loan.id, BOOKED_AT, true)
      await right(methods.insert(account, 'sealed-numbers-before'))
      const at = new Date('2026-07-20T15:00:00.000Z')
      const audit = paymentMethodCorrectedEvent(
        freshId(),
        OPERATOR_CONTEXT,
        account,
        { apiClientId: null, partyId: loan.partyId },
        { changeCode: 'C06', inboundFileId: freshId(), originalTrace: freshTrace(), before: { last4: account.last4, routingNumber: null, accountType: account.accountType }, after: { last4: '4321', routingNumber: null, accountType: 'savings' } },
        at,
      )
      const corrected = { ...account, last4: '4321', accountType: 'savings' as const, nickname: 'not written', updatedAt: at }
      const asInserted = { last4: account.last4, accountType: account.accountType, sealed: 'sealed-numbers-before' }
      expect(await right(methods.correct(corrected, 'sealed-numbers-after', audit, asInserted))).to.equal(true)
      expect(await right(methods.findForLoan(loan.id, account.id))).to.deep.equal(O.some({ ...account, last4: '4321', accountType: 'savings', updatedAt: at }))
      expect(await right(methods.sealedAccount(account.id))).to.deep.equal(O.some('sealed-numbers-after'))
      // The same correction decided on the account as it was: the account changed since, nothing is written.
      expect(await right(methods.correct({ ...corrected, last4: '9999' }, 'sealed-numbers-again', { ...audit, id: freshId() }, asInserted))).to.equal(false)
      expect(await right(methods.sealedAccount(account.id))).to.deep.equal(O.some('sealed-numbers-after'))
      // A correction of the type alone keeps the numbers.
      const later = new Date('2026-07-21T15:00:00.000Z')
      const asCorrected = { last4: '4321', accountType: 'savings' as const, sealed: 'sealed-numbers-after' }
      expect(await right(methods.correct({ ...corrected, accountType: 'checking', updatedAt: later }, null, { ...audit, id: freshId() }, asCorrected))).to.equal(true)
      expect(await right(methods.findForLoan(loan.id, account.id))).to.deep.equal(O.some({ ...account, last4: '4321', accountType: 'checking', updatedAt: later }))
      expect(await right(methods.sealedAccount(account.id))).to.deep.equal(O.some('sealed-numbers-after'))
    })
  })
}

/** The seeded Working Capital Term Loan (migration 0009), as servicing-contracts.test.ts books its loans. */
const WORKING_CAPITAL_ID = testId('5b0c1d2e-0001-4a00-8000-000000000001')

blockChecks({
  name: 'in memory',
  make: async () => {
    const applications = inMemoryLoanApplicationRepository(inMemoryAuditLog(), () => false, inMemoryEventLog())
    const product = newLoanProduct(
      { name: 'Working Capital Term Loan', currency: 'USD', min_amount: 500_000, max_amount: 25_000_000, min_term_months: 6, max_term_months: 36, interest_rate_bps: 1199, origination_fee_bps: 200 },
      WORKING_CAPITAL_ID,
      new Date(),
    )
    const borrower = async (): Promise<LoanBorrower> => ({ partyId: freshId(), clientId: freshId() })
    return { methods: inMemoryPaymentMethodRepository(applications.loans), bookedLoan: () => bookingThrough(applications, product, borrower)() }
  },
})

for (const database of testWorlds()) {
  blockChecks({
    name: database.name,
    make: async () => {
      const { db, world } = await database.open()
      const product = O.toNullable(await right(postgresLoanProductRepository(db).findById(WORKING_CAPITAL_ID)))
      if (product === null) throw new Error(`the seeded product ${WORKING_CAPITAL_ID} is missing`)
      const parties = partyMaker(postgresOnboardingSessionRepository(world), clientOwner(db))
      const borrower = async (): Promise<LoanBorrower> => {
        const party = await parties()
        return { partyId: party.id, clientId: party.clientId }
      }
      return { methods: postgresPaymentMethodRepository(world), bookedLoan: () => bookingThrough(postgresLoanApplicationRepository(world), product satisfies LoanProduct, borrower)() }
    },
  })
}
