import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { Caller } from '../src/domain/api-key.js'
import { insufficientScope, invalidApiKey, invalidRequest, notFound, partyMismatch, storeUnavailable } from '../src/domain/errors.js'
import { authenticateApiKey } from '../src/use-cases/api-keys/authenticate-api-key.js'
import { requireOwnParty, requireScope } from '../src/use-cases/api-keys/authorize.js'
import { batchedKeyUsage } from '../src/use-cases/api-keys/batched-key-usage.js'
import { listApiKeys } from '../src/use-cases/api-keys/list-api-keys.js'
import { mintApiKey } from '../src/use-cases/api-keys/mint-api-key.js'
import { revokeApiKey } from '../src/use-cases/api-keys/revoke-api-key.js'
import { createOnboardingSession } from '../src/use-cases/onboarding/create-onboarding-session.js'
import { getOnboardingSession } from '../src/use-cases/onboarding/get-onboarding-session.js'
import {
  fakeKeyMaterial,
  inMemoryApiKeyRepository,
  inMemoryOnboardingSessionRepository,
  sequentialIds,
  testClock,
} from '../src/testing/index.js'

const PARTY = '9d7c7a4e-0d6b-4c1e-9b8a-3f2e1d0c9b8a'

const setup = () => {
  const apiKeys = inMemoryApiKeyRepository()
  const used: [string, Date][] = []
  const deps = {
    apiKeys,
    keyMaterial: fakeKeyMaterial(),
    ids: sequentialIds(),
    clock: testClock(),
    usage: { record: (keyId: string, at: Date) => void used.push([keyId, at]) },
  }
  const mint = async (input: unknown) => {
    const result = await mintApiKey(deps)(input)()
    if (E.isLeft(result)) throw new Error(JSON.stringify(result.left))
    return result.right
  }
  return { deps, apiKeys, used, mint }
}

describe('key use cases', () => {
  describe('mintApiKey', () => {
    it('mints an active live key with the default scopes under a new default client', async () => {
      const { deps, apiKeys, mint } = setup()
      const minted = await mint({ party_id: PARTY })
      expect(minted.client).to.deep.equal({ id: '00000000-0000-4000-8000-000000000001', partyId: PARTY, name: 'default', createdAt: deps.clock.now() })
      expect(minted.key).to.deep.include({ clientId: minted.client.id, partyId: PARTY, environment: 'live', status: 'active', scopes: ['partner:api', 'keys:manage'] })
      expect(apiKeys.keys()).to.deep.equal([minted.key])
    })

    it('rotates: the same party and client name share a client, another name gets its own', async () => {
      const { mint } = setup()
      const a = await mint({ party_id: PARTY, client_name: 'backend' })
      const b = await mint({ party_id: PARTY, client_name: 'backend', environment: 'test', scopes: ['*'] })
      const c = await mint({ party_id: PARTY, client_name: 'reporting' })
      expect(b.client).to.deep.equal(a.client)
      expect(c.client.id).not.to.equal(a.client.id)
      expect(b.key.environment).to.equal('test')
    })

    it('refuses invalid input and stores nothing', async () => {
      const { deps, apiKeys } = setup()
      for (const [input, error] of [
        [{ party_id: 'x' }, invalidRequest('party_id must be a UUID', 'party_id')],
        [{ party_id: PARTY, scopes: ['admin'] }, invalidRequest('scopes.0 is not a known scope (known: partner:api, keys:manage, *, or <namespace>:*)', 'scopes.0')],
        [{ party_id: PARTY, extra: 1 }, invalidRequest('extra is not a known field', 'extra')],
        ['not an object', invalidRequest('The request body must be a JSON object')],
      ] as const) {
        expect(await mintApiKey(deps)(input)()).to.deep.equal(E.left(error))
      }
      expect(apiKeys.keys()).to.deep.equal([])
    })
  })

  describe('authenticateApiKey', () => {
    it('turns a valid key into its caller and records the use', async () => {
      const { deps, used, mint } = setup()
      const minted = await mint({ party_id: PARTY, scopes: ['partner:api'] })
      expect(await authenticateApiKey(deps)(minted.plaintext)()).to.deep.equal(
        E.right({ keyId: minted.key.id, clientId: minted.client.id, partyId: PARTY, environment: 'live', scopes: ['partner:api'] }),
      )
      expect(used).to.deep.equal([[minted.key.id, deps.clock.now()]])
    })

    it('refuses malformed, bad-checksum, unknown, wrong-secret and revoked keys alike', async () => {
      const { deps, used, mint } = setup()
      const minted = await mint({ party_id: PARTY })
      const wrongSecret = minted.plaintext.replace('_sss', '_ttt')
      const unknown = minted.plaintext.replace(minted.key.idSegment, 'zz00000000000000')
      for (const presented of ['hello', minted.plaintext.slice(0, -1) + 'x', unknown, wrongSecret]) {
        expect(await authenticateApiKey(deps)(presented)(), presented).to.deep.equal(E.left(invalidApiKey))
      }
      await revokeApiKey(deps)({ keyId: minted.key.id, clientId: minted.client.id, partyId: PARTY, environment: 'live', scopes: [] }, { apiKeyId: minted.key.id })()
      expect(await authenticateApiKey(deps)(minted.plaintext)()).to.deep.equal(E.left(invalidApiKey))
      expect(used).to.deep.equal([])
    })
  })

  describe('requireScope and requireOwnParty', () => {
    const caller = (scopes: string[]): Caller => ({ keyId: 'k', clientId: 'c', partyId: PARTY, environment: 'live', scopes })
    it('grants exact and wildcard scopes only', () => {
      expect(requireScope('keys:manage')(caller(['keys:manage']))).to.deep.equal(E.right(caller(['keys:manage'])))
      expect(E.isRight(requireScope('keys:manage')(caller(['*'])))).to.equal(true)
      expect(E.isRight(requireScope('keys:manage')(caller(['keys:*'])))).to.equal(true)
      expect(requireScope('keys:manage')(caller(['partner:*']))).to.deep.equal(E.left(insufficientScope('keys:manage')))
    })
    it('matches the party case-insensitively and refuses any other value', () => {
      expect(E.isRight(requireOwnParty(PARTY.toUpperCase())(caller([])))).to.equal(true)
      expect(requireOwnParty('someone-else')(caller([]))).to.deep.equal(E.left(partyMismatch))
    })
  })

  describe('listApiKeys and revokeApiKey', () => {
    it("lists only the caller's client's keys, a page at a time", async () => {
      const { deps, mint } = setup()
      const a = await mint({ party_id: PARTY, client_name: 'x' })
      deps.clock.advance(1)
      const b = await mint({ party_id: PARTY, client_name: 'x' })
      await mint({ party_id: PARTY, client_name: 'y' })
      const caller: Caller = { keyId: a.key.id, clientId: a.client.id, partyId: PARTY, environment: 'live', scopes: ['keys:manage'] }
      const first = await listApiKeys(deps)(caller, { limit: '1' })()
      if (E.isLeft(first)) throw new Error('expected a page')
      expect(first.right.items).to.deep.equal([a.key])
      const second = await listApiKeys(deps)(caller, { limit: '1', cursor: first.right.nextCursor })()
      expect(second).to.deep.equal(E.right({ items: [b.key], nextCursor: null }))
    })

    it("revokes once, keeps the first time, and cannot touch another client's key", async () => {
      const { deps, mint } = setup()
      const a = await mint({ party_id: PARTY, client_name: 'x' })
      const other = await mint({ party_id: PARTY, client_name: 'y' })
      const caller: Caller = { keyId: a.key.id, clientId: a.client.id, partyId: PARTY, environment: 'live', scopes: ['keys:manage'] }
      const revokedAt = deps.clock.now()
      const revoked = { ...a.key, status: 'revoked', revokedAt }
      expect(await revokeApiKey(deps)(caller, { apiKeyId: a.key.id })()).to.deep.equal(E.right(revoked))
      deps.clock.advance(60_000)
      expect(await revokeApiKey(deps)(caller, { apiKeyId: a.key.id })()).to.deep.equal(E.right(revoked))
      expect(await revokeApiKey(deps)(caller, { apiKeyId: other.key.id })()).to.deep.equal(E.left(notFound('api_key')))
      expect(await revokeApiKey(deps)(caller, { apiKeyId: 'nope' })()).to.deep.equal(E.left(invalidRequest('apiKeyId must be a UUID', 'apiKeyId')))
    })
  })

  describe('batchedKeyUsage', () => {
    it('writes the latest use per key in one batch per flush, and keeps a failed batch for the next', async () => {
      const writes: Map<string, Date>[] = []
      let failing = true
      const errors: unknown[] = []
      const usage = batchedKeyUsage({
        apiKeys: {
          recordUsage: (batch) => {
            if (failing) return TE.left(storeUnavailable('down'))
            writes.push(new Map(batch))
            return TE.right(undefined)
          },
        },
        onFlushError: (e) => void errors.push(e),
      })
      const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s))
      usage.record('k1', t(1))
      usage.record('k1', t(3))
      usage.record('k2', t(2))
      usage.record('k1', t(2))
      await usage.flush()
      expect(errors).to.deep.equal(['down'])
      failing = false
      await usage.flush()
      await usage.flush()
      expect(writes).to.deep.equal([new Map([['k1', t(3)], ['k2', t(2)]])])
    })
  })
})

describe('onboarding session use cases', () => {
  const caller: Caller = { keyId: 'k', clientId: 'client-1', partyId: PARTY, environment: 'live', scopes: ['partner:api'] }
  const setupSessions = () => {
    const sessions = inMemoryOnboardingSessionRepository()
    return { sessions, deps: { sessions, ids: sequentialIds(), clock: testClock() } }
  }

  it('creates an IN_PROGRESS session at PHONE_VERIFICATION owned by the caller, with defaults', async () => {
    const { deps, sessions } = setupSessions()
    const created = await createOnboardingSession(deps)(caller, { country_of_incorporation: 'GB', locale: 'en-GB' })()
    const expected = {
      id: '00000000-0000-4000-8000-000000000001',
      clientId: 'client-1',
      type: 'business',
      countryOfIncorporation: 'GB',
      entryChannel: 'partner_portal',
      locale: 'en-GB',
      status: 'IN_PROGRESS',
      currentStep: 'PHONE_VERIFICATION',
      phone: null,
      email: null,
      profile: null,
      addresses: [],
      submittedAt: null,
      review: null,
      partyId: null,
      version: 1,
      createdAt: deps.clock.now(),
      updatedAt: deps.clock.now(),
    }
    expect(created).to.deep.equal(E.right(expected))
    expect(sessions.all()).to.deep.equal([expected])
  })

  it('refuses invalid input, naming the field, and stores nothing', async () => {
    const { deps, sessions } = setupSessions()
    for (const [input, error] of [
      [{ locale: 'en-US' }, invalidRequest('country_of_incorporation is required', 'country_of_incorporation')],
      [{ country_of_incorporation: 'ZZ', locale: 'en-US' }, invalidRequest('country_of_incorporation must be an ISO 3166-1 alpha-2 country code in upper case, such as US', 'country_of_incorporation')],
      [{ country_of_incorporation: 'US', locale: 'en' }, invalidRequest('locale must be a language-region tag such as en-US', 'locale')],
      [{ country_of_incorporation: 'US', locale: 'en-US', entry_channel: 'fax' }, invalidRequest('entry_channel must be one of: partner_portal, partner_api, partner_mobile_app, assisted', 'entry_channel')],
    ] as const) {
      expect(await createOnboardingSession(deps)(caller, input)()).to.deep.equal(E.left(error))
    }
    expect(sessions.all()).to.deep.equal([])
  })

  it('reports a store failure as StoreUnavailable', async () => {
    const { deps } = setupSessions()
    const failing = { ...deps, sessions: { insert: () => TE.left(storeUnavailable('disk full')) } }
    expect(await createOnboardingSession(failing)(caller, { country_of_incorporation: 'US', locale: 'en-US' })()).to.deep.equal(
      E.left(storeUnavailable('disk full')),
    )
  })

  it("returns the caller's session, and NotFound for another client's", async () => {
    const { deps } = setupSessions()
    const created = await createOnboardingSession(deps)(caller, { country_of_incorporation: 'US', locale: 'en-US' })()
    if (E.isLeft(created)) throw new Error('expected a session')
    const id = created.right.id
    expect(await getOnboardingSession(deps)(caller, { sessionId: id })()).to.deep.equal(created)
    expect(await getOnboardingSession(deps)({ ...caller, clientId: 'client-2' }, { sessionId: id })()).to.deep.equal(E.left(notFound('onboarding_session')))
    expect(await getOnboardingSession(deps)(caller, { sessionId: 'x' })()).to.deep.equal(E.left(invalidRequest('sessionId must be a UUID', 'sessionId')))
  })
})
