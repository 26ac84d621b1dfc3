import { randomUUID } from 'node:crypto'
import { isDeepStrictEqual } from 'node:util'
import { KNOWN_SCOPES } from '@lendgate/core'
import { testDatabases } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { OPERATIONS, type Operation } from '../src/routes/operations.js'
import { bearer, mintKey, request, type MintedKey, type Reply } from './support/client.js'
import { startCodeReceiver } from './support/code-receiver.js'
import {
  answersOf,
  buildSubject,
  callOperation,
  FIXTURE_KEYS,
  fillPath,
  fixtureKeysOf,
  leakedSecrets,
  ownerOfPath,
  pathParams,
  unknownIdFor,
  type FixtureKey,
  type IdMap,
  type Subject,
} from './support/isolation-fixtures.js'
import { startTestServer, type TestServer } from './support/test-server.js'
import { testId } from '@lendgate/core/testing'

/**
 * The isolation matrix (issue 9), generated from the route table so that a new route cannot be
 * forgotten: for every route with an identifier, another party's or another API client's key is
 * refused (403 `party_mismatch` on party paths, 404 `not_found` elsewhere: CONTRACT.md
 * "Errors"), exactly as for an id that does not exist, with none of the owner's data in the
 * answer and nothing of the owner's changed; so is a key of the owner's own client and party in
 * the other world (decision 128), both ways; a key without the route's scope gets 403
 * `insufficient_scope`; internal routes and the mint route refuse every partner key.
 */

const PARTY_MISMATCH = { error: 'party_mismatch', detail: 'The party in the path is not the party of this API key.' }
const INVALID_INTERNAL_TOKEN = {
  error: 'invalid_internal_token',
  detail: 'Internal routes require "Authorization: Bearer <INTERNAL_API_TOKEN>" or a console session; partner keys are not accepted.',
}
const INVALID_MINT_KEY = { error: 'invalid_mint_key', detail: 'X-Partner-Mint-Key is missing or wrong.' }

const PARTNER_OPERATIONS = OPERATIONS.filter((op) => op.auth === 'partner')
const WITH_IDENTIFIER = PARTNER_OPERATIONS.filter((op) => pathParams(op.path).length > 0)
/** The test helpers take test keys only (403 `test_mode_only`): their isolation is checked in the test world. */
const IN_BOTH_WORLDS = WITH_IDENTIFIER.filter((op) => op.testOnly !== true)
const TEST_HELPERS = WITH_IDENTIFIER.filter((op) => op.testOnly === true)
const INTERNAL_OPERATIONS = OPERATIONS.filter((op) => op.auth === 'internal')
const MINT_OPERATIONS = OPERATIONS.filter((op) => op.auth === 'mint')

const idsOf = (ops: readonly Operation[]): string[] => ops.map((op) => op.operationId).sort()

/** `ids` with every record not in `kept` replaced by a well-formed id that no record has. */
const unknownExcept = (ids: IdMap, kept: ReadonlySet<FixtureKey>): IdMap =>
  Object.fromEntries(FIXTURE_KEYS.map((key) => [key, kept.has(key) ? ids[key] : unknownIdFor(key)])) as IdMap

/** Fails listing every problem (a diff of a long list would be cut short). */
const expectNoProblems = (problems: readonly string[]): void => {
  if (problems.length > 0) expect.fail(`${problems.length} problem(s):\n${problems.join('\n')}`)
}

/** The answer as the matrix compares it: status and body. */
const answer = (reply: Reply) => ({ status: reply.status, body: reply.body as unknown })

/**
 * Scopes that together grant everything except `scope`: every other known scope and every
 * `<namespace>:*` of another namespace. Written here, not taken from the service's matcher.
 */
const everythingBut = (scope: string): string[] => {
  const namespaces = [...new Set(KNOWN_SCOPES.map((s) => s.split(':')[0]!))]
  return [...KNOWN_SCOPES.filter((s) => s !== scope), ...namespaces.filter((ns) => !scope.startsWith(`${ns}:`)).map((ns) => `${ns}:*`)]
}

describe('isolation matrix: the fixtures cover the route table', () => {
  it('knows a record for every path parameter of every operation', () => {
    const unknown = OPERATIONS.flatMap((op) => {
      try {
        fixtureKeysOf(op)
        return []
      } catch (error) {
        return [(error as Error).message]
      }
    })
    expect(unknown).to.deep.equal([])
  })

  it('reports a route with a parameter it does not know', () => {
    const invented: Operation = { ...OPERATIONS.find((op) => op.operationId === 'getLoanForParty')!, path: '/public/parties/:partyId/widgets/:widgetId' }
    expect(() => fixtureKeysOf(invented)).to.throw('getLoanForParty: the isolation fixtures know no record for :widgetId')
  })

  it('finds every operation with an identifier among those the matrix checks: partner and internal routes', () => {
    const unchecked = OPERATIONS.filter((op) => pathParams(op.path).length > 0 && op.auth !== 'partner' && op.auth !== 'internal')
    expect(idsOf(unchecked)).to.deep.equal([])
    expect(WITH_IDENTIFIER.length).to.be.greaterThan(30)
  })
})

for (const database of testDatabases()) {
  describe(`isolation matrix on ${database.name}`, () => {
    let server: TestServer
    let receiver: Awaited<ReturnType<typeof startCodeReceiver>>
    /** The subject whose records every request below names. */
    let a: Subject
    /** The other party, with records of its own. */
    let b: Subject
    /** B's keys holding every scope: of B's partner client (owns B's sessions) and of B's borrower party. */
    let bPartner: MintedKey
    let bBorrower: MintedKey
    /** A key of the party of A's partner client under another API client, holding every scope. */
    let aSibling: MintedKey
    /** Keys of A's own two API clients, each lacking one known scope (and holding every other). */
    const scopeless = new Map<string, { readonly partner: MintedKey; readonly borrower: MintedKey }>()
    /** Everything A could observe of its records: before the first test, then as each test left them. */
    let observedBefore: Record<string, unknown>
    /** A subject of the test world (decision 128), and keys of the other world for the clients and parties of A and of T, holding every scope. */
    let t: Subject
    let aInTest: { readonly partner: MintedKey; readonly borrower: MintedKey }
    let tInLive: { readonly partner: MintedKey; readonly borrower: MintedKey }

    const mintFor = (key: MintedKey, scopes: string[], clientName = key.client_name, environment = key.environment): Promise<MintedKey> =>
      mintKey(server.url, { party_id: key.party_id, client_name: clientName, scopes, environment })
    /** Keys of `s`'s own two clients (so of its parties too) in the other world. */
    const otherWorldKeys = async (s: Subject) => {
      const other = s.partnerKey.environment === 'live' ? 'test' : 'live'
      return { partner: await mintFor(s.partnerKey, ['*'], s.partnerKey.client_name, other), borrower: await mintFor(s.borrowerKey, ['*'], s.borrowerKey.client_name, other) }
    }

    /** A's key for what `op`'s path names: its partner client for client-owned records, its borrower's party for the rest. */
    /**
     * Every answer `s` gets from every partner GET on its records (`answersOf`), plus what no route
     * shows: its sessions' webhook registrations and how many verification codes were sent for them.
     */
    const observe = async (s: Subject): Promise<Record<string, unknown>> => {
      const seen: Record<string, unknown> = await answersOf(server, s)
      const sessions = [s.worlds.approved.sessionId, s.worlds.open.sessionId]
      for (const sessionId of sessions) {
        const endpoint = await server.deps.webhooks.findBySession(testId(sessionId))()
        seen[`webhook endpoint of ${sessionId}`] = endpoint
      }
      seen['verification codes sent'] = receiver.received.filter((r) => sessions.includes(r['session_id'] as string)).length
      return seen
    }

    const expectAUnchanged = async (): Promise<void> => {
      const [before, now] = [observedBefore, await observe(a)]
      observedBefore = now
      const changed = Object.keys({ ...before, ...now }).filter((k) => !isDeepStrictEqual(now[k], before[k]))
      expectNoProblems(changed.map((k) => `changed: ${k}`))
      expect(now).to.deep.equal(before)
    }

    /** One request, with a conformance failure (a status the OpenAPI document does not list) turned into a problem. */
    const attempt = async (problems: string[], label: string, run: () => Promise<Reply>): Promise<Reply | undefined> => {
      try {
        return await run()
      } catch (error) {
        problems.push(`${label}: ${(error as Error).message}`)
        return undefined
      }
    }

    /**
     * Calls `op` on `ids` with `key` and on the same ids with every record not in `kept`
     * replaced by one that does not exist; the two answers must be the same refusal (`expected`),
     * and must carry none of A's secrets. Problems are collected, not thrown, so that one run
     * lists every failing route. Whether both answers came (and were compared).
     */
    const expectRefused = async (
      problems: string[],
      op: Operation,
      ids: IdMap,
      kept: ReadonlySet<FixtureKey>,
      key: MintedKey,
      expected: 'party_mismatch' | 'not_found' | 'as_unknown',
      owner: Subject = a,
    ): Promise<boolean> => {
      const label = `${op.operationId} ${op.method} ${fillPath(op, ids)} with ${key.key_prefix}`
      const reply = await attempt(problems, label, () => callOperation(server, op, ids, bearer(key.api_key)))
      const stranger = await attempt(problems, `${label} (unknown ids)`, () => callOperation(server, op, unknownExcept(ids, kept), bearer(key.api_key)))
      if (reply === undefined || stranger === undefined) return false
      if (expected === 'party_mismatch') {
        if (!isDeepStrictEqual(answer(reply), { status: 403, body: PARTY_MISMATCH })) problems.push(`${label}: expected 403 party_mismatch, got ${reply.status} ${reply.text}`)
      } else if (expected === 'not_found' && (reply.status !== 404 || reply.body?.error !== 'not_found' || Object.keys(reply.body).sort().join() !== 'detail,error')) {
        problems.push(`${label}: expected 404 not_found, got ${reply.status} ${reply.text}`)
      }
      if (!isDeepStrictEqual(answer(reply), answer(stranger))) {
        problems.push(`${label}: answers differently for ids that exist (${reply.status} ${reply.text}) and ids that do not (${stranger.status} ${stranger.text})`)
      }
      const leaked = leakedSecrets(reply, owner.secrets)
      if (leaked.length > 0) problems.push(`${label}: the answer shows ${leaked.join(', ')}`)
      return true
    }

    /** `s`'s records of one operation, once per distinct path (the two sessions share every record but their own). */
    const rowsOf = (op: Operation, s: Subject = a): IdMap[] => {
      const rows = new Map<string, IdMap>()
      for (const ids of [s.worlds.approved, s.worlds.open]) rows.set(fillPath(op, ids), ids)
      return [...rows.values()]
    }

    before(async () => {
      receiver = await startCodeReceiver()
      server = await startTestServer(database, { verificationDeliveryUrl: receiver.url })
      a = await buildSubject(server, receiver, 'A', 1)
      b = await buildSubject(server, receiver, 'B', 2)
      bPartner = await mintFor(b.partnerKey, ['*'])
      bBorrower = await mintFor(b.borrowerKey, ['*'])
      aSibling = await mintFor(a.partnerKey, ['*'], 'isolation-sibling')
      t = await buildSubject(server, receiver, 'T', 3, 'test')
      aInTest = await otherWorldKeys(a)
      tInLive = await otherWorldKeys(t)
      for (const scope of KNOWN_SCOPES) {
        scopeless.set(scope, { partner: await mintFor(a.partnerKey, everythingBut(scope)), borrower: await mintFor(a.borrowerKey, everythingBut(scope)) })
      }
      observedBefore = await observe(a)
    })
    // Each test ends by comparing with what the last one left; one that failed first is not blamed on the next.
    afterEach(async function () {
      if (this.currentTest?.state === 'failed') observedBefore = await observe(a)
    })
    after(async () => {
      await server.stop()
      await receiver.close()
    })

    it("lets A's own keys read every record the matrix names (so a refusal below is isolation, not a wrong id)", () => {
      const unexpected = Object.entries(observedBefore).flatMap(([label, seen]) => {
        if (!label.includes(' /')) return []
        const { status } = seen as { status: number }
        const op = PARTNER_OPERATIONS.find((o) => label.startsWith(`${o.operationId} `))!
        // CONTRACT.md "Onboarding": getPartyBySessionId before approval → 404 not_found.
        const expected = op.operationId === 'getPartyBySessionId' && label.includes(a.worlds.open.sessionId) ? 404 : op.successStatus
        return status === expected ? [] : [`${label}: ${status}`]
      })
      expect(unexpected).to.deep.equal([])
    })

    it("refuses another party's keys on every route with an identifier (403 party_mismatch on party paths, else 404), as for ids that do not exist, showing and changing nothing", async () => {
      const problems: string[] = []
      const covered = new Set<string>()
      for (const op of IN_BOTH_WORLDS) {
        const expected = op.path.includes(':partyId') ? 'party_mismatch' : 'not_found'
        for (const ids of rowsOf(op)) {
          for (const key of [bPartner, bBorrower]) if (await expectRefused(problems, op, ids, new Set(), key, expected)) covered.add(op.operationId)
        }
      }
      expectNoProblems(problems)
      expect([...covered].sort(), 'operations with an identifier').to.deep.equal(idsOf(OPERATIONS.filter((op) => op.auth === 'partner' && op.path.includes('/:') && op.testOnly !== true)))
      await expectAUnchanged()
    })

    it("answers 404 to another party naming its own party or session with A's records below it, as for records that do not exist", async () => {
      const problems: string[] = []
      const covered = new Set<string>()
      for (const op of IN_BOTH_WORLDS) {
        const keys = fixtureKeysOf(op)
        for (const ids of rowsOf(op)) {
          // The first `n` parameters are B's own records (its session still in progress, so an
          // edit gets as far as looking up A's record), the rest A's.
          for (let n = 1; n < keys.length; n += 1) {
            const own = new Set(keys.slice(0, n))
            const mixed = Object.fromEntries(FIXTURE_KEYS.map((key) => [key, own.has(key) ? b.worlds.open[key] : ids[key]])) as IdMap
            const key = ownerOfPath(op) === 'client' ? bPartner : bBorrower
            if (await expectRefused(problems, op, mixed, own, key, 'not_found')) covered.add(op.operationId)
          }
        }
      }
      expectNoProblems(problems)
      expect([...covered].sort(), 'operations with nested identifiers').to.deep.equal(idsOf(OPERATIONS.filter((op) => op.auth === 'partner' && /\/:.*\/:/.test(op.path) && op.testOnly !== true)))
      await expectAUnchanged()
    })

    it("refuses another API client of the same party with 404 on every route naming a client's record", async () => {
      const problems: string[] = []
      const covered = new Set<string>()
      for (const op of IN_BOTH_WORLDS.filter((o) => ownerOfPath(o) === 'client')) {
        for (const ids of rowsOf(op)) if (await expectRefused(problems, op, ids, new Set(), aSibling, 'not_found')) covered.add(op.operationId)
      }
      expectNoProblems(problems)
      // Every session route with an identifier, key revocation, and every webhook endpoint route.
      expect([...covered].sort(), 'client-owned operations').to.deep.equal(
        idsOf(OPERATIONS.filter((op) => op.auth === 'partner' && op.testOnly !== true && (op.path.includes(':sessionId') || op.path.includes(':apiKeyId') || op.path.includes(':endpointId')))),
      )
      await expectAUnchanged()
    })

    it("answers keys of the test world for A's own client and party, and keys of the live world for T's, on every route with an identifier as for records that do not exist (the party being the key's own), showing and changing nothing", async () => {
      const problems: string[] = []
      const tBefore = await observe(t)
      for (const [owner, keys] of [[a, aInTest], [t, tInLive]] as const) {
        const covered = new Set<string>()
        for (const op of WITH_IDENTIFIER.filter((o) => ownerOfPath(o) !== 'none')) {
          const key = ownerOfPath(op) === 'client' ? keys.partner : keys.borrower
          // A path naming only the party lists the key's own party's records: none, in that world;
          // a test helper refuses a live key whatever the ids (403 test_mode_only).
          const expected = (pathParams(op.path).length === 1 && op.path.includes(':partyId')) || (op.testOnly === true && key.environment === 'live') ? 'as_unknown' : 'not_found'
          for (const ids of rowsOf(op, owner)) if (await expectRefused(problems, op, ids, new Set(['partyId']), key, expected, owner)) covered.add(op.operationId)
        }
        expect([...covered].sort(), `operations with an identifier, ${owner.label}`).to.deep.equal(idsOf(WITH_IDENTIFIER.filter((o) => ownerOfPath(o) !== 'none')))
      }
      expectNoProblems(problems)
      await expectAUnchanged()
      expect(await observe(t)).to.deep.equal(tBefore)
    })

    it("shows none of A's records in the test world, nor T's in the live world, on any route without an identifier, and never replays the other world's answers", async () => {
      const problems: string[] = []
      for (const [owner, keys] of [[a, aInTest], [t, tInLive]] as const) {
        for (const op of PARTNER_OPERATIONS.filter((o) => o.method === 'GET' && pathParams(o.path).length === 0)) {
          for (const key of [keys.partner, keys.borrower]) {
            const reply = await attempt(problems, `${op.operationId} with ${key.key_prefix}`, () => callOperation(server, op, owner.worlds.approved, bearer(key.api_key)))
            if (reply === undefined) continue
            if (reply.status !== op.successStatus) problems.push(`${op.operationId} with ${key.key_prefix}: ${reply.status} ${reply.text}`)
            const leaked = leakedSecrets(reply, owner.secrets.filter((secret) => secret !== owner.partnerKey.client_id && secret !== owner.borrowerKey.client_id))
            if (leaked.length > 0) problems.push(`${op.operationId} with ${key.key_prefix}: the answer shows ${leaked.join(', ')}`)
          }
        }
        for (const sent of owner.idempotent) {
          const key = sent.path.startsWith('/public/parties/') ? keys.borrower : keys.partner
          const label = `${sent.method} ${sent.path} with Idempotency-Key ${sent.key} and ${key.key_prefix}`
          const reply = await attempt(problems, label, () => request(server.url, sent.path, { method: sent.method, headers: { ...bearer(key.api_key), 'Idempotency-Key': sent.key }, json: sent.json }))
          if (reply === undefined) continue
          if (reply.status !== 404 || reply.headers.get('idempotent-replayed') !== null) problems.push(`${label}: expected a fresh 404, got ${reply.status} ${reply.text}`)
        }
      }
      expectNoProblems(problems)
      await expectAUnchanged()
    })

    it('says which world each key acts on: the keys of the other world list only their own world\'s keys', async () => {
      const listed = await request(server.url, '/public/partner/api-keys', { headers: bearer(aInTest.partner.api_key) })
      expect(listed.status, listed.text).to.equal(200)
      expect((listed.body.data as { api_key_id: string }[]).map((k) => k.api_key_id)).to.deep.equal([aInTest.partner.api_key_id])
      const revoke = await request(server.url, `/public/partner/api-keys/${a.worlds.approved.apiKeyId}`, { method: 'DELETE', headers: bearer(aInTest.partner.api_key) })
      expect(revoke.status, revoke.text).to.equal(404)
      await expectAUnchanged()
    })

    it("refuses another party's and another client's test keys on every test helper (403 party_mismatch on party paths, else 404) as for records that do not exist, and keys without the scope, changing nothing of T's", async () => {
      const problems: string[] = []
      const covered = new Set<string>()
      const tSibling = await mintFor(t.partnerKey, ['*'], 'isolation-sibling')
      const unscoped = { partner: await mintFor(t.partnerKey, everythingBut('partner:api')), borrower: await mintFor(t.borrowerKey, everythingBut('partner:api')) }
      const tBefore = await observe(t)
      for (const op of TEST_HELPERS) {
        const expected = op.path.includes(':partyId') ? 'party_mismatch' : 'not_found'
        for (const ids of rowsOf(op, t)) {
          for (const key of [aInTest.partner, aInTest.borrower]) if (await expectRefused(problems, op, ids, new Set(), key, expected, t)) covered.add(op.operationId)
          if (ownerOfPath(op) === 'client') await expectRefused(problems, op, ids, new Set(), tSibling, 'not_found', t)
          const key = ownerOfPath(op) === 'client' ? unscoped.partner : unscoped.borrower
          const reply = await attempt(problems, `${op.operationId} without partner:api`, () => callOperation(server, op, ids, bearer(key.api_key)))
          if (reply !== undefined && reply.body?.error !== 'insufficient_scope') problems.push(`${op.operationId} without partner:api: ${reply.status} ${reply.text}`)
        }
      }
      expectNoProblems(problems)
      expect([...covered].sort(), 'test helpers').to.deep.equal(idsOf(TEST_HELPERS))
      const tAfter = await observe(t)
      expectNoProblems(Object.keys({ ...tBefore, ...tAfter }).filter((k) => !isDeepStrictEqual(tAfter[k], tBefore[k])).map((k) => `changed: ${k}: ${JSON.stringify(tBefore[k])} → ${JSON.stringify(tAfter[k])}`))
      await expectAUnchanged()
    })

    it("refuses A's records named in a request body by another party, as records that do not exist", async () => {
      const apply = (partyId: string) =>
        request(server.url, '/public/applications', {
          method: 'POST',
          headers: { ...bearer(bBorrower.api_key), 'Idempotency-Key': `isolation-${randomUUID()}` },
          json: { product_id: a.worlds.approved.productId, amount: 1_200_000, currency: 'USD', term_months: 12, party_id: partyId },
        })
      const application = await apply(a.borrower.partyId)
      expect(answer(application)).to.deep.equal({ status: 403, body: PARTY_MISMATCH })
      expect(answer(await apply(randomUUID()))).to.deep.equal(answer(application))

      const pay = (paymentMethodId: string) =>
        request(server.url, b.loan.paths.payments, {
          method: 'POST',
          headers: { ...bearer(bBorrower.api_key), 'Idempotency-Key': `isolation-${randomUUID()}` },
          json: { amount: 10_000, currency: 'USD', payment_method_id: paymentMethodId },
        })
      const payment = await pay(a.worlds.approved.paymentMethodId)
      const unknown = randomUUID()
      expect(answer(payment)).to.deep.equal({
        status: 400,
        body: { error: 'invalid_request', detail: `payment_method_id ${a.worlds.approved.paymentMethodId} is not a payment method of this loan.`, param: 'payment_method_id' },
      })
      expect(JSON.stringify(answer(await pay(unknown))).replace(unknown, '<id>')).to.equal(JSON.stringify(answer(payment)).replace(a.worlds.approved.paymentMethodId, '<id>'))
      // The id B sent comes back in `detail`; nothing else of A's does.
      expect(leakedSecrets(payment, a.secrets.filter((s) => s !== a.worlds.approved.paymentMethodId))).to.deep.equal([])
      await expectAUnchanged()
    })

    it("never replays A's answers to another client, not even for A's very request and Idempotency-Key", async () => {
      const problems: string[] = []
      for (const sent of a.idempotent) {
        const expected = sent.path.startsWith('/public/parties/') ? { status: 403, body: PARTY_MISMATCH } : undefined
        for (const key of [bPartner, bBorrower, aSibling]) {
          const label = `${sent.method} ${sent.path} with Idempotency-Key ${sent.key} and ${key.key_prefix}`
          const reply = await attempt(problems, label, () =>
            request(server.url, sent.path, { method: sent.method, headers: { ...bearer(key.api_key), 'Idempotency-Key': sent.key }, json: sent.json }),
          )
          if (reply === undefined) continue
          if (expected === undefined ? reply.status !== 404 || reply.body?.error !== 'not_found' : !isDeepStrictEqual(answer(reply), expected)) {
            problems.push(`${label}: expected ${expected?.status ?? 404}, got ${reply.status} ${reply.text}`)
          }
          if (reply.headers.get('idempotent-replayed') !== null) problems.push(`${label}: answered as a replay`)
          const leaked = leakedSecrets(reply, a.secrets)
          if (leaked.length > 0) problems.push(`${label}: the answer shows ${leaked.join(', ')}`)
        }
      }
      expectNoProblems(problems)

      // To a client that never used them, A's keys are new keys (not 422 idempotency_key_reused).
      const [document, , payment] = a.idempotent
      const fresh = async (owner: MintedKey, path: string, json: unknown, idempotencyKey: string): Promise<void> => {
        const key = await mintFor(owner, ['*'], 'isolation-fresh')
        const reply = await request(server.url, path, { method: 'POST', headers: { ...bearer(key.api_key), 'Idempotency-Key': idempotencyKey }, json })
        expect(reply.status, `${path}: ${reply.text}`).to.equal(201)
        expect(reply.headers.get('idempotent-replayed')).to.equal(null)
        expect(leakedSecrets(reply, a.secrets)).to.deep.equal([])
      }
      await fresh(b.partnerKey, '/public/onboarding-sessions', { country_of_incorporation: 'US', locale: 'en-US' }, document!.key)
      await fresh(b.borrowerKey, b.loan.paths.payments, { amount: 10_000, currency: 'USD', payment_method_id: b.worlds.open.paymentMethodId }, payment!.key)
      await expectAUnchanged()
    })

    it("refuses a key of A's own client without the route's scope with 403 insufficient_scope on every partner route", async () => {
      const problems: string[] = []
      const covered = new Set<string>()
      for (const op of PARTNER_OPERATIONS.filter((o) => o.testOnly !== true)) {
        const scope = op.scope ?? 'partner:api'
        const keys = scopeless.get(scope)
        if (keys === undefined) {
          problems.push(`${op.operationId}: no key lacks ${scope}`)
          continue
        }
        const key = ownerOfPath(op) === 'client' ? keys.partner : keys.borrower
        // The session still in progress: a request that got through could change it.
        const label = `${op.operationId} ${op.method} ${fillPath(op, a.worlds.open)} with scopes ${key.scopes.join(' ')}`
        const reply = await attempt(problems, label, () => callOperation(server, op, a.worlds.open, bearer(key.api_key)))
        if (reply === undefined) continue
        covered.add(op.operationId)
        const expected = { status: 403, body: { error: 'insufficient_scope', detail: `This API key lacks the scope ${scope}.`, scope } }
        if (!isDeepStrictEqual(answer(reply), expected)) problems.push(`${label}: expected 403 insufficient_scope, got ${reply.status} ${reply.text}`)
      }
      expectNoProblems(problems)
      expect([...covered].sort()).to.deep.equal(idsOf(PARTNER_OPERATIONS.filter((o) => o.testOnly !== true)))
      await expectAUnchanged()
    })

    it('refuses every partner key, whatever its scopes and however it is sent, on every internal route with 401 invalid_internal_token', async () => {
      const problems: string[] = []
      const covered = new Set<string>()
      const keys = [a.partnerKey, a.borrowerKey, bPartner, bBorrower]
      for (const op of INTERNAL_OPERATIONS) {
        for (const key of keys) {
          for (const headers of [bearer(key.api_key), { 'X-Api-Key': key.api_key }]) {
            const label = `${op.operationId} ${op.method} ${fillPath(op, a.worlds.approved)} with ${key.key_prefix} in ${Object.keys(headers)[0]}`
            const reply = await attempt(problems, label, () => callOperation(server, op, a.worlds.approved, headers))
            if (reply === undefined) continue
            covered.add(op.operationId)
            if (!isDeepStrictEqual(answer(reply), { status: 401, body: INVALID_INTERNAL_TOKEN }) || reply.headers.get('www-authenticate') !== 'Bearer') {
              problems.push(`${label}: expected 401 invalid_internal_token, got ${reply.status} ${reply.text}`)
            }
          }
        }
      }
      expectNoProblems(problems)
      expect([...covered].sort()).to.deep.equal(idsOf(INTERNAL_OPERATIONS))
      await expectAUnchanged()
    })

    it('refuses partner keys on the mint route with 401 invalid_mint_key, minting nothing', async () => {
      expect(idsOf(MINT_OPERATIONS)).to.deep.equal(['mintApiKey'])
      const [mint] = MINT_OPERATIONS
      for (const key of [a.borrowerKey, bBorrower]) {
        for (const headers of [bearer(key.api_key), { 'X-Api-Key': key.api_key }, { 'X-Partner-Mint-Key': key.api_key }]) {
          // A's own client: a key minted here would show in A's key listing.
          const reply = await request(server.url, mint!.path, {
            method: mint!.method,
            headers,
            json: { party_id: a.borrower.partyId, client_name: a.borrowerKey.client_name, scopes: ['*'] },
          })
          expect(answer(reply), `${key.key_prefix} in ${Object.keys(headers)[0]}`).to.deep.equal({ status: 401, body: INVALID_MINT_KEY })
        }
      }
      await expectAUnchanged()
    })
  })
}
