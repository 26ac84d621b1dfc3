import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { newAddress, type Address, type AddressInput } from '../../domain/onboarding/address.js'
import { alreadyExists } from '../../domain/foundations/errors.js'
import type { Party } from '../../domain/onboarding/party.js'
import type { PartyRepository } from '../../ports/party-repository.js'
import { at, freshId, right, type Implementation } from './run.js'

/**
 * The behaviour every `PartyRepository` must have. Parties are created only by approving an
 * onboarding session, so `party` does that and returns the stored party, without addresses.
 */
export const partyRepositoryContract = (
  impl: Implementation<{ readonly repo: PartyRepository; readonly party: () => Promise<Party> }>,
): void => {
  describe(`PartyRepository contract: ${impl.name}`, () => {
    let repo: PartyRepository
    let party: () => Promise<Party>
    before(async () => {
      ;({ repo, party } = await impl.make())
    })

    const address = (type: AddressInput['type'], iso: string, overrides: Partial<AddressInput> = {}): Address =>
      newAddress({ type, line1: '1 Main St', city: 'Springfield', postal_code: '62701', country: 'US', ...overrides }, [], freshId(), at(iso))

    it('returns the party as approved, and none for an unknown id', async () => {
      const p = await party()
      expect(await right(repo.findById(p.id))).to.deep.equal(O.some(p))
      expect(await right(repo.findById(freshId()))).to.deep.equal(O.none)
    })

    it('adds addresses, field for field, returned oldest first (ties by id)', async () => {
      const p = await party()
      const operating = address('operating', '2026-08-01T10:00:00.002Z', { line2: 'Unit 4', region: 'IL' })
      const registered = address('registered', '2026-08-01T10:00:00.001Z')
      const [lowId, highId] = [freshId(), freshId()].sort()
      const box = address('mailing', '2026-08-01T10:00:00.003Z', { line1: 'PO Box 9', country: 'CA', postal_code: 'K1A 0B1' })
      const [lowBox, highBox] = [{ ...box, id: lowId! }, { ...box, id: highId!, line1: 'PO Box 10' }]
      for (const a of [operating, highBox, registered, lowBox]) await right(repo.addAddress(p.id, a))
      expect(await right(repo.findById(p.id))).to.deep.equal(O.some({ ...p, addresses: [registered, operating, lowBox, highBox] }))
    })

    it('replaces an address on update, in place, including its registered address', async () => {
      const p = await party()
      const registered = address('registered', '2026-08-01T10:00:00.001Z')
      const operating = address('operating', '2026-08-01T10:00:00.002Z', { line2: 'Unit 4', region: 'IL' })
      await right(repo.addAddress(p.id, registered))
      await right(repo.addAddress(p.id, operating))
      const moved: Address = {
        ...operating,
        type: 'mailing',
        line1: '9 Elm St',
        line2: null,
        city: 'Chicago',
        region: null,
        postalCode: '60601',
        country: 'CA',
        updatedAt: at('2026-08-02T11:00:00.500Z'),
      }
      await right(repo.updateAddress(p.id, moved))
      const renamed: Address = { ...registered, line1: '2 Main St', updatedAt: at('2026-08-02T11:00:00.600Z') }
      await right(repo.updateAddress(p.id, renamed))
      expect(await right(repo.findById(p.id))).to.deep.equal(O.some({ ...p, addresses: [renamed, moved] }))
    })

    it('refuses a second registered address, added or updated into one, as AlreadyExists and changes nothing', async () => {
      const p = await party()
      const registered = address('registered', '2026-08-01T10:00:00.001Z')
      const operating = address('operating', '2026-08-01T10:00:00.002Z')
      await right(repo.addAddress(p.id, registered))
      await right(repo.addAddress(p.id, operating))
      const before = O.some({ ...p, addresses: [registered, operating] })
      const second = address('registered', '2026-08-01T10:00:00.003Z', { line1: '3 Other St' })
      expect(await repo.addAddress(p.id, second)()).to.deep.equal(E.left(alreadyExists('registered_address')))
      expect(await right(repo.findById(p.id))).to.deep.equal(before)
      const promoted: Address = { ...operating, type: 'registered', updatedAt: at('2026-08-02T00:00:00.000Z') }
      expect(await repo.updateAddress(p.id, promoted)()).to.deep.equal(E.left(alreadyExists('registered_address')))
      expect(await right(repo.findById(p.id))).to.deep.equal(before)
    })

    it('lets every party have its own registered address', async () => {
      const [one, two] = [await party(), await party()]
      const first = address('registered', '2026-08-01T10:00:00.001Z')
      const second = address('registered', '2026-08-01T10:00:00.001Z')
      await right(repo.addAddress(one.id, first))
      await right(repo.addAddress(two.id, second))
      expect(await right(repo.findById(one.id))).to.deep.equal(O.some({ ...one, addresses: [first] }))
      expect(await right(repo.findById(two.id))).to.deep.equal(O.some({ ...two, addresses: [second] }))
    })

    it("changes nothing when updating another party's address", async () => {
      const [owner, other] = [await party(), await party()]
      const mailing = address('mailing', '2026-08-01T10:00:00.001Z')
      await right(repo.addAddress(owner.id, mailing))
      await right(repo.updateAddress(other.id, { ...mailing, city: 'Elsewhere', updatedAt: at('2026-08-03T00:00:00.000Z') }))
      expect(await right(repo.findById(owner.id))).to.deep.equal(O.some({ ...owner, addresses: [mailing] }))
      expect(await right(repo.findById(other.id))).to.deep.equal(O.some(other))
    })
  })
}
