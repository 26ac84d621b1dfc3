import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type { PartyId } from '../../domain/foundations/ids.js'
import type { TestClock } from '../../domain/testing/test-clock.js'
import type { TestClockRepository } from '../../ports/test-clock-repository.js'
import { at, freshId, right, type Implementation } from './run.js'

/** A repository, and a maker of parties its clocks may belong to (a stored party where the store needs one). */
export type TestClockFixtures = { readonly repo: TestClockRepository; readonly party: () => Promise<PartyId> }

const clockOf = (partyId: PartyId, frozenTime = at('2026-12-01T15:00:00.000Z')): TestClock => ({
  id: freshId(),
  partyId,
  name: 'contract',
  frozenTime,
  advancingTo: null,
  createdAt: at('2026-11-28T10:00:00.000Z'),
})

/** The behaviour every `TestClockRepository` must have (decision 131). */
export const testClockRepositoryContract = (impl: Implementation<TestClockFixtures>): void => {
  describe(`TestClockRepository contract: ${impl.name}`, () => {
    let fixtures: TestClockFixtures
    before(async () => {
      fixtures = await impl.make()
    })

    it('stores one clock a party, and finds it by its party', async () => {
      const partyId = await fixtures.party()
      const clock = clockOf(partyId)
      await right(fixtures.repo.insert(clock))
      expect(await right(fixtures.repo.findForParty(partyId))).to.deep.equal(O.some(clock))
      const second = await fixtures.repo.insert(clockOf(partyId))()
      expect(E.isLeft(second) && second.left._tag).to.equal('AlreadyExists')
      expect(await right(fixtures.repo.findForParty(await fixtures.party()))).to.deep.equal(O.none)
    })

    it("lists every clock's party and frozen time, a moved clock at its new time", async () => {
      const [first, second] = [clockOf(await fixtures.party()), clockOf(await fixtures.party(), at('2027-02-01T00:00:00.000Z'))]
      await right(fixtures.repo.insert(first))
      await right(fixtures.repo.insert(second))
      const timesOf = async () => (await right(fixtures.repo.partyTimes())).filter((t) => t.partyId === first.partyId || t.partyId === second.partyId)
      expect(await timesOf()).to.have.deep.members([
        { partyId: first.partyId, now: first.frozenTime },
        { partyId: second.partyId, now: second.frozenTime },
      ])
      const later = at('2026-12-02T15:00:00.000Z')
      await right(fixtures.repo.moveTo(first.id, later, later))
      expect(await timesOf()).to.have.deep.members([
        { partyId: first.partyId, now: later },
        { partyId: second.partyId, now: second.frozenTime },
      ])
    })

    it('starts an advance only from ready (or to where it already goes), and lets one claimant at a time work it, day by day, until it arrives', async () => {
      const clock = clockOf(await fixtures.party())
      await right(fixtures.repo.insert(clock))
      const to = at('2026-12-03T15:00:00.000Z')
      expect(await right(fixtures.repo.startAdvance(clock.id, to))).to.deep.equal(O.some({ ...clock, advancingTo: to }))
      expect(await right(fixtures.repo.startAdvance(clock.id, to)), 'the same advance again').to.deep.equal(O.some({ ...clock, advancingTo: to }))
      expect(await right(fixtures.repo.startAdvance(clock.id, at('2026-12-09T15:00:00.000Z'))), 'another while advancing').to.deep.equal(O.none)

      // Claimed for a lease: nobody else gets it before the lease ends, anybody after. Other
      // suites' clocks may be waiting too: claims go on until this one comes.
      const now = at('2030-01-01T00:00:00.000Z')
      const claimUntilMine = async (when: Date): Promise<TestClock | undefined> => {
        for (let n = 0; n < 50; n++) {
          const claimed = await right(fixtures.repo.claimAdvancing(when, new Date(when.getTime() + 30_000)))
          if (O.isNone(claimed)) return undefined
          if (claimed.value.id === clock.id) return claimed.value
        }
        return undefined
      }
      expect(await claimUntilMine(now)).to.deep.equal({ ...clock, advancingTo: to })
      expect(await claimUntilMine(new Date(now.getTime() + 10_000)), 'while leased').to.equal(undefined)
      expect(await claimUntilMine(new Date(now.getTime() + 31_000)), 'once the lease ran out').to.deep.equal({ ...clock, advancingTo: to })

      const day = at('2026-12-02T15:00:00.000Z')
      expect(await right(fixtures.repo.moveTo(clock.id, day, new Date(now.getTime() + 60_000)))).to.deep.equal(O.some({ ...clock, frozenTime: day, advancingTo: to }))
      const arrived = { ...clock, frozenTime: to, advancingTo: null }
      expect(await right(fixtures.repo.moveTo(clock.id, to, new Date(now.getTime() + 60_000)))).to.deep.equal(O.some(arrived))
      expect(await right(fixtures.repo.findForParty(clock.partyId))).to.deep.equal(O.some(arrived))
      expect(await claimUntilMine(new Date(now.getTime() + 120_000)), 'a ready clock is nobody\'s work').to.equal(undefined)
    })

    it('moves no clock that is gone (its test data was wiped mid-advance)', async () => {
      expect(await right(fixtures.repo.moveTo(freshId(), at('2026-12-02T15:00:00.000Z'), at('2026-12-02T15:01:00.000Z')))).to.deep.equal(O.none)
    })
  })
}
