import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { ApiKey, Caller } from '../src/domain/keys/api-key.js'
import { apiKeyView, mintedKeyView } from '../src/views/keys.js'
import {
  insufficientScope,
  invalidApiKey,
  invalidRequest,
  notFound,
  partyMismatch,
  storeUnavailable,
  type StoreUnavailable,
} from '../src/domain/foundations/errors.js'
import { encodeCursor } from '../src/domain/foundations/pagination.js'
import type { IdGenerator } from '../src/ports/id-generator.js'
import { fakeKeyMaterial, inMemoryApiKeyRepository, sequentialIds, testClock } from '../src/testing/index.js'
import { authenticateApiKey, idSegmentToLookUp, type AuthenticateApiKeyDeps } from '../src/use-cases/api-keys/authenticate-api-key.js'
import { requireOwnParty, requireScope } from '../src/use-cases/api-keys/authorize.js'
import { batchedKeyUsage } from '../src/stateful/batched-key-usage.js'
import { listApiKeys } from '../src/use-cases/api-keys/list-api-keys.js'
import { mintApiKey, type MintedKey } from '../src/use-cases/api-keys/mint-api-key.js'
import { revokeApiKey } from '../src/use-cases/api-keys/revoke-api-key.js'
import { testId } from '../src/testing/test-ids.js'

const PARTY = testId('9d7c7a4e-0d6b-4c1e-9b8a-3f2e1d0c9b8a')
const OTHER_PARTY = '5f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9'
const NOW = new Date('2026-01-15T10:00:00.000Z')
const UNKNOWN_SCOPE = 'is not a known scope (known: partner:api, keys:manage, *, or <namespace>:*)'

/** The id `sequentialIds` hands out `n`-th. */
const nth = (n: number): string => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`

const setup = () => {
  const apiKeys = inMemoryApiKeyRepository()
  const used: Array<readonly [string, Date]> = []
  const deps = {
    apiKeys,
    keyMaterial: fakeKeyMaterial(),
    ids: sequentialIds(),
    clock: testClock(NOW),
    usage: {
      record: (keyId: string, at: Date): void => {
        used.push([keyId, at])
      },
    },
  }
  const mint = async (input: unknown, overrides: Partial<typeof deps> = {}): Promise<MintedKey> => {
    const result = await mintApiKey({ ...deps, ...overrides })(input)()
    if (E.isLeft(result)) throw new Error(`mint failed: ${JSON.stringify(result.left)}`)
    return result.right
  }
  return { deps, apiKeys, used, mint }
}

/** The caller a minted key stands for, built by hand. */
const callerOf = (minted: MintedKey): Caller => ({
  keyId: minted.key.id,
  clientId: minted.client.id,
  partyId: minted.key.partyId,
  environment: minted.key.environment,
  scopes: minted.key.scopes,
})

const reversed = (s: string): string => [...s].reverse().join('')

describe('mintApiKey', () => {
  describe('when only party_id is given', () => {
    it('mints an active live key with partner:api and keys:manage under a new client named default', async () => {
      const { deps, apiKeys } = setup()
      const expected = fakeKeyMaterial().generate('live')
      const client = { id: nth(1), partyId: PARTY, name: 'default', createdAt: NOW }
      const key: ApiKey = {
        id: testId(nth(2)),
        clientId: testId(nth(1)),
        partyId: PARTY,
        idSegment: expected.idSegment,
        prefix: `lgk_live_${expected.idSegment}`,
        hash: reversed(expected.plaintext),
        environment: 'live',
        scopes: ['partner:api', 'keys:manage'],
        status: 'active',
        createdAt: NOW,
        revokedAt: null,
        lastUsedAt: null,
      }
      expect(await mintApiKey(deps)({ party_id: PARTY })()).to.deep.equal(E.right({ client, key, plaintext: expected.plaintext }))
      expect(apiKeys.clients()).to.deep.equal([client])
      expect(apiKeys.keys()).to.deep.equal([key])
    })

    it('gives a mint response with the key once and ISO timestamps', async () => {
      const { mint } = setup()
      const minted = await mint({ party_id: PARTY })
      expect(mintedKeyView(minted.client, minted.key, minted.plaintext)).to.deep.equal({
        api_key: minted.plaintext,
        api_key_id: nth(2),
        key_prefix: minted.key.prefix,
        party_id: PARTY,
        client_id: nth(1),
        client_name: 'default',
        environment: 'live',
        livemode: true,
        scopes: ['partner:api', 'keys:manage'],
        status: 'active',
        created_at: '2026-01-15T10:00:00.000Z',
      })
    })
  })

  it('honours an explicit environment, scopes and client name', async () => {
    const { mint } = setup()
    const minted = await mint({ party_id: PARTY, environment: 'test', scopes: ['keys:*', 'keys:*'], client_name: '  backend  ' })
    expect(minted.client).to.deep.equal({ id: nth(1), partyId: PARTY, name: 'backend', createdAt: NOW })
    expect({ environment: minted.key.environment, scopes: minted.key.scopes, prefix: minted.key.prefix }).to.deep.equal({
      environment: 'test',
      scopes: ['keys:*'],
      prefix: `lgk_test_${minted.key.idSegment}`,
    })
    expect(minted.plaintext.startsWith(`lgk_test_${minted.key.idSegment}_`)).to.equal(true)
  })

  describe('when the same party_id and client_name mint again', () => {
    it('adds the key to the existing client (rotation), while another name creates another client', async () => {
      const { deps, apiKeys, mint } = setup()
      const first = await mint({ party_id: PARTY, client_name: 'backend' })
      deps.clock.advance(1000)
      const second = await mint({ party_id: PARTY.toUpperCase(), client_name: 'backend' })
      const reporting = await mint({ party_id: PARTY, client_name: 'reporting' })
      const otherParty = await mint({ party_id: OTHER_PARTY, client_name: 'backend' })

      expect(second.client).to.deep.equal(first.client)
      // Each mint takes three ids: client, key and its audit event.
      expect(reporting.client).to.deep.equal({ id: nth(7), partyId: PARTY, name: 'reporting', createdAt: new Date(NOW.getTime() + 1000) })
      expect(otherParty.client).to.deep.equal({ id: nth(10), partyId: OTHER_PARTY, name: 'backend', createdAt: new Date(NOW.getTime() + 1000) })
      expect(apiKeys.clients()).to.deep.equal([first.client, reporting.client, otherParty.client])
      expect(apiKeys.keys().map((k) => [k.id, k.clientId, k.partyId])).to.deep.equal([
        [first.key.id, first.client.id, PARTY],
        [second.key.id, first.client.id, PARTY],
        [reporting.key.id, reporting.client.id, PARTY],
        [otherParty.key.id, otherParty.client.id, OTHER_PARTY],
      ])
      expect(new Set(apiKeys.keys().map((k) => k.idSegment)).size).to.equal(4)
    })
  })

  describe('when the input is invalid', () => {
    const cases: ReadonlyArray<readonly [string, unknown, ReturnType<typeof invalidRequest>]> = [
      ['party_id is missing', {}, invalidRequest('party_id is required', 'party_id')],
      ['party_id is not a UUID', { party_id: 'party-1' }, invalidRequest('party_id must be a UUID', 'party_id')],
      ['a scope is unknown', { party_id: PARTY, scopes: ['partner:api', 'admin'] }, invalidRequest(`scopes.1 ${UNKNOWN_SCOPE}`, 'scopes.1')],
      ['scopes is empty', { party_id: PARTY, scopes: [] }, invalidRequest('scopes must have between 1 and 20 items', 'scopes')],
      ['a field is unknown', { party_id: PARTY, name: 'backend' }, invalidRequest('name is not a known field', 'name')],
      ['the environment is unknown', { party_id: PARTY, environment: 'prod' }, invalidRequest('environment must be one of: live, test', 'environment')],
      ['the client name is blank', { party_id: PARTY, client_name: '  ' }, invalidRequest('client_name must be between 1 and 100 characters', 'client_name')],
      ['the body is not an object', [PARTY], invalidRequest('The request body must be a JSON object')],
    ]
    for (const [when, input, error] of cases) {
      it(`returns InvalidRequest when ${when} and stores nothing`, async () => {
        const { deps, apiKeys } = setup()
        expect(await mintApiKey(deps)(input)()).to.deep.equal(E.left(error))
        expect({ clients: apiKeys.clients(), keys: apiKeys.keys() }).to.deep.equal({ clients: [], keys: [] })
      })
    }
  })

  describe('when the store fails', () => {
    it('returns StoreUnavailable', async () => {
      const { deps } = setup()
      const cause = new Error('connection reset')
      const apiKeys = { ...deps.apiKeys, mint: () => TE.left(storeUnavailable(cause)) }
      expect(await mintApiKey({ ...deps, apiKeys })({ party_id: PARTY })()).to.deep.equal(E.left(storeUnavailable(cause)))
    })
  })
})

describe('authenticateApiKey', () => {
  describe('when the key is valid', () => {
    it('returns the caller it stands for and records the use at the clock time', async () => {
      const { deps, used, mint } = setup()
      const minted = await mint({ party_id: PARTY, client_name: 'backend', scopes: ['partner:api'] })
      deps.clock.advance(5000)
      expect(await authenticateApiKey(deps)(minted.plaintext)()).to.deep.equal(
        E.right({ keyId: nth(2), clientId: nth(1), partyId: PARTY, environment: 'live', scopes: ['partner:api'] }),
      )
      expect(used).to.deep.equal([[nth(2), new Date(NOW.getTime() + 5000)]])
    })

    it('authenticates a test-environment key as a test caller', async () => {
      const { deps, mint } = setup()
      const minted = await mint({ party_id: PARTY, environment: 'test' })
      expect(await authenticateApiKey(deps)(minted.plaintext)()).to.deep.equal(E.right({ ...callerOf(minted), environment: 'test' }))
    })
  })

  describe('when the key is malformed or fails its checksum', () => {
    it('returns InvalidApiKey without reading the store or recording a use', async () => {
      const { deps, used, mint } = setup()
      const minted = await mint({ party_id: PARTY })
      let lookups = 0
      const apiKeys = {
        findByIdSegment: (idSegment: string) => {
          lookups += 1
          return deps.apiKeys.findByIdSegment(idSegment)
        },
      }
      const badChecksum = `${minted.plaintext.slice(0, -1)}x`
      for (const presented of ['', 'hello', `Bearer ${minted.plaintext}`, minted.plaintext.replace('lgk_live_', 'lgk_prod_'), `${minted.plaintext}!`, badChecksum]) {
        expect(await authenticateApiKey({ ...deps, apiKeys })(presented)(), presented).to.deep.equal(E.left(invalidApiKey))
      }
      expect({ lookups, used }).to.deep.equal({ lookups: 0, used: [] })
    })
  })

  describe('when the id segment is unknown', () => {
    it('returns InvalidApiKey', async () => {
      const { deps, used, mint } = setup()
      await mint({ party_id: PARTY })
      const unknown = `lgk_live_zz00000000000000_${'s'.repeat(32)}fakeCk`
      expect(await authenticateApiKey(deps)(unknown)()).to.deep.equal(E.left(invalidApiKey))
      expect(used).to.deep.equal([])
    })
  })

  describe('when the secret is wrong for a known id segment', () => {
    it('returns InvalidApiKey', async () => {
      const { deps, used, mint } = setup()
      const minted = await mint({ party_id: PARTY })
      const wrongSecret = `${minted.key.prefix}_${'t'.repeat(32)}fakeCk`
      expect(await authenticateApiKey(deps)(wrongSecret)()).to.deep.equal(E.left(invalidApiKey))
      expect(used).to.deep.equal([])
    })
  })

  describe('when the key is revoked', () => {
    it('returns InvalidApiKey', async () => {
      const { deps, used, mint } = setup()
      const minted = await mint({ party_id: PARTY })
      await revokeApiKey(deps)(callerOf(minted), { apiKeyId: minted.key.id })()
      expect(await authenticateApiKey(deps)(minted.plaintext)()).to.deep.equal(E.left(invalidApiKey))
      expect(used).to.deep.equal([])
    })
  })

  describe('idSegmentToLookUp', () => {
    it('names the id segment of a well-formed key with a valid checksum, and nothing for what authentication refuses unread', async () => {
      const { deps, mint } = setup()
      const minted = await mint({ party_id: PARTY })
      const presented = {
        key: minted.plaintext,
        wrongChecksum: `${minted.plaintext.slice(0, -1)}x`,
        tooShort: `lgk_live_${'0'.repeat(16)}_${'A'.repeat(32)}`,
        otherEnvironment: minted.plaintext.replace('lgk_live_', 'lgk_prod_'),
        empty: '',
        notAKey: 'hello',
      }
      const segments = Object.fromEntries(Object.entries(presented).map(([name, key]) => [name, idSegmentToLookUp(deps.keyMaterial)(key)]))
      expect(segments).to.deep.equal({
        key: O.some(minted.key.idSegment),
        wrongChecksum: O.none,
        tooShort: O.none,
        otherEnvironment: O.none,
        empty: O.none,
        notAKey: O.none,
      })
      // What it names nothing for, authentication refuses without asking the store.
      let lookups = 0
      const apiKeys = {
        findByIdSegment: (idSegment: string) => {
          lookups += 1
          return deps.apiKeys.findByIdSegment(idSegment)
        },
      }
      for (const [name, key] of Object.entries(presented)) {
        if (name === 'key') continue
        expect(await authenticateApiKey({ ...deps, apiKeys })(key)(), name).to.deep.equal(E.left(invalidApiKey))
      }
      expect(lookups).to.equal(0)
    })
  })

  describe('when the store fails', () => {
    it('returns StoreUnavailable', async () => {
      const { deps, mint } = setup()
      const minted = await mint({ party_id: PARTY })
      const apiKeys = { findByIdSegment: () => TE.left(storeUnavailable('timeout')) }
      expect(await authenticateApiKey({ ...deps, apiKeys })(minted.plaintext)()).to.deep.equal(E.left(storeUnavailable('timeout')))
    })
  })
})

describe('requireScope', () => {
  const caller = (scopes: readonly string[]): Caller => ({ keyId: testId(nth(2)), clientId: testId(nth(1)), partyId: PARTY, environment: 'live', scopes })

  it('returns the caller when its scopes grant the scope, exactly or by wildcard', () => {
    for (const scopes of [['keys:manage'], ['*'], ['keys:*'], ['partner:api', 'keys:manage']]) {
      expect(requireScope('keys:manage')(caller(scopes)), scopes.join(',')).to.deep.equal(E.right(caller(scopes)))
    }
  })

  it('returns InsufficientScope naming the scope otherwise', () => {
    for (const scopes of [[], ['partner:api'], ['partner:*']]) {
      expect(requireScope('keys:manage')(caller(scopes)), scopes.join(',')).to.deep.equal(E.left(insufficientScope('keys:manage')))
    }
    expect(requireScope('partner:api')(caller(['keys:*']))).to.deep.equal(E.left({ _tag: 'InsufficientScope', scope: 'partner:api' }))
  })
})

describe('requireOwnParty', () => {
  const caller: Caller = { keyId: testId(nth(2)), clientId: testId(nth(1)), partyId: PARTY, environment: 'live', scopes: ['partner:api'] }

  it("returns the caller for its own party, in any case", () => {
    expect(requireOwnParty(PARTY)(caller)).to.deep.equal(E.right(caller))
    expect(requireOwnParty(PARTY.toUpperCase())(caller)).to.deep.equal(E.right(caller))
  })

  it('returns PartyMismatch for another party or a malformed value', () => {
    for (const partyId of [OTHER_PARTY, 'not-a-uuid', '', ` ${PARTY}`]) {
      expect(requireOwnParty(partyId)(caller), partyId).to.deep.equal(E.left(partyMismatch))
    }
  })
})

describe('listApiKeys', () => {
  it("lists the keys of the caller's API client only, active and revoked", async () => {
    const { deps, mint } = setup()
    const first = await mint({ party_id: PARTY, client_name: 'backend' })
    deps.clock.advance(1000)
    const second = await mint({ party_id: PARTY, client_name: 'backend' })
    await mint({ party_id: PARTY, client_name: 'reporting' })
    await mint({ party_id: OTHER_PARTY, client_name: 'backend' })
    const revoked = await revokeApiKey(deps)(callerOf(second), { apiKeyId: first.key.id })()
    expect(revoked).to.deep.equal(E.right({ ...first.key, status: 'revoked', revokedAt: deps.clock.now() }))

    const listed = await listApiKeys(deps)(callerOf(second), {})()
    expect(listed).to.deep.equal(E.right({ items: [{ ...first.key, status: 'revoked', revokedAt: deps.clock.now() }, second.key], nextCursor: null }))
  })

  it('gives each key a listing record without the secret or its hash', async () => {
    const { deps, mint } = setup()
    const minted = await mint({ party_id: PARTY })
    const listed = await listApiKeys(deps)(callerOf(minted), {})()
    expect(E.map((page: { items: readonly ApiKey[] }) => page.items.map(apiKeyView))(listed)).to.deep.equal(
      E.right([
        {
          api_key_id: nth(2),
          key_prefix: minted.key.prefix,
          status: 'active',
          environment: 'live',
          livemode: true,
          scopes: ['partner:api', 'keys:manage'],
          created_at: '2026-01-15T10:00:00.000Z',
          revoked_at: null,
          last_used_at: null,
        },
      ]),
    )
  })

  describe('when paginating with limit=1', () => {
    it('walks every key in (created_at, id) order, whatever the order of minting', async () => {
      const { deps, mint } = setup()
      // Ids that count down, so id order is the reverse of minting order.
      let n = 0xffff
      const descending: IdGenerator = { next: () => nth(n--) }
      deps.clock.set(new Date(NOW.getTime() + 2000))
      const late = await mint({ party_id: PARTY }, { ids: descending })
      deps.clock.set(NOW)
      const earlyHighId = await mint({ party_id: PARTY }, { ids: descending })
      const earlyLowId = await mint({ party_id: PARTY }, { ids: descending })
      const caller = callerOf(late)

      const page1 = await listApiKeys(deps)(caller, { limit: '1' })()
      expect(page1).to.deep.equal(E.right({ items: [earlyLowId.key], nextCursor: encodeCursor(earlyLowId.key) }))
      const page2 = await listApiKeys(deps)(caller, { limit: '1', cursor: encodeCursor(earlyLowId.key) })()
      expect(page2).to.deep.equal(E.right({ items: [earlyHighId.key], nextCursor: encodeCursor(earlyHighId.key) }))
      const page3 = await listApiKeys(deps)(caller, { limit: '1', cursor: encodeCursor(earlyHighId.key) })()
      expect(page3).to.deep.equal(E.right({ items: [late.key], nextCursor: null }))
    })
  })

  describe('when the query is invalid', () => {
    it('returns InvalidRequest naming the parameter', async () => {
      const { deps, mint } = setup()
      const caller = callerOf(await mint({ party_id: PARTY }))
      expect(await listApiKeys(deps)(caller, { limit: '0' })()).to.deep.equal(
        E.left(invalidRequest('limit must be an integer from 1 to 100', 'limit')),
      )
      expect(await listApiKeys(deps)(caller, { cursor: 'garbage' })()).to.deep.equal(
        E.left(invalidRequest('cursor is not a cursor returned by this list', 'cursor')),
      )
      expect(await listApiKeys(deps)(caller, { status: 'active' })()).to.deep.equal(
        E.left(invalidRequest('status is not a known field', 'status')),
      )
    })
  })
})

describe('revokeApiKey', () => {
  describe("when the key is the caller's client's", () => {
    it('returns it revoked at the clock time and stores that', async () => {
      const { deps, apiKeys, mint } = setup()
      const minted = await mint({ party_id: PARTY })
      deps.clock.advance(60_000)
      const revoked: ApiKey = { ...minted.key, status: 'revoked', revokedAt: new Date(NOW.getTime() + 60_000) }
      expect(await revokeApiKey(deps)(callerOf(minted), { apiKeyId: minted.key.id })()).to.deep.equal(E.right(revoked))
      expect(apiKeys.keys()).to.deep.equal([revoked])
    })

    it('accepts the id in upper case', async () => {
      const { deps, mint } = setup()
      const minted = await mint({ party_id: PARTY })
      expect(await revokeApiKey(deps)(callerOf(minted), { apiKeyId: minted.key.id.toUpperCase() })()).to.deep.equal(
        E.right({ ...minted.key, status: 'revoked', revokedAt: NOW }),
      )
    })
  })

  describe('when the key is already revoked', () => {
    it('returns it unchanged, keeping the first revokedAt', async () => {
      const { deps, apiKeys, mint } = setup()
      const minted = await mint({ party_id: PARTY })
      const firstTime = await revokeApiKey(deps)(callerOf(minted), { apiKeyId: minted.key.id })()
      deps.clock.advance(3_600_000)
      const secondTime = await revokeApiKey(deps)(callerOf(minted), { apiKeyId: minted.key.id })()
      expect(secondTime).to.deep.equal(E.right({ ...minted.key, status: 'revoked', revokedAt: NOW }))
      expect(secondTime).to.deep.equal(firstTime)
      expect(apiKeys.keys()).to.deep.equal([{ ...minted.key, status: 'revoked', revokedAt: NOW }])
    })
  })

  describe("when the key is another client's", () => {
    it('returns NotFound and changes nothing', async () => {
      const { deps, apiKeys, mint } = setup()
      const mine = await mint({ party_id: PARTY, client_name: 'backend' })
      const sameParty = await mint({ party_id: PARTY, client_name: 'reporting' })
      const otherParty = await mint({ party_id: OTHER_PARTY })
      const before = apiKeys.keys()
      for (const key of [sameParty.key, otherParty.key]) {
        expect(await revokeApiKey(deps)(callerOf(mine), { apiKeyId: key.id })()).to.deep.equal(E.left(notFound('api_key')))
      }
      expect(apiKeys.keys()).to.deep.equal(before)
    })
  })

  describe('when no key has that id', () => {
    it('returns NotFound', async () => {
      const { deps, mint } = setup()
      const mine = await mint({ party_id: PARTY })
      expect(await revokeApiKey(deps)(callerOf(mine), { apiKeyId: nth(999) })()).to.deep.equal(E.left(notFound('api_key')))
    })
  })

  describe('when the id is malformed', () => {
    it('returns InvalidRequest naming apiKeyId and changes nothing', async () => {
      const { deps, apiKeys, mint } = setup()
      const mine = await mint({ party_id: PARTY })
      for (const apiKeyId of ['nope', mine.key.prefix, undefined]) {
        expect(await revokeApiKey(deps)(callerOf(mine), { apiKeyId })(), String(apiKeyId)).to.deep.equal(
          E.left(invalidRequest(apiKeyId === undefined ? 'apiKeyId is required' : 'apiKeyId must be a UUID', 'apiKeyId')),
        )
      }
      expect(apiKeys.keys()).to.deep.equal([mine.key])
    })
  })

  describe('after a rotation', () => {
    it('refuses the revoked key at the very next authentication while the new one still works', async () => {
      const { deps, mint } = setup()
      const old = await mint({ party_id: PARTY, client_name: 'backend' })
      const rotated = await mint({ party_id: PARTY, client_name: 'backend' })
      expect(await authenticateApiKey(deps)(old.plaintext)()).to.deep.equal(E.right(callerOf(old)))
      await revokeApiKey(deps)(callerOf(rotated), { apiKeyId: old.key.id })()
      expect(await authenticateApiKey(deps)(old.plaintext)()).to.deep.equal(E.left(invalidApiKey))
      expect(await authenticateApiKey(deps)(rotated.plaintext)()).to.deep.equal(E.right(callerOf(rotated)))
    })
  })
})

describe('batchedKeyUsage', () => {
  const at = (seconds: number): Date => new Date(NOW.getTime() + seconds * 1000)

  /** A `recordUsage` that records every batch it is given and fails while `failing` is set. */
  const recordingStore = () => {
    const state = { failing: false, writes: [] as Map<string, Date>[], errors: [] as unknown[] }
    const recorder = batchedKeyUsage({
      apiKeys: {
        recordUsage: (usage) => {
          if (state.failing) return TE.left(storeUnavailable('connection refused'))
          state.writes.push(new Map(usage))
          return TE.right<StoreUnavailable, void>(undefined)
        },
      },
      onFlushError: (error) => {
        state.errors.push(error)
      },
    })
    return { state, recorder }
  }

  describe('when several uses are recorded before a flush', () => {
    it('writes once, with the latest time per key', async () => {
      const { state, recorder } = recordingStore()
      recorder.record(testId('k1'), at(1))
      recorder.record(testId('k2'), at(2))
      recorder.record(testId('k1'), at(3))
      recorder.record(testId('k1'), at(2))
      expect(state.writes).to.deep.equal([])
      await recorder.flush()
      expect(state).to.deep.equal({ failing: false, writes: [new Map([['k1', at(3)], ['k2', at(2)]])], errors: [] })
    })

    it('writes nothing more on a flush with nothing new', async () => {
      const { state, recorder } = recordingStore()
      await recorder.flush()
      recorder.record(testId('k1'), at(1))
      await recorder.flush()
      await recorder.flush()
      expect(state.writes).to.deep.equal([new Map([['k1', at(1)]])])
    })
  })

  describe('when recordUsage fails', () => {
    it('calls onFlushError and keeps the batch for the next flush, merged with newer uses', async () => {
      const { state, recorder } = recordingStore()
      recorder.record(testId('k1'), at(1))
      recorder.record(testId('k2'), at(2))
      state.failing = true
      await recorder.flush()
      expect({ writes: state.writes, errors: state.errors }).to.deep.equal({ writes: [], errors: ['connection refused'] })

      state.failing = false
      recorder.record(testId('k1'), at(5))
      recorder.record(testId('k2'), at(0))
      recorder.record(testId('k3'), at(4))
      await recorder.flush()
      expect(state.writes).to.deep.equal([new Map([['k1', at(5)], ['k2', at(2)], ['k3', at(4)]])])
      expect(state.errors).to.deep.equal(['connection refused'])
    })
  })

  describe('when used by authenticateApiKey with the in-memory store', () => {
    it('sets last_used_at on flush, not before', async () => {
      const { deps, apiKeys, mint } = setup()
      const minted = await mint({ party_id: PARTY })
      const errors: unknown[] = []
      const usage = batchedKeyUsage({ apiKeys, onFlushError: (error) => void errors.push(error) })
      deps.clock.advance(1000)
      await authenticateApiKey({ ...deps, usage })(minted.plaintext)()
      deps.clock.advance(1000)
      await authenticateApiKey({ ...deps, usage })(minted.plaintext)()
      expect(apiKeys.keys()).to.deep.equal([minted.key])
      await usage.flush()
      expect(apiKeys.keys()).to.deep.equal([{ ...minted.key, lastUsedAt: at(2) }])
      expect(errors).to.deep.equal([])
    })
  })
})
