import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import { newChallenge, type VerificationChallenge } from '../../domain/onboarding/verification.js'
import type { VerificationChallengeRepository } from '../../ports/verification-challenge-repository.js'
import { at, freshId, right, type Implementation } from './run.js'
import type { SessionId } from '../../domain/foundations/ids.js'

/** The behaviour every `VerificationChallengeRepository` must have. `session` returns the id of a stored session. */
export const verificationChallengeRepositoryContract = (
  impl: Implementation<{ readonly repo: VerificationChallengeRepository; readonly session: () => Promise<SessionId> }>,
): void => {
  describe(`VerificationChallengeRepository contract: ${impl.name}`, () => {
    let repo: VerificationChallengeRepository
    let session: () => Promise<SessionId>
    before(async () => {
      ;({ repo, session } = await impl.make())
    })
    const challenge = (sessionId: SessionId, channel: 'phone' | 'email', iso: string): VerificationChallenge =>
      newChallenge({ id: freshId(), sessionId, channel, destination: channel === 'phone' ? '+14155550123' : 'a@b.co', codeHash: `hash-${iso}` }, at(iso))

    it('stores a challenge and returns it as the latest of its channel, field for field', async () => {
      const sessionId = await session()
      const c = challenge(sessionId, 'phone', '2026-07-01T10:00:00.000Z')
      await right(repo.issue(c))
      expect(await right(repo.latest(sessionId, 'phone'))).to.deep.equal(O.some(c))
      expect(await right(repo.latest(sessionId, 'email'))).to.deep.equal(O.none)
    })

    it('closes the open challenge of the same channel when issuing a new one, and only that one', async () => {
      const sessionId = await session()
      const first = challenge(sessionId, 'email', '2026-07-01T10:00:00.000Z')
      const phone = challenge(sessionId, 'phone', '2026-07-01T10:00:10.000Z')
      const second = challenge(sessionId, 'email', '2026-07-01T10:00:30.000Z')
      await right(repo.issue(first))
      await right(repo.issue(phone))
      await right(repo.issue(second))
      expect(await right(repo.latest(sessionId, 'email'))).to.deep.equal(O.some(second))
      expect(await right(repo.latest(sessionId, 'phone'))).to.deep.equal(O.some(phone))
    })

    it('takes attempts one at a time up to the limit, and none on a closed challenge', async () => {
      const sessionId = await session()
      const c = challenge(sessionId, 'email', '2026-07-01T12:00:00.000Z')
      await right(repo.issue(c))
      expect(await right(repo.takeAttempt(c.id, 2))).to.deep.equal(O.some({ ...c, attempts: 1 }))
      expect(await right(repo.takeAttempt(c.id, 2))).to.deep.equal(O.some({ ...c, attempts: 2 }))
      expect(await right(repo.takeAttempt(c.id, 2))).to.deep.equal(O.none)
      expect(await right(repo.latest(sessionId, 'email'))).to.deep.equal(O.some({ ...c, attempts: 2 }))
      const closed = challenge(sessionId, 'phone', '2026-07-01T12:01:00.000Z')
      await right(repo.issue(closed))
      await right(repo.update({ ...closed, closedAt: at('2026-07-01T12:02:00.000Z') }))
      expect(await right(repo.takeAttempt(closed.id, 5))).to.deep.equal(O.none)
      expect(await right(repo.takeAttempt(freshId(), 5))).to.deep.equal(O.none)
    })

    it('gives concurrent takers distinct attempts and never more than the limit', async () => {
      const sessionId = await session()
      const c = challenge(sessionId, 'phone', '2026-07-01T13:00:00.000Z')
      await right(repo.issue(c))
      const taken = await Promise.all(Array.from({ length: 12 }, () => right(repo.takeAttempt(c.id, 5))))
      const counts = taken.flatMap((t) => (O.isSome(t) ? [t.value.attempts] : [])).sort()
      expect(counts).to.deep.equal([1, 2, 3, 4, 5])
      expect(await right(repo.latest(sessionId, 'phone'))).to.deep.equal(O.some({ ...c, attempts: 5 }))
    })

    it('writes attempts and closure', async () => {
      const sessionId = await session()
      const c = challenge(sessionId, 'phone', '2026-07-01T11:00:00.000Z')
      await right(repo.issue(c))
      const updated = { ...c, attempts: 3, closedAt: at('2026-07-01T11:01:00.000Z') }
      await right(repo.update(updated))
      expect(await right(repo.latest(sessionId, 'phone'))).to.deep.equal(O.some(updated))
    })
  })
}
