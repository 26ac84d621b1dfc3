import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { NOT_AUDITED } from '../../domain/audit/audit-event.js'
import { utcDate } from '../../domain/foundations/instant.js'
import type { PartyId } from '../../domain/foundations/ids.js'
import type { Payment, PaymentStatus } from '../../domain/loans/payment.js'
import type { AchEntry, AchEntryCursor, AchFile, AchOriginations, BuiltAchFile, NewAchFile } from '../../ports/ach-originations.js'
import type { LoanServicingFixtures } from './loan-servicing-fixtures.js'
import { post } from './loan-servicing-postings.js'
import { servicingSuite } from './loan-servicing-suite.js'
import { freshId, right, type Implementation } from './run.js'

/** One world's origination records, with the servicing fixtures that store the payments they claim. */
export type AchWorldFixtures = LoanServicingFixtures & { readonly originations: AchOriginations }

/** What the contract runs on: a world, the other world of the same store when it has one, and hooks on the world's trace counter and test clocks. */
export type AchOriginationsFixtures = AchWorldFixtures & {
  /** The other world of the same store: nothing of it may be claimed in this one. */
  readonly otherWorld: AchWorldFixtures
  /** Sets the world's trace counter to `next` and answers what it was. */
  readonly setNextTrace: (next: number) => Promise<number>
  /** Puts party `partyId` on a test clock of this world. */
  readonly putOnClock: (partyId: PartyId) => Promise<void>
}

/** The ODFI's 8 digits the contract's traces start with. */
const PREFIX = '09100001'
const DAY_MS = 86_400_000

/** The number of the world's counter in `trace` (its last 7 digits), checking its prefix. */
const counterOf = (trace: string): number => {
  expect(trace).to.match(new RegExp(`^${PREFIX}[0-9]{7}$`))
  return Number(trace.slice(PREFIX.length))
}

/** The trace with counter number `n`. */
const trace = (n: number): string => `${PREFIX}${String(n).padStart(7, '0')}`

const BUILT: BuiltAchFile = { name: 'lendgate-991231-A.ach', sha256: 'a'.repeat(64), entryCount: 3, debitTotal: 123_456, entryHash: 27_300_003 }

let windowStart = Date.parse('2000-01-01T00:00:00.000Z')

/**
 * A stretch of 40 days of the test's own, each before every earlier test's: a cut-off in it reaches
 * no payment an earlier test left `PENDING` in a store the suites share (those are all later).
 */
const ownWindow = () => {
  windowStart -= 40 * DAY_MS
  const start = windowStart
  return {
    /** The instant `minutes` into the window. */
    at: (minutes: number): Date => new Date(start + minutes * 60_000),
    /** The window's `n`th day, `YYYY-MM-DD`. */
    day: (n: number): string => utcDate(new Date(start + n * DAY_MS)),
  }
}

/**
 * The behaviour every `AchOriginations` must have (docs/ach.md "Origination job"): one file per
 * run key, claims of `PENDING` payments up to a cut-off that never put a payment in two files, and
 * status moves that happen only from the status before, so that each write can be repeated.
 */
export const achOriginationsContract = (impl: Implementation<AchOriginationsFixtures>): void => {
  describe(`AchOriginations contract: ${impl.name}`, () => {
    let fixtures: AchOriginationsFixtures | undefined
    before(async () => {
      fixtures = await impl.make()
    })
    const made = (): AchOriginationsFixtures => fixtures ?? expect.fail('the fixtures are made in `before`')
    const originations = (): AchOriginations => made().originations

    /** A new borrower's loan with a stored bank account in `world`, and what writes its payments (through `loans.change`). */
    const payer = async (world: AchWorldFixtures = made()) => {
      const suite = servicingSuite(() => world)
      const { booked, clientId } = await suite.ownLoan()
      const method = await suite.method(booked.loan.id)
      const write = (payments: readonly Payment[]) =>
        post(world.loans, booked.loan.id, (l) => ({ transactions: [], installments: l.installments, balance: null, payments, audit: NOT_AUDITED, events: [] }), null)
      /** A payment of the loan made at `createdAt`, written with `status`, from `paymentMethodId` (the loan's bank account unless told). */
      const pay = async (createdAt: Date, status: PaymentStatus = 'PENDING', amount = 25_000, paymentMethodId = method.id): Promise<Payment> => {
        const payment: Payment = {
          id: freshId(),
          loanId: booked.loan.id,
          clientId,
          idempotencyKey: freshId(),
          paymentMethodId,
          amount,
          currency: booked.loan.currency,
          status,
          failureCode: status === 'FAILED' ? 'card_declined' : null,
          allocation: null,
          perInstallment: [],
          transactionId: null,
          effectiveDate: utcDate(createdAt),
          createdAt,
        }
        await write([payment])
        return payment
      }
      return { pay, write, method, partyId: booked.loan.partyId }
    }

    /** A new file of run key `runKey` whose cut-off is `cutoffAt`, created on `creationDate`: the world's, or `partyId`'s. */
    const newFile = (runKey: string, cutoffAt: Date, creationDate: string, effectiveEntryDate = creationDate, partyId: PartyId | null = null): NewAchFile => ({
      id: freshId(),
      runKey,
      partyId,
      cutoffAt,
      effectiveEntryDate,
      creationDate,
      creationTime: '1530',
      createdAt: cutoffAt,
    })
    /** `file` as it is just opened. */
    const opened = (file: NewAchFile): AchFile => ({ ...file, status: 'claiming', fileIdModifier: null, name: null, sha256: null, entryCount: null, debitTotal: null, entryHash: null, writtenAt: null })
    const open = (file: NewAchFile): Promise<AchFile> => right(originations().openFile(file))
    const find = async (id: string): Promise<AchFile> => O.toNullable(await right(originations().findFile(id))) ?? expect.fail(`file ${id} is not there`)
    const claim = (fileId: string, limit = 100): Promise<number> => right(originations().claim(fileId, PREFIX, limit))
    const claimed = (fileId: string, limit = 100): Promise<readonly AchEntry[]> => right(originations().claimedEntries(fileId, limit))
    /** What the file debits, as entries. */
    const sent = async (fileId: string): Promise<readonly AchEntry[]> =>
      (await right(originations().debitsOf(fileId))).map(({ accountHolderName: _name, accountType: _type, sealedAccount: _sealed, ...entry }) => entry)
    /** The entry of `payment` in `fileId`, `claimed` with trace number `n`. */
    const entryOf = (payment: Payment, fileId: string, n: number): AchEntry => ({
      paymentId: payment.id,
      fileId,
      paymentMethodId: payment.paymentMethodId,
      clientId: payment.clientId,
      traceNumber: trace(n),
      status: 'claimed',
      amount: null,
      submittedOn: null,
    })
    /** The counter number of the first entry `fileId` claimed. */
    const firstTraceOf = async (fileId: string): Promise<number> => counterOf((await claimed(fileId, 1))[0]?.traceNumber ?? expect.fail(`file ${fileId} claimed nothing`))

    describe('openFile', () => {
      it('opens a file claiming, and answers the file already there for its run key, whatever the other fields say', async () => {
        const w = ownWindow()
        const first = newFile(`${w.day(0)}T15:30`, w.at(60), w.day(0), w.day(1))
        expect(await open(first)).to.deep.equal(opened(first))
        const again = { ...newFile(first.runKey, w.at(120), w.day(2), w.day(3)), creationTime: '1600' }
        expect(await open(again)).to.deep.equal(opened(first))
        expect(await right(originations().findFile(first.id))).to.deep.equal(O.some(opened(first)))
        expect(await right(originations().findFile(again.id))).to.deep.equal(O.none)
        expect(await right(originations().fileOfRun(first.runKey))).to.deep.equal(O.some(opened(first)))
        expect(await right(originations().fileOfRun(`${w.day(1)}T15:30`))).to.deep.equal(O.none)
      })
    })

    describe('claim', () => {
      it('claims the PENDING payments created at or before the cut-off, oldest first (then by id), with consecutive traces; none SUCCEEDED, FAILED, SUBMITTED or later', async () => {
        const w = ownWindow()
        const [one, two] = [await payer(), await payer()]
        const atCutoff = await one.pay(w.at(20))
        const newer = await two.pay(w.at(10))
        const oldest = await one.pay(w.at(5))
        const [tiedA, tiedB] = [await one.pay(w.at(7)), await two.pay(w.at(7))]
        await one.pay(w.at(3), 'FAILED')
        await two.pay(w.at(4), 'SUCCEEDED')
        const submitted = await two.pay(w.at(6))
        await two.write([{ ...submitted, status: 'SUBMITTED' }])
        await one.pay(w.at(21))
        const file = await open(newFile(`${w.day(0)}T15:30`, w.at(20), w.day(0)))

        expect(await claim(file.id)).to.equal(5)
        const n = await firstTraceOf(file.id)
        const tied = [tiedA, tiedB].sort((a, b) => (a.id < b.id ? -1 : 1))
        expect(await claimed(file.id)).to.deep.equal([oldest, ...tied, newer, atCutoff].map((p, i) => entryOf(p, file.id, n + i)))
        expect(await claim(file.id)).to.equal(0)
      })

      it('claims up to its limit: 2, then 1, then 0 of 3 payments, the traces going on from one claim to the next', async () => {
        const w = ownWindow()
        const { pay } = await payer()
        const payments = [await pay(w.at(1)), await pay(w.at(2)), await pay(w.at(3))]
        const file = await open(newFile(`${w.day(0)}T15:30`, w.at(10), w.day(0)))
        expect(await claim(file.id, 2)).to.equal(2)
        const n = await firstTraceOf(file.id)
        expect(await claim(file.id, 2)).to.equal(1)
        expect(await claim(file.id, 2)).to.equal(0)
        expect(await claimed(file.id)).to.deep.equal(payments.map((p, i) => entryOf(p, file.id, n + i)))
        expect(await claimed(file.id, 2)).to.deep.equal(payments.slice(0, 2).map((p, i) => entryOf(p, file.id, n + i)))
      })

      it('leaves a payment claimed by one file to it: a later file claims only the others, with traces after the first file\'s', async () => {
        const w = ownWindow()
        const { pay } = await payer()
        const early = await pay(w.at(1))
        const first = await open(newFile(`${w.day(0)}T15:30`, w.at(10), w.day(0)))
        expect(await claim(first.id)).to.equal(1)
        const n = await firstTraceOf(first.id)
        const late = await pay(w.at(20))
        const second = await open(newFile(`${w.day(1)}T15:30`, w.at(30), w.day(1)))
        expect(await claim(second.id)).to.equal(1)
        expect(await claimed(second.id)).to.deep.equal([entryOf(late, second.id, n + 1)])
        expect(await claimed(first.id)).to.deep.equal([entryOf(early, first.id, n)])
      })

      it('puts each payment in exactly one file, with distinct traces, when two files claim the same payments at once, a short claim leaving none', async () => {
        const w = ownWindow()
        const [one, two] = [await payer(), await payer()]
        const payments = [await one.pay(w.at(1)), await two.pay(w.at(2)), await one.pay(w.at(3)), await two.pay(w.at(4)), await one.pay(w.at(5))]
        const [a, b] = [await open(newFile(`${w.day(0)}T15:30`, w.at(10), w.day(0))), await open(newFile(`${w.day(0)}T16:30`, w.at(10), w.day(0)))]
        const counts = await Promise.all([claim(a.id, 3), claim(b.id, 3)])
        const entries = [...(await claimed(a.id)), ...(await claimed(b.id))]
        expect([...counts].sort()).to.deep.equal([2, 3])
        expect(entries.map((e) => e.paymentId).sort()).to.deep.equal(payments.map((p) => p.id).sort())
        expect(new Set(entries.map((e) => e.traceNumber)).size).to.equal(5)
        expect(await Promise.all([claim(a.id, 10), claim(b.id, 10)])).to.deep.equal([0, 0])
      })

      it('claims nothing for a file no longer claiming, nor for a file that is not there', async () => {
        const w = ownWindow()
        const { pay } = await payer()
        await pay(w.at(1))
        const file = await open(newFile(`${w.day(0)}T15:30`, w.at(10), w.day(0)))
        await right(originations().startPosting(file.id))
        await right(originations().startPosting(file.id))
        expect(await claim(file.id)).to.equal(0)
        expect(await claim(freshId())).to.equal(0)
        expect(await claimed(file.id)).to.deep.equal([])
        expect(await find(file.id)).to.deep.equal({ ...opened(file), status: 'posting' })
      })

      it('fails, claiming nothing, when the trace counter would pass 9999999', async () => {
        const { setNextTrace } = made()
        const w = ownWindow()
        const { pay } = await payer()
        const first = await pay(w.at(1))
        await pay(w.at(2))
        const file = await open(newFile(`${w.day(0)}T15:30`, w.at(10), w.day(0)))
        const before = await setNextTrace(9_999_999)
        try {
          const refused = await originations().claim(file.id, PREFIX, 2)()
          expect(E.isLeft(refused) && refused.left._tag).to.equal('StoreUnavailable')
          expect(await claimed(file.id)).to.deep.equal([])
          expect(await claim(file.id, 1)).to.equal(1)
          const again = await originations().claim(file.id, PREFIX, 1)()
          expect(E.isLeft(again) && again.left._tag).to.equal('StoreUnavailable')
          expect(await claimed(file.id)).to.deep.equal([entryOf(first, file.id, 9_999_999)])
        } finally {
          await setNextTrace(before)
        }
      })
    })

    describe("an entry's moves", () => {
      it('sends, drops or releases only a claimed entry; a released payment is claimed again by a later file, a dropped one is not', async () => {
        const w = ownWindow()
        const { pay } = await payer()
        const [toSend, toDrop, toRelease] = [await pay(w.at(1)), await pay(w.at(2)), await pay(w.at(3))]
        const file = await open(newFile(`${w.day(0)}T15:30`, w.at(10), w.day(0), w.day(1)))
        expect(await claim(file.id)).to.equal(3)
        const n = await firstTraceOf(file.id)

        await right(originations().markSent(toSend.id, 24_000, w.day(1)))
        await right(originations().markDropped(toDrop.id))
        await right(originations().release(toRelease.id))
        const sentEntry: AchEntry = { ...entryOf(toSend, file.id, n), status: 'sent', amount: 24_000, submittedOn: w.day(1) }
        expect(await sent(file.id)).to.deep.equal([sentEntry])
        expect(await claimed(file.id)).to.deep.equal([])

        // Repeats, and moves from the wrong status, change nothing.
        await right(originations().markSent(toSend.id, 1, w.day(5)))
        await right(originations().markDropped(toSend.id))
        await right(originations().release(toSend.id))
        await right(originations().markSent(toDrop.id, 1, w.day(5)))
        await right(originations().release(toDrop.id))
        expect(await sent(file.id)).to.deep.equal([sentEntry])

        const later = await open(newFile(`${w.day(2)}T15:30`, w.at(60), w.day(2)))
        expect(await claim(later.id)).to.equal(1)
        expect(await claimed(later.id)).to.deep.equal([entryOf(toRelease, later.id, n + 3)])
      })

      it('keeps the claimed entry of a payment no longer PENDING: what was submitted stays in its file', async () => {
        const w = ownWindow()
        const { pay, write } = await payer()
        const submitted = await pay(w.at(1))
        const file = await open(newFile(`${w.day(0)}T15:30`, w.at(10), w.day(0), w.day(1)))
        expect(await claim(file.id)).to.equal(1)
        const n = await firstTraceOf(file.id)
        await write([{ ...submitted, status: 'SUBMITTED' }])
        await right(originations().release(submitted.id))
        expect(await claimed(file.id)).to.deep.equal([entryOf(submitted, file.id, n)])
      })

      it('lists the sent entries of a file in trace order, with their amounts and effective dates', async () => {
        const w = ownWindow()
        const { pay } = await payer()
        const payments = [await pay(w.at(1), 'PENDING', 10_000), await pay(w.at(2), 'PENDING', 20_000), await pay(w.at(3), 'PENDING', 30_000), await pay(w.at(4))]
        const file = await open(newFile(`${w.day(0)}T15:30`, w.at(10), w.day(0), w.day(1)))
        expect(await claim(file.id)).to.equal(4)
        const n = await firstTraceOf(file.id)
        for (const p of payments.slice(0, 3).reverse()) await right(originations().markSent(p.id, p.amount, w.day(1)))
        expect(await sent(file.id)).to.deep.equal(payments.slice(0, 3).map((p, i) => ({ ...entryOf(p, file.id, n + i), status: 'sent', amount: p.amount, submittedOn: w.day(1) })))
        expect(await claimed(file.id)).to.deep.equal([entryOf(payments[3]!, file.id, n + 3)])
      })

      it("gives each debit its method's holder name, account type and sealed numbers, and keeps a settled one", async () => {
        const w = ownWindow()
        const { pay, method } = await payer()
        const sealedOwner = await payer()
        const sealedMethod = { ...sealedOwner.method, id: freshId(), isDefault: false }
        await right(made().methods.insert(sealedMethod, 'sealed-numbers'))
        const plain = await pay(w.at(1), 'PENDING', 10_000)
        const sealed = await sealedOwner.pay(w.at(2), 'PENDING', 20_000, sealedMethod.id)
        const file = await open(newFile(`${w.day(0)}T15:30`, w.at(10), w.day(0), w.day(1)))
        expect(await claim(file.id)).to.equal(2)
        for (const p of [plain, sealed]) await right(originations().markSent(p.id, p.amount, w.day(1)))
        await right(originations().markSettled(plain.id))
        const rows = await right(originations().debitsOf(file.id))
        expect(rows.map((r) => [r.paymentId, r.status, r.accountHolderName, r.accountType, r.sealedAccount])).to.deep.equal([
          [plain.id, 'settled', method.accountHolderName, method.accountType, null],
          [sealed.id, 'sent', sealedMethod.accountHolderName, sealedMethod.accountType, 'sealed-numbers'],
        ])
      })
    })

    describe('unfinishedBefore', () => {
      it('answers the earliest file of an earlier run that is neither written nor empty', async () => {
        const w = ownWindow()
        const [a, b, c] = [await open(newFile(`${w.day(1)}T15:30`, w.at(1), w.day(1))), await open(newFile(`${w.day(2)}T15:30`, w.at(2), w.day(2))), await open(newFile(`${w.day(3)}T15:30`, w.at(3), w.day(3)))]
        // Files of other tests are in other windows: only this window's runs are compared.
        const earliest = async (runKey: string) => O.map((f: AchFile) => f.id)(await right(originations().unfinishedBefore(runKey, null)))
        expect(await earliest(c.runKey)).to.deep.equal(O.some(a.id))
        await right(originations().startPosting(a.id))
        await right(originations().recordEmpty(a.id))
        expect(await earliest(c.runKey)).to.deep.equal(O.some(b.id))
        expect(await earliest(b.runKey)).to.deep.equal(O.none)
      })
    })

    describe('takeModifier', () => {
      it('answers the same letter again, the next one to another file of the day, A on another day, and none once the day has 36', async () => {
        const w = ownWindow()
        const fileOn = (day: string, i: number) => open(newFile(`${day}T${String(i).padStart(4, '0')}`, w.at(i), day))
        const take = async (file: AchFile) => right(originations().takeModifier(file.id))
        const first = await fileOn(w.day(1), 0)
        expect(await take(first)).to.deep.equal(O.some('A'))
        expect(await take(first)).to.deep.equal(O.some('A'))
        expect(await take(await fileOn(w.day(1), 1))).to.deep.equal(O.some('B'))
        expect(await take(await fileOn(w.day(2), 2))).to.deep.equal(O.some('A'))
        const rest: O.Option<string>[] = []
        for (let i = 3; i < 37; i++) rest.push(await take(await fileOn(w.day(1), i)))
        expect(rest).to.deep.equal([...'CDEFGHIJKLMNOPQRSTUVWXYZ0123456789'].map(O.some))
        expect(await take(await fileOn(w.day(1), 37))).to.deep.equal(O.none)
        expect((await find(first.id)).fileIdModifier).to.equal('A')
      })
    })

    describe("a file's moves", () => {
      it('records it built only from posting, written only from built, and empty only from posting; a repeat changes nothing', async () => {
        const w = ownWindow()
        const file = await open(newFile(`${w.day(0)}T15:30`, w.at(10), w.day(0)))
        const writtenAt = w.at(600)
        await right(originations().recordBuilt(file.id, BUILT))
        await right(originations().recordWritten(file.id, writtenAt))
        await right(originations().recordEmpty(file.id))
        expect(await find(file.id)).to.deep.equal(opened(file))

        await right(originations().startPosting(file.id))
        await right(originations().recordWritten(file.id, writtenAt))
        expect(await find(file.id)).to.deep.equal({ ...opened(file), status: 'posting' })
        await right(originations().recordBuilt(file.id, BUILT))
        const built: AchFile = { ...opened(file), status: 'built', ...BUILT }
        expect(await find(file.id)).to.deep.equal(built)
        await right(originations().recordBuilt(file.id, { ...BUILT, sha256: 'b'.repeat(64), entryCount: 9 }))
        await right(originations().recordEmpty(file.id))
        await right(originations().startPosting(file.id))
        expect(await find(file.id)).to.deep.equal(built)
        await right(originations().recordWritten(file.id, writtenAt))
        await right(originations().recordWritten(file.id, w.at(900)))
        expect(await find(file.id)).to.deep.equal({ ...built, status: 'written', writtenAt })

        const nothingSent = await open(newFile(`${w.day(1)}T15:30`, w.at(20), w.day(1)))
        await right(originations().startPosting(nothingSent.id))
        await right(originations().recordEmpty(nothingSent.id))
        await right(originations().recordBuilt(nothingSent.id, BUILT))
        await right(originations().recordWritten(nothingSent.id, writtenAt))
        expect(await find(nothingSent.id)).to.deep.equal({ ...opened(nothingSent), status: 'empty' })
      })
    })

    describe('unsettled and markSettled', () => {
      it('pages the sent entries effective up to a date by (date, payment id) after a cursor, leaving out later dates and other statuses; settles only a sent entry', async () => {
        const w = ownWindow()
        const { pay } = await payer()
        const payments: Payment[] = []
        for (const minute of [1, 2, 3, 4, 5, 6, 7]) payments.push(await pay(w.at(minute)))
        const file = await open(newFile(`${w.day(0)}T15:30`, w.at(10), w.day(0)))
        expect(await claim(file.id)).to.equal(7)
        const n = await firstTraceOf(file.id)
        const entry = (i: number): AchEntry => entryOf(payments[i] ?? expect.fail(`no payment ${i}`), file.id, n + i)
        // The first five sent on these days of the window: 0 and 1 due on day 1, 2 on day 2, 3 after the date asked, 4 settled; 5 dropped; 6 still claimed.
        const sentOn = [1, 1, 2, 4, 1]
        const sentEntry = (i: number): AchEntry => ({ ...entry(i), status: 'sent', amount: 5_000, submittedOn: w.day(sentOn[i] ?? expect.fail(`payment ${i} is not sent`)) })
        for (const [i, day] of sentOn.entries()) await right(originations().markSent(entry(i).paymentId, 5_000, w.day(day)))
        const settle = (i: number) => right(originations().markSettled(entry(i).paymentId))
        await settle(4)
        await right(originations().markDropped(entry(5).paymentId))
        await settle(5)
        await settle(6)

        const due = [0, 1, 2].map(sentEntry).sort((x, y) => (x.submittedOn === y.submittedOn ? (x.paymentId < y.paymentId ? -1 : 1) : (x.submittedOn ?? '') < (y.submittedOn ?? '') ? -1 : 1))
        const after = (e: AchEntry | undefined): O.Option<AchEntryCursor> => (e?.submittedOn == null ? expect.fail('no sent entry') : O.some({ submittedOn: e.submittedOn, paymentId: e.paymentId }))
        const unsettled = (from: O.Option<AchEntryCursor>, limit: number) => right(originations().unsettled(w.day(3), from, limit, null))
        // Not written yet: nothing of the file has left, so nothing of it is listed.
        expect(await unsettled(O.none, 10)).to.deep.equal([])
        await right(originations().startPosting(file.id))
        await right(originations().recordBuilt(file.id, BUILT))
        expect(await unsettled(O.none, 10)).to.deep.equal([])
        await right(originations().recordWritten(file.id, w.at(20)))
        expect(await unsettled(O.none, 2)).to.deep.equal(due.slice(0, 2))
        expect(await unsettled(after(due[1]), 2)).to.deep.equal(due.slice(2))
        expect(await unsettled(after(due[2]), 2)).to.deep.equal([])
        expect(await claimed(file.id)).to.deep.equal([entry(6)])

        const [first, ...rest] = due
        if (first === undefined) return expect.fail('no entry is due')
        await right(originations().markSettled(first.paymentId))
        await right(originations().markSettled(first.paymentId))
        expect(await unsettled(O.none, 10)).to.deep.equal(rest)
        // What the file debits keeps its settled entries.
        const settledNow = new Set([first.paymentId, entry(4).paymentId])
        expect(await sent(file.id)).to.deep.equal([0, 1, 2, 3, 4].map(sentEntry).map((e) => (settledNow.has(e.paymentId) ? { ...e, status: 'settled' } : e)))
      })
    })

    describe("a party's own files (test clocks)", () => {
      it("claims a party's payments into its own files only, and leaves them out of the world's", async () => {
        const w = ownWindow()
        const [clocked, plain] = [await payer(), await payer()]
        await made().putOnClock(clocked.partyId)
        const [own, other] = [await clocked.pay(w.at(1)), await plain.pay(w.at(2))]
        const world = await open(newFile(`${w.day(0)}T15:30`, w.at(10), w.day(0)))
        expect(await claim(world.id)).to.equal(1)
        expect((await claimed(world.id)).map((e) => e.paymentId)).to.deep.equal([other.id])
        const party = await open(newFile(`${w.day(0)}T15:30/${clocked.partyId}`, w.at(10), w.day(0), w.day(0), clocked.partyId))
        expect(party.partyId).to.equal(clocked.partyId)
        expect(await claim(party.id)).to.equal(1)
        expect((await claimed(party.id)).map((e) => e.paymentId)).to.deep.equal([own.id])
        // Another party's file takes nothing of either.
        const stranger = await payer()
        await made().putOnClock(stranger.partyId)
        const strangers = await open(newFile(`${w.day(0)}T15:30/${stranger.partyId}`, w.at(10), w.day(0), w.day(0), stranger.partyId))
        expect(await claim(strangers.id)).to.equal(0)
      })

      it("takes modifiers per party and day, finishes a party's earlier files only, and settles each party's debits apart", async () => {
        const w = ownWindow()
        const [p, q] = [await payer(), await payer()]
        for (const x of [p, q]) await made().putOnClock(x.partyId)
        const ofParty = (x: typeof p, day: number) => open(newFile(`${w.day(day)}T15:30/${x.partyId}`, w.at(day * 1440 + 10), w.day(day), w.day(day + 1), x.partyId))
        const [pFile, qFile, worldFile] = [await ofParty(p, 0), await ofParty(q, 0), await open(newFile(`${w.day(0)}T15:30`, w.at(10), w.day(0)))]
        for (const file of [pFile, qFile, worldFile]) expect(await right(originations().takeModifier(file.id)), file.runKey).to.deep.equal(O.some('A'))
        // p's later run finishes p's unfinished file, not q's or the world's.
        const pLater = `${w.day(1)}T15:30/${p.partyId}`
        expect(O.map((f: AchFile) => f.id)(await right(originations().unfinishedBefore(pLater, p.partyId)))).to.deep.equal(O.some(pFile.id))
        expect(O.map((f: AchFile) => f.id)(await right(originations().unfinishedBefore(`${w.day(1)}T15:30/${q.partyId}`, q.partyId)))).to.deep.equal(O.some(qFile.id))

        // A debit of each party, sent and written: each party's settlement lists its own.
        const debits = [await p.pay(w.at(1)), await q.pay(w.at(2))]
        for (const [file, x] of [[pFile, p], [qFile, q]] as const) {
          expect(await claim(file.id)).to.equal(1)
          const [entry] = await claimed(file.id)
          await right(originations().markSent(entry!.paymentId, 25_000, w.day(1)))
          await right(originations().startPosting(file.id))
          await right(originations().recordBuilt(file.id, { ...BUILT, name: `${x.partyId}-${BUILT.name}` }))
          await right(originations().recordWritten(file.id, w.at(30)))
        }
        // The world's runs never finish a party's file: with the world's own finished, nothing is left for them.
        await right(originations().startPosting(worldFile.id))
        await right(originations().recordEmpty(worldFile.id))
        expect(await right(originations().unfinishedBefore(`${w.day(2)}T15:30`, null))).to.deep.equal(O.none)

        const unsettledOf = async (partyId: PartyId | null) => (await right(originations().unsettled(w.day(5), O.none, 100, partyId))).map((e) => e.paymentId).filter((id) => debits.some((d) => d.id === id))
        expect(await unsettledOf(p.partyId)).to.deep.equal([debits[0]!.id])
        expect(await unsettledOf(q.partyId)).to.deep.equal([debits[1]!.id])
        expect(await unsettledOf(null)).to.deep.equal([])
      })
    })

    describe('the worlds', () => {
      it("claims nothing of the other world's, and numbers its traces with a counter of its own", async () => {
        const { otherWorld } = made()
        const w = ownWindow()
        const [own, other] = [await payer(), await payer(otherWorld)]
        const [first, second] = [await own.pay(w.at(1)), await own.pay(w.at(30))]
        await other.pay(w.at(2))
        const file = await open(newFile(`${w.day(0)}T15:30`, w.at(10), w.day(0)))
        expect(await claim(file.id)).to.equal(1)
        const n = await firstTraceOf(file.id)
        const otherFile = await right(otherWorld.originations.openFile(newFile(`${w.day(0)}T15:30`, w.at(40), w.day(0))))
        expect(await right(otherWorld.originations.claim(otherFile.id, PREFIX, 10))).to.equal(1)
        expect(await right(otherWorld.originations.findFile(file.id))).to.deep.equal(O.none)
        const later = await open(newFile(`${w.day(1)}T15:30`, w.at(40), w.day(1)))
        expect(await claim(later.id)).to.equal(1)
        expect([...(await claimed(file.id)), ...(await claimed(later.id))]).to.deep.equal([entryOf(first, file.id, n), entryOf(second, later.id, n + 1)])
      })
    })
  })
}
