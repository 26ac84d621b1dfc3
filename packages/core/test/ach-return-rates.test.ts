import { expect } from 'chai'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { returnCategoryOf } from '../src/domain/ach/return-codes.js'
import type { ClientId, InboundFileId, PaymentId, PaymentMethodId } from '../src/domain/foundations/ids.js'
import type { AchReturnRecord, ReturnOutcome } from '../src/ports/ach-inbound.js'
import type { AchEntry, AchEntryStatus, AchFile, AchFileStatus, AchOriginations } from '../src/ports/ach-originations.js'
import type { AchReturnRates } from '../src/ports/ach-return-rates.js'
import type { Clock } from '../src/ports/clock.js'
import { inMemoryAchReturnRates } from '../src/testing/in-memory-ach-return-rates.js'
import { testId } from '../src/testing/test-ids.js'
import { achReturnRates, type ReturnRateReport } from '../src/use-cases/ach/return-rates.js'
import { returnRateReportView } from '../src/views/ach.js'
import { right } from '../src/testing/contracts/run.js'

/**
 * Nacha's return rates (docs/ach.md section 7 "Risk counters"): `achReturnRates` over the
 * in-memory counts, held to a count written here from the rules alone (60 New York days, today
 * included, nothing after it; debits are entries sent, settled or returned of files written;
 * returns are matched ones by category; thresholds 0.5 %, 3 %, 15 %, `over` strictly past them).
 */

// ---------------------------------------------------------------------------------------------
// The rules, written again here, independently of the code under test.

/** The unauthorized and administrative codes, as docs/ach.md section 7 lists them. */
const UNAUTHORIZED_CODES = ['R05', 'R07', 'R10', 'R11', 'R29', 'R51'] as const
const ADMINISTRATIVE_CODES = ['R02', 'R03', 'R04'] as const
/** Codes of neither category (R06, R08, R09, R16, R20, R24, R31, R61, R85…). */
const OTHER_CODES = ['R01', 'R06', 'R08', 'R09', 'R16', 'R20', 'R24', 'R31', 'R61', 'R85'] as const
const THRESHOLDS = { unauthorized: 0.005, administrative: 0.03, overall: 0.15 } as const
const COUNTED_STATUSES: readonly AchEntryStatus[] = ['sent', 'settled', 'returned']
/** The one status of a file whose debits have left: the others' entries are not debits yet (or never are). */
const COUNTED_FILE_STATUS: AchFileStatus = 'written'
const UNWRITTEN_FILE_STATUSES: readonly AchFileStatus[] = ['claiming', 'posting', 'built', 'empty']

const DAY_MS = 86_400_000
/** `date` (`YYYY-MM-DD`) moved `days` days, by UTC arithmetic. */
const shift = (date: string, days: number): string => new Date(Date.parse(`${date}T00:00:00.000Z`) + days * DAY_MS).toISOString().slice(0, 10)

/**
 * Clock instants and their New York dates, worked out by hand (EST is UTC−5, EDT UTC−4; 2026's DST
 * runs from 2026-03-08 07:00 UTC to 2026-11-01 06:00 UTC): many fall on another UTC date.
 */
const INSTANTS: readonly { readonly at: string; readonly newYork: string }[] = [
  { at: '2026-03-15T02:00:00.000Z', newYork: '2026-03-14' },
  { at: '2026-01-01T04:59:59.999Z', newYork: '2025-12-31' },
  { at: '2026-01-01T05:00:00.000Z', newYork: '2026-01-01' },
  { at: '2026-03-08T06:30:00.000Z', newYork: '2026-03-08' },
  { at: '2026-03-09T03:59:59.000Z', newYork: '2026-03-08' },
  { at: '2026-11-01T03:59:59.000Z', newYork: '2026-10-31' },
  { at: '2026-11-02T04:30:00.000Z', newYork: '2026-11-01' },
  { at: '2026-07-04T12:00:00.000Z', newYork: '2026-07-04' },
  { at: '2024-03-01T03:00:00.000Z', newYork: '2024-02-29' },
  { at: '2024-04-29T23:59:59.000Z', newYork: '2024-04-29' },
]

type Category = 'unauthorized' | 'administrative' | 'overall'
type Expected = { returns: number; rate: number | null; threshold: number; over: boolean }

/**
 * The report, counted by brute force: the window is `to − 59` … `to`, both included (a debit
 * effective tomorrow, or a return received tomorrow, is not in it); a debit is an entry of a
 * written file (of `files`).
 */
const bruteForce = (newYork: string, files: readonly AchFile[], entries: readonly AchEntry[], returns: readonly AchReturnRecord[]): ReturnRateReport => {
  const from = shift(newYork, -59)
  const to = newYork
  const inWindow = (day: string): boolean => day >= from && day <= to
  const clients = new Set<string>()
  const debits = new Map<string, number>()
  const counts = new Map<string, Record<Category, number>>()
  for (const e of entries) {
    const file = files.find((f) => f.id === e.fileId)
    if (!COUNTED_STATUSES.includes(e.status) || file?.status !== COUNTED_FILE_STATUS || e.submittedOn === null || !inWindow(e.submittedOn)) continue
    clients.add(e.clientId)
    debits.set(e.clientId, (debits.get(e.clientId) ?? 0) + 1)
  }
  for (const r of returns) {
    if (r.paymentId === null || r.clientId === null || !inWindow(r.receivedOn)) continue
    clients.add(r.clientId)
    const c = counts.get(r.clientId) ?? { unauthorized: 0, administrative: 0, overall: 0 }
    c.overall += 1
    if ((UNAUTHORIZED_CODES as readonly string[]).includes(r.returnCode)) c.unauthorized += 1
    if ((ADMINISTRATIVE_CODES as readonly string[]).includes(r.returnCode)) c.administrative += 1
    counts.set(r.clientId, c)
  }
  const figure = (returnCount: number, debitCount: number, category: Category): Expected => {
    const rate = debitCount === 0 ? null : returnCount / debitCount
    return { returns: returnCount, rate, threshold: THRESHOLDS[category], over: rate !== null && rate > THRESHOLDS[category] }
  }
  return {
    from,
    to: newYork,
    clients: [...clients]
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      .map((clientId) => {
        const d = debits.get(clientId) ?? 0
        const c = counts.get(clientId) ?? { unauthorized: 0, administrative: 0, overall: 0 }
        return {
          clientId: testId(clientId),
          debits: d,
          unauthorized: figure(c.unauthorized, d, 'unauthorized'),
          administrative: figure(c.administrative, d, 'administrative'),
          overall: figure(c.overall, d, 'overall'),
        }
      }),
  }
}

// ---------------------------------------------------------------------------------------------
// Plain records, written as the stores would hold them.

let counter = 0
/** A fresh UUID-shaped id, in an order unrelated to creation. */
const uuid = (): string => globalThis.crypto.randomUUID()
const INBOUND_FILE_ID: InboundFileId = testId(uuid())

/** A bank file of status `status` (its other fields matter not to the counts). */
const achFile = (status: AchFileStatus): AchFile => {
  const built = status === 'built' || status === 'written'
  return {
    id: uuid(),
    runKey: `2026-01-01T15:30-${uuid()}`,
    partyId: null,
    cutoffAt: new Date('2026-01-01T20:30:00.000Z'),
    effectiveEntryDate: '2026-01-02',
    creationDate: '2026-01-01',
    creationTime: '1530',
    status,
    fileIdModifier: built ? 'A' : null,
    name: built ? 'ACH-20260101-1530-A.txt' : null,
    sha256: built ? '0'.repeat(64) : null,
    entryCount: built ? 1 : null,
    debitTotal: built ? 10_000 : null,
    entryHash: built ? 12_104_288 : null,
    createdAt: new Date('2026-01-01T20:30:00.000Z'),
    writtenAt: status === 'written' ? new Date('2026-01-01T20:31:00.000Z') : null,
  }
}
/** The written file the entries are in unless told. */
const WRITTEN_FILE = achFile('written')
/** A file of each status: the files the use case's store knows unless told. */
const FILES_OF_EACH_STATUS: readonly AchFile[] = [WRITTEN_FILE, ...UNWRITTEN_FILE_STATUSES.map(achFile)]
const fileOf = (status: AchFileStatus): AchFile => FILES_OF_EACH_STATUS.find((f) => f.status === status)!

/** An entry of `clientId`: `sent` on `submittedOn` in the written file unless told. */
const entry = (clientId: string, submittedOn: string | null, status: AchEntryStatus = 'sent', file: AchFile = WRITTEN_FILE): AchEntry => {
  counter += 1
  return {
    paymentId: testId(uuid()) as PaymentId,
    fileId: file.id,
    paymentMethodId: testId(uuid()) as PaymentMethodId,
    clientId: testId(clientId) as ClientId,
    traceNumber: `12104288${String(counter).padStart(7, '0')}`,
    status,
    amount: status === 'claimed' || status === 'dropped' ? null : 10_000 + counter,
    submittedOn,
  }
}

/** A return of code `code` received on `receivedOn`: matched to a payment of `clientId`, or unmatched when `clientId` is null. */
const aReturn = (clientId: string | null, receivedOn: string, code: string, outcome?: ReturnOutcome): AchReturnRecord => {
  counter += 1
  return {
    id: uuid(),
    inboundFileId: INBOUND_FILE_ID,
    record: 3,
    originalTrace: `12104288${String(counter).padStart(7, '0')}`,
    returnCode: code,
    category: returnCategoryOf(code),
    amount: 10_000,
    paymentId: clientId === null ? null : (testId(uuid()) as PaymentId),
    clientId: clientId === null ? null : (testId(clientId) as ClientId),
    receivedOn,
    outcome: outcome ?? (clientId === null ? 'unmatched' : 'applied'),
    late: false,
  }
}

const clockAt = (iso: string): Clock => ({ now: () => new Date(iso) })

/** Origination records holding `files` and `entries`: what `inMemoryAchReturnRates` reads of them. */
const originationsOf = (files: readonly AchFile[], entries: readonly AchEntry[]): Pick<AchOriginations, 'findFile'> & { readonly entries: () => readonly AchEntry[] } => ({
  entries: () => entries,
  findFile: (id) => TE.right(O.fromNullable(files.find((f) => f.id === id))),
})

/** The report of the use case over in-memory `entries` (of `files`) and `returns`, at `at`. */
const reportAt = (at: string, entries: readonly AchEntry[], returns: readonly AchReturnRecord[], files: readonly AchFile[] = FILES_OF_EACH_STATUS): Promise<ReturnRateReport> =>
  right(achReturnRates({ returnRates: inMemoryAchReturnRates(originationsOf(files, entries), () => returns), clock: clockAt(at) })())

/** The one client of `report` with id `clientId`. */
const clientOf = (report: ReturnRateReport, clientId: string) => report.clients.find((c) => c.clientId === clientId) ?? expect.fail(`client ${clientId} is not in the report`)

// ---------------------------------------------------------------------------------------------

describe('ACH return rates (docs/ach.md "Risk counters")', () => {
  describe('against a brute-force count', () => {
    /** A day relative to today (New York): mostly around the window's edges (−60, −59) and today, sometimes anywhere. */
    const offset: fc.Arbitrary<number> = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(-61, -60, -59, -58, 0, 1) },
      { weight: 3, arbitrary: fc.integer({ min: -75, max: 5 }) },
      { weight: 1, arbitrary: fc.integer({ min: -400, max: 30 }) },
    )
    const status = fc.constantFrom<AchEntryStatus>('claimed', 'sent', 'settled', 'returned', 'dropped')
    /** A file's status: mostly written, sometimes one whose debits have not left. */
    const fileStatus = fc.oneof({ weight: 3, arbitrary: fc.constant<AchFileStatus>('written') }, { weight: 2, arbitrary: fc.constantFrom(...UNWRITTEN_FILE_STATUSES) })
    const code = fc.constantFrom(...UNAUTHORIZED_CODES, ...ADMINISTRATIVE_CODES, ...OTHER_CODES)
    const scenario = fc.record({
      instant: fc.constantFrom(...INSTANTS),
      clients: fc.integer({ min: 1, max: 4 }),
      files: fc.array(fileStatus, { minLength: 1, maxLength: 4 }),
      entries: fc.array(
        fc.record({
          client: fc.nat(),
          file: fc.nat(),
          status,
          day: offset,
          // A claimed or dropped entry has no effective date, but a store may keep one: it still never counts.
          dated: fc.boolean(),
        }),
        { maxLength: 40 },
      ),
      returns: fc.array(
        fc.record({
          client: fc.nat(),
          matched: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
          day: offset,
          code,
          outcome: fc.constantFrom<ReturnOutcome>('applied', 'loan_charged_off', 'already_reversed', 'not_sent'),
        }),
        { maxLength: 25 },
      ),
    })

    it('answers, at any instant, what a count of the rules answers, for any clients, files, statuses, dates and codes', async () => {
      await fc.assert(
        fc.asyncProperty(scenario, async (s) => {
          const clientIds = Array.from({ length: s.clients }, uuid)
          const files = s.files.map(achFile)
          const entries = s.entries.map((e) => {
            const dated = e.status === 'claimed' || e.status === 'dropped' ? e.dated : true
            return entry(clientIds[e.client % s.clients]!, dated ? shift(s.instant.newYork, e.day) : null, e.status, files[e.file % files.length]!)
          })
          const returns = s.returns.map((r) => aReturn(r.matched ? clientIds[r.client % s.clients]! : null, shift(s.instant.newYork, r.day), r.code, r.matched ? r.outcome : 'unmatched'))
          const report = await reportAt(s.instant.at, entries, returns, files)
          expect(report).to.deep.equal(bruteForce(s.instant.newYork, files, entries, returns))
        }),
        { seed: 20_260_707, numRuns: 400 },
      )
    })

    it('counts per client: another client\'s debits and returns never change a client\'s figures', async () => {
      await fc.assert(
        fc.asyncProperty(scenario, async (s) => {
          const [mine, other] = [uuid(), uuid()]
          const files = s.files.map(achFile)
          const fileFor = (n: number): AchFile => files[n % files.length]!
          const mineEntries = s.entries.map((e) => entry(mine, shift(s.instant.newYork, e.day), e.status === 'claimed' || e.status === 'dropped' ? 'sent' : e.status, fileFor(e.file)))
          const mineReturns = s.returns.map((r) => aReturn(mine, shift(s.instant.newYork, r.day), r.code))
          const alone = await reportAt(s.instant.at, mineEntries, mineReturns, files)
          const otherEntries = s.entries.map((e) => entry(other, shift(s.instant.newYork, e.day), e.status, fileFor(e.file + 1)))
          const otherReturns = s.returns.map((r) => aReturn(other, shift(s.instant.newYork, r.day), r.code))
          const together = await reportAt(s.instant.at, [...otherEntries, ...mineEntries], [...otherReturns, ...mineReturns], files)
          expect(together.clients.filter((c) => c.clientId === mine)).to.deep.equal(alone.clients)
        }),
        { seed: 20_260_708, numRuns: 100 },
      )
    })
  })

  describe("the window's edges (New York dates)", () => {
    // 02:00 UTC on 2026-03-15 is 22:00 EDT on 2026-03-14: today is the 14th in New York, the 15th in UTC.
    const AT = '2026-03-15T02:00:00.000Z'
    const TO = '2026-03-14'
    /** TO − 59 and TO − 60, by hand: 14 March − 28 days = 14 February, − 31 more = 14 January. */
    const FIRST_DAY = '2026-01-14'
    const DAY_BEFORE = '2026-01-13'

    it('is the 60 days from to − 59 to today in New York, not in UTC', async () => {
      const report = await reportAt(AT, [], [])
      expect(report).to.deep.equal({ from: FIRST_DAY, to: TO, clients: [] })
      // An instant later the same UTC day but past New York midnight: the window moves on a day.
      expect(await reportAt('2026-03-15T04:00:00.000Z', [], [])).to.deep.equal({ from: '2026-01-15', to: '2026-03-15', clients: [] })
      // In winter (EST, UTC−5): 04:59:59.999 UTC is still the day before, 05:00 the next.
      expect(await reportAt('2026-01-01T04:59:59.999Z', [], [])).to.deep.equal({ from: '2025-11-02', to: '2025-12-31', clients: [] })
      expect(await reportAt('2026-01-01T05:00:00.000Z', [], [])).to.deep.equal({ from: '2025-11-03', to: '2026-01-01', clients: [] })
    })

    it('counts a debit and a return of day to − 59, never of day to − 60', async () => {
      const client = uuid()
      const statuses: readonly AchEntryStatus[] = ['sent', 'settled', 'returned']
      const entries = statuses.flatMap((st) => [entry(client, FIRST_DAY, st), entry(client, DAY_BEFORE, st)])
      const returns = [aReturn(client, FIRST_DAY, 'R10'), aReturn(client, DAY_BEFORE, 'R10'), aReturn(client, FIRST_DAY, 'R03'), aReturn(client, DAY_BEFORE, 'R03'), aReturn(client, FIRST_DAY, 'R01'), aReturn(client, DAY_BEFORE, 'R01')]
      const report = await reportAt(AT, entries, returns)
      expect(report.clients).to.have.length(1)
      const c = clientOf(report, client)
      expect(c.debits).to.equal(3)
      expect([c.unauthorized.returns, c.administrative.returns, c.overall.returns]).to.deep.equal([1, 1, 3])
    })

    it("counts a debit effective today, never one effective after today (a file's effective date is a later banking day) until that day comes", async () => {
      const client = uuid()
      // 2026-01-14 is the window's first day in New York (by the UTC date it would be 2026-01-15); 2026-03-15 is tomorrow there.
      const TOMORROW = '2026-03-15'
      const entries = [entry(client, FIRST_DAY), entry(client, TO), entry(client, TOMORROW), entry(client, '2026-03-16', 'settled')]
      // A return dated after today (as a store could hold one) is not in the window either.
      const returns = [aReturn(client, FIRST_DAY, 'R05'), aReturn(client, TOMORROW, 'R07')]
      const report = await reportAt(AT, entries, returns)
      expect(clientOf(report, client)).to.deep.include({ debits: 2 })
      expect(clientOf(report, client).unauthorized).to.deep.equal({ returns: 1, rate: 0.5, threshold: 0.005, over: true })
      expect(clientOf(report, client).overall).to.deep.equal({ returns: 1, rate: 0.5, threshold: 0.15, over: true })
      // The next New York day: the first day's debit and return are out, tomorrow's are in.
      const next = await reportAt('2026-03-15T04:00:00.000Z', entries, returns)
      expect({ from: next.from, to: next.to }).to.deep.equal({ from: '2026-01-15', to: TOMORROW })
      expect(clientOf(next, client)).to.deep.include({ debits: 2 })
      expect(clientOf(next, client).unauthorized).to.deep.equal({ returns: 1, rate: 0.5, threshold: 0.005, over: true })
    })

    it('leaves out a client whose every debit and return is after today', async () => {
      const client = uuid()
      const report = await reportAt(AT, [entry(client, '2026-03-15'), entry(client, '2026-03-17', 'returned')], [aReturn(client, '2026-03-16', 'R10')])
      expect(report.clients).to.deep.equal([])
    })

    it('asks the store for the counts of the window, its first day and today both included', async () => {
      const asked: [string, string][] = []
      const spy: AchReturnRates = {
        countsBetween: (from, to) => {
          asked.push([from, to])
          return TE.right([])
        },
      }
      expect(await right(achReturnRates({ returnRates: spy, clock: clockAt(AT) })())).to.deep.equal({ from: FIRST_DAY, to: TO, clients: [] })
      expect(asked).to.deep.equal([[FIRST_DAY, TO]])
    })

    it('leaves out a client whose every debit and return is before the window', async () => {
      const client = uuid()
      const report = await reportAt(AT, [entry(client, DAY_BEFORE), entry(client, '2025-12-01', 'settled')], [aReturn(client, DAY_BEFORE, 'R10')])
      expect(report.clients).to.deep.equal([])
    })
  })

  describe('thresholds and what never counts', () => {
    const AT = '2026-07-04T12:00:00.000Z'
    const TODAY = '2026-07-04'
    /** `n` debits of `client` sent today. */
    const debits = (client: string, n: number): AchEntry[] => Array.from({ length: n }, () => entry(client, TODAY))
    /** `n` returns of `client` with `code`, today. */
    const returnsOf = (client: string, n: number, code: string): AchReturnRecord[] => Array.from({ length: n }, () => aReturn(client, TODAY, code))

    it('is not over a threshold exactly at it (1 of 200 unauthorized, 6 of 200 administrative, 30 of 200 overall), and is just above it', async () => {
      const [at, above] = [uuid(), uuid()]
      const report = await reportAt(
        AT,
        [...debits(at, 200), ...debits(above, 199)],
        [
          // At: 1 unauthorized, 6 administrative, 23 others: 30 in all, of 200.
          ...returnsOf(at, 1, 'R10'),
          ...returnsOf(at, 6, 'R02'),
          ...returnsOf(at, 23, 'R01'),
          // Above: the same of 199.
          ...returnsOf(above, 1, 'R29'),
          ...returnsOf(above, 6, 'R04'),
          ...returnsOf(above, 23, 'R09'),
        ],
      )
      expect(clientOf(report, at)).to.deep.equal({
        clientId: at,
        debits: 200,
        unauthorized: { returns: 1, rate: 0.005, threshold: 0.005, over: false },
        administrative: { returns: 6, rate: 0.03, threshold: 0.03, over: false },
        overall: { returns: 30, rate: 0.15, threshold: 0.15, over: false },
      })
      expect(clientOf(report, above)).to.deep.equal({
        clientId: above,
        debits: 199,
        unauthorized: { returns: 1, rate: 1 / 199, threshold: 0.005, over: true },
        administrative: { returns: 6, rate: 6 / 199, threshold: 0.03, over: true },
        overall: { returns: 30, rate: 30 / 199, threshold: 0.15, over: true },
      })
    })

    it('has a null rate, never over, for a client with returns and no debit in the window', async () => {
      const client = uuid()
      const report = await reportAt(AT, [entry(client, '2026-01-02')], [...returnsOf(client, 2, 'R07'), ...returnsOf(client, 1, 'R03'), ...returnsOf(client, 1, 'R01')])
      expect(report.clients).to.deep.equal([
        {
          clientId: client,
          debits: 0,
          unauthorized: { returns: 2, rate: null, threshold: 0.005, over: false },
          administrative: { returns: 1, rate: null, threshold: 0.03, over: false },
          overall: { returns: 4, rate: null, threshold: 0.15, over: false },
        },
      ])
    })

    it('has rate 0, not over, for debits with no return', async () => {
      const client = uuid()
      const report = await reportAt(AT, debits(client, 3), [])
      expect(report.clients).to.deep.equal([
        {
          clientId: client,
          debits: 3,
          unauthorized: { returns: 0, rate: 0, threshold: 0.005, over: false },
          administrative: { returns: 0, rate: 0, threshold: 0.03, over: false },
          overall: { returns: 0, rate: 0, threshold: 0.15, over: false },
        },
      ])
    })

    it('never counts an unmatched return (no payment), whatever its code', async () => {
      const client = uuid()
      const unmatched = [...UNAUTHORIZED_CODES, ...ADMINISTRATIVE_CODES, 'R01'].map((code) => aReturn(null, TODAY, code))
      expect((await reportAt(AT, [], unmatched)).clients).to.deep.equal([])
      const report = await reportAt(AT, debits(client, 10), [...unmatched, aReturn(client, TODAY, 'R01')])
      expect(report.clients.map((c) => c.clientId)).to.deep.equal([client])
      expect(clientOf(report, client)).to.deep.include({ debits: 10, unauthorized: { returns: 0, rate: 0, threshold: 0.005, over: false } })
      expect(clientOf(report, client).overall).to.deep.equal({ returns: 1, rate: 0.1, threshold: 0.15, over: false })
    })

    it('counts a matched return whatever became of it (applied, charged off, already reversed, not sent)', async () => {
      const client = uuid()
      const outcomes: readonly ReturnOutcome[] = ['applied', 'loan_charged_off', 'already_reversed', 'not_sent']
      const report = await reportAt(AT, debits(client, 8), outcomes.map((o) => aReturn(client, TODAY, 'R11', o)))
      expect(clientOf(report, client).unauthorized).to.deep.equal({ returns: 4, rate: 0.5, threshold: 0.005, over: true })
    })

    it('never counts an entry of a file not written (claiming, posting, built, empty): its debit has not left', async () => {
      const client = uuid()
      const unwritten = UNWRITTEN_FILE_STATUSES.flatMap((status) => COUNTED_STATUSES.map((st) => entry(client, TODAY, st, fileOf(status))))
      expect(unwritten).to.have.length(12)
      expect((await reportAt(AT, unwritten, [])).clients).to.deep.equal([])
      // Of a file the store does not know: neither.
      expect((await reportAt(AT, [entry(client, TODAY, 'sent', achFile('written'))], [])).clients).to.deep.equal([])
      // Its return counts all the same (the return came back): with the written file's one debit, 1 of 1.
      const report = await reportAt(AT, [...unwritten, entry(client, TODAY, 'returned')], [aReturn(client, TODAY, 'R01')])
      expect(clientOf(report, client)).to.deep.include({ debits: 1, overall: { returns: 1, rate: 1, threshold: 0.15, over: true } })
      // Once its file is written, the same entry counts.
      const [posted] = unwritten
      const written = FILES_OF_EACH_STATUS.map((f) => (f.id === posted!.fileId ? { ...f, status: 'written' as const } : f))
      expect(clientOf(await reportAt(AT, [posted!], [], written), client)).to.deep.include({ debits: 1 })
    })

    it('never counts a claimed or dropped entry, with or without an effective date', async () => {
      const client = uuid()
      const idle = [entry(client, null, 'claimed'), entry(client, null, 'dropped'), entry(client, TODAY, 'claimed'), entry(client, TODAY, 'dropped')]
      expect((await reportAt(AT, idle, [])).clients).to.deep.equal([])
      const report = await reportAt(AT, [...idle, entry(client, TODAY, 'settled')], [aReturn(client, TODAY, 'R02')])
      expect(clientOf(report, client)).to.deep.include({ debits: 1, administrative: { returns: 1, rate: 1, threshold: 0.03, over: true } })
    })

    it('lists the clients by client id', async () => {
      const ids = Array.from({ length: 6 }, uuid)
      const report = await reportAt(AT, ids.map((id) => entry(id, TODAY)), [])
      expect(report.clients.map((c) => c.clientId)).to.deep.equal([...ids].sort())
    })

    it('takes no command: none or an empty one; any field is an invalid request, and nothing is counted', async () => {
      let reads = 0
      const counting: AchReturnRates = {
        countsBetween: (from, to) => {
          reads += 1
          return inMemoryAchReturnRates(originationsOf(FILES_OF_EACH_STATUS, []), () => []).countsBetween(from, to)
        },
      }
      const rates = achReturnRates({ returnRates: counting, clock: clockAt(AT) })
      const empty = { from: '2026-05-06', to: TODAY, clients: [] }
      expect(await right(rates())).to.deep.equal(empty)
      expect(await right(rates(undefined))).to.deep.equal(empty)
      expect(await right(rates({}))).to.deep.equal(empty)
      expect(reads).to.equal(3)
      for (const command of [{ since: '2026-01-01' }, { limit: 10 }, { from: '2026-01-01', to: TODAY }, 'since=2026-01-01', 42, [], null]) {
        const refused = await rates(command)()
        if (E.isRight(refused)) return expect.fail(`${JSON.stringify(command)} was taken: ${JSON.stringify(refused.right)}`)
        expect(refused.left._tag, JSON.stringify(command)).to.equal('InvalidRequest')
      }
      expect(reads, 'no count read for a refused command').to.equal(3)
    })

    it('answers the view with client_id and the figures as they are', async () => {
      const client = uuid()
      const report = await reportAt(AT, debits(client, 4), [aReturn(client, TODAY, 'R10')])
      expect(returnRateReportView(report)).to.deep.equal({
        from: '2026-05-06',
        to: TODAY,
        clients: [
          {
            client_id: client,
            debits: 4,
            unauthorized: { returns: 1, rate: 0.25, threshold: 0.005, over: true },
            administrative: { returns: 0, rate: 0, threshold: 0.03, over: false },
            overall: { returns: 1, rate: 0.25, threshold: 0.15, over: true },
          },
        ],
      })
    })
  })
})
