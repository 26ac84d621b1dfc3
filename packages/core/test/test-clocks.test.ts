import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { advanceClaimedClock, advanceTestClock, advanceTo, createTestClock, decode, MAX_ADVANCE_DAYS, newTestClock, nextStep, type Caller, type TestClock } from '../src/index.js'
import { Instant } from '../src/domain/foundations/codecs.js'
import { inMemoryCoreDeps, testId } from '../src/testing/index.js'

/** Test clocks (decision 131): the rules of a clock, and an advance worked in memory. */

const DAY_MS = 86_400_000
const NOW = new Date('2026-11-28T10:00:00.000Z')
const clock = (frozenTime: Date, advancingTo: Date | null = null): TestClock => ({
  id: testId('00000000-0000-4000-8000-00000000c10c'),
  partyId: testId('00000000-0000-4000-8000-0000000000a1'),
  name: null,
  frozenTime,
  advancingTo,
  createdAt: NOW,
})
const later = (days: number, from = NOW): Date => new Date(from.getTime() + days * DAY_MS)

describe('a test clock', () => {
  it('reads instants in UTC only, and refuses dates that do not exist', () => {
    expect(E.isRight(decode(Instant)('2026-12-01T09:30:00Z'))).to.equal(true)
    expect(E.isRight(decode(Instant)('2026-12-01T09:30:00.120Z'))).to.equal(true)
    for (const wrong of ['2026-12-01T09:30:00+01:00', '2026-02-30T00:00:00Z', '2026-12-01', 'tomorrow', 20261201]) {
      expect(E.isLeft(decode(Instant)(wrong)), String(wrong)).to.equal(true)
    }
  })

  it('starts now by default, never in the past, at most a year ahead', () => {
    expect(newTestClock({}, clock(NOW).id, clock(NOW).partyId, NOW)).to.deep.equal(E.right(clock(NOW)))
    expect(E.isLeft(newTestClock({ frozen_time: later(-1) }, clock(NOW).id, clock(NOW).partyId, NOW))).to.equal(true)
    expect(E.isRight(newTestClock({ frozen_time: later(366) }, clock(NOW).id, clock(NOW).partyId, NOW))).to.equal(true)
    expect(E.isLeft(newTestClock({ frozen_time: later(367) }, clock(NOW).id, clock(NOW).partyId, NOW))).to.equal(true)
  })

  it('advances forward only, at most two years at a time; asking again for the advance under way or for where it is changes nothing', () => {
    const ready = clock(NOW)
    expect(advanceTo(ready, later(90))).to.deep.equal(E.right(clock(NOW, later(90))))
    expect(advanceTo(ready, NOW)).to.deep.equal(E.right(ready))
    expect(E.isLeft(advanceTo(ready, later(-1)))).to.equal(true)
    expect(E.isRight(advanceTo(ready, later(MAX_ADVANCE_DAYS)))).to.equal(true)
    expect(E.isLeft(advanceTo(ready, later(MAX_ADVANCE_DAYS + 1)))).to.equal(true)
    const advancing = clock(NOW, later(90))
    expect(advanceTo(advancing, later(90))).to.deep.equal(E.right(advancing))
    const other = advanceTo(advancing, later(91))
    expect(E.isLeft(other) && other.left._tag).to.equal('InvalidState')
  })

  it('steps a day at a time, the last step landing on its destination', () => {
    expect(nextStep({ ...clock(NOW), advancingTo: later(3) })).to.deep.equal(later(1))
    const last = new Date(NOW.getTime() + 5 * 3_600_000)
    expect(nextStep({ ...clock(NOW), advancingTo: last })).to.deep.equal(last)
  })
})

describe('advancing a test clock in memory', () => {
  it("works a claimed advance to its end, moving the party's clock a day at a time, and finds nothing more to do then", async () => {
    const deps = inMemoryCoreDeps({ start: NOW })
    const partyId = testId('00000000-0000-4000-8000-0000000000b2')
    const caller: Caller = { keyId: testId('00000000-0000-4000-8000-0000000000b3'), clientId: testId('00000000-0000-4000-8000-0000000000b4'), partyId, environment: 'test', scopes: ['*'] }
    // A clock is made for a party of this world only.
    const missing = await createTestClock(deps)(caller, {})()
    expect(E.isLeft(missing) && missing.left._tag).to.equal('NotFound')

    const created = clock(NOW)
    await deps.testClocks.insert({ ...created, partyId })()
    const started = await advanceTestClock(deps)(caller, { clockId: created.id, frozen_time: later(3).toISOString() })()
    expect(E.isRight(started) && started.right.advancingTo).to.deep.equal(later(3))
    const worked = await advanceClaimedClock(deps)()()
    expect(worked).to.deep.equal(E.right(O.some({ ...created, partyId, frozenTime: later(3), advancingTo: null })))
    // One audited run a day crossed, as the party's.
    expect(deps.audit.all().map((e) => [e.action, e.partyId, e.details['as_of'], e.details['loans_examined']])).to.deep.equal(
      [1, 2, 3].map((n) => ['interest_accrual.completed', partyId, later(n).toISOString().slice(0, 10), 0]),
    )
    expect(await advanceClaimedClock(deps)()()).to.deep.equal(E.right(O.none))
  })
})
