import { Writable } from 'node:stream'
import { randomUUID } from 'node:crypto'
import { storeUnavailable } from '@lendgate/core'
import { type TestClock, testClock, testId } from '@lendgate/core/testing'
import { testDatabases, type TestDatabase } from '@lendgate/adapters/testing'
import { nodeApiKeyMaterial, type OpenDatabase } from '@lendgate/adapters'
import { expect } from 'chai'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { createApp } from '../src/app.js'
import { compose } from '../src/compose.js'
import type { Config, RateLimitSettings } from '../src/config.js'
import { createLogger } from '../src/logger.js'
import { listen } from '../src/server.js'
import { bearer, mintKey, request, type Reply } from './support/client.js'
import { INTERNAL_TOKEN, MINT_SECRET, startInMemoryServer, testConfig } from './support/test-server.js'

/**
 * Rate limiting (issue 9) over HTTP, on each test database: the RateLimit headers, 429
 * `rate_limited` with Retry-After, windows that reset (moved by the limiter's clock, no
 * sleeping), separate buckets per key, harder limits for verification and minting, and one
 * limit shared by two instances on one database.
 */

/** Each test's windows lie on a day of their own, far from the real clock, so no other suite's counts meet them. */
let day = 0
const isolatedClock = (): TestClock => testClock(new Date(Date.UTC(2035, 0, 1) + (day += 1) * 86_400_000))

type Db = OpenDatabase['db']

type Instance = {
  readonly url: string
  readonly db: Db
  readonly sync: () => Promise<void>
  readonly logLines: () => readonly Record<string, unknown>[]
  readonly stop: () => Promise<void>
}

/** The real composition on `database`, its rate-limit windows on `clock`; syncs only when told unless `syncMs` says otherwise. */
const startInstance = async (database: TestDatabase, clock: TestClock, limits: Partial<RateLimitSettings>, overrides: Partial<Config> = {}): Promise<Instance> => {
  const config = testConfig({
    rateLimits: { requests: 1000, windowSeconds: 60, verificationRequests: 1000, mintRequests: 1000, keyLookups: 1000, keylessRequests: 1000, webhookRetries: 1000, syncMs: 60_000, instances: 1, ...limits },
    ...overrides,
  })
  const chunks: string[] = []
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString('utf8'))
      done()
    },
  })
  const logger = createLogger('lendgate-api', config.logLevel, stream)
  const composition = await compose(config, logger, await database.open(), { rateLimitClock: clock })
  await composition.start()
  const server = await listen(createApp(composition.deps, config, logger).handle, { host: '127.0.0.1', port: 0, limits: config.connections }, composition.close)
  return {
    url: server.url,
    db: composition.database.db,
    sync: composition.syncRateLimits,
    logLines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    stop: () => server.stop(1_000),
  }
}

/** A structured-field list such as `"default";r=4;t=37, "verification";r=1;t=37`, by item name. */
const items = (header: string | null): Record<string, Record<string, number>> =>
  Object.fromEntries(
    (header ?? '')
      .split(',')
      .filter((item) => item.trim() !== '')
      .map((item) => {
        const [name, ...params] = item.trim().split(';')
        return [JSON.parse(name!) as string, Object.fromEntries(params.map((p) => [p.split('=')[0], Number(p.split('=')[1])]))]
      }),
  )

const remaining = (reply: Reply, policy = 'default') => items(reply.headers.get('RateLimit'))[policy]

const expectRateLimited = (reply: Reply, policy: string): number => {
  expect(reply.status, reply.text).to.equal(429)
  const state = remaining(reply, policy)
  expect(state?.['r']).to.equal(0)
  const t = state?.['t'] as number
  expect(t).to.be.within(1, 60)
  expect(reply.headers.get('Retry-After')).to.equal(String(t))
  expect(reply.body).to.deep.equal({ error: 'rate_limited', detail: reply.body.detail, policy, retry_after_seconds: t })
  expect(reply.body.detail).to.be.a('string').and.match(/retry in \d+ s/)
  return t
}

const sessionsOf = async (db: Db, clientId: string): Promise<number> =>
  (await db.selectFrom('onboarding_sessions').select('id').where('client_id', '=', testId(clientId)).execute()).length
const clientsOf = async (db: Db, partyId: string): Promise<number> => (await db.selectFrom('api_clients').select('id').where('party_id', '=', testId(partyId)).execute()).length

const SESSION = { country_of_incorporation: 'US', locale: 'en-US' }

/** A mint attempt with a wrong secret, its client address written by a proxy. */
const guess = (url: string, forwardedFor: string) =>
  request(url, '/public/partner/api-keys', {
    method: 'POST',
    headers: { 'X-Partner-Mint-Key': 'not-the-mint-secret-at-all', 'X-Forwarded-For': forwardedFor },
    json: { party_id: randomUUID() },
  })
const mint = (url: string, secret: string, partyId: string) =>
  request(url, '/public/partner/api-keys', { method: 'POST', headers: { 'X-Partner-Mint-Key': secret }, json: { party_id: partyId } })

for (const database of testDatabases()) {
  describe(`rate limiting on ${database.name}`, () => {
    const running: Instance[] = []
    const start = async (clock: TestClock, limits: Partial<RateLimitSettings>, overrides: Partial<Config> = {}) => {
      const instance = await startInstance(database, clock, limits, overrides)
      running.push(instance)
      return instance
    }
    afterEach(async () => {
      await Promise.all(running.splice(0).map((i) => i.stop()))
    })

    it('answers every partner request with its policy and what remains, counted per key', async () => {
      const api = await start(isolatedClock(), { requests: 5 })
      const key = await mintKey(api.url)
      const first = await request(api.url, '/public/partner/api-keys', { headers: bearer(key.api_key) })
      expect(first.status).to.equal(200)
      expect(first.headers.get('RateLimit-Policy')).to.equal('"default";q=5;w=60')
      expect(remaining(first)?.['r']).to.equal(4)
      expect(remaining(first)?.['t']).to.be.within(1, 60)
      // Refusals after authentication count too, and carry the headers.
      const missing = await request(api.url, `/public/onboarding-sessions/${randomUUID()}`, { headers: bearer(key.api_key) })
      expect(missing.status).to.equal(404)
      expect(remaining(missing)).to.deep.equal({ r: 3, t: remaining(first)?.['t'] })
      const other = await mintKey(api.url)
      const fresh = await request(api.url, '/public/partner/api-keys', { headers: bearer(other.api_key) })
      expect(remaining(fresh)?.['r']).to.equal(4)
      // Internal routes count failed authentications only (their own policy), not requests;
      // requests with no credential worth checking (none, or a key refused by its format or
      // checksum) count against the address's keyless budget.
      const internal = await request(api.url, '/internal/onboarding-sessions', { headers: { Authorization: `Bearer ${INTERNAL_TOKEN}` } })
      expect(internal.status).to.equal(200)
      expect(internal.headers.get('RateLimit-Policy')).to.equal('"internal";q=1000;w=60')
      for (const headers of [{ 'X-Api-Key': 'not-a-key' }, {}] as Record<string, string>[]) {
        const refused = await request(api.url, '/public/partner/api-keys', { headers })
        expect(refused.status).to.equal(401)
        expect(refused.headers.get('RateLimit-Policy'), JSON.stringify(headers)).to.equal('"keyless";q=1000;w=60')
      }
    })

    it('refuses the request past the limit with 429 rate_limited and Retry-After, runs nothing, and admits again when the window resets', async () => {
      const clock = isolatedClock()
      const api = await start(clock, { requests: 3 })
      const key = await mintKey(api.url)
      const create = (headers: Record<string, string> = {}) =>
        request(api.url, '/public/onboarding-sessions', { method: 'POST', headers: { ...bearer(key.api_key), ...headers }, json: SESSION })
      for (const left of [2, 1, 0]) {
        const reply = await create()
        expect(reply.status, reply.text).to.equal(201)
        expect(remaining(reply)?.['r']).to.equal(left)
      }
      const refused = await create({ 'Idempotency-Key': 'past-the-limit' })
      const t = expectRateLimited(refused, 'default')
      expect(await sessionsOf(api.db, key.client_id)).to.equal(3)

      clock.advance(t * 1000)
      // The refusal was not kept for replay: the same Idempotency-Key now runs the request.
      const admitted = await create({ 'Idempotency-Key': 'past-the-limit' })
      expect(admitted.status, admitted.text).to.equal(201)
      expect(admitted.headers.get('Idempotent-Replayed')).to.equal(null)
      expect(remaining(admitted)).to.deep.equal({ r: 2, t: 60 })
      expect(await sessionsOf(api.db, key.client_id)).to.equal(4)
    })

    it('limits the verification routes harder, per key, on top of the general limit', async () => {
      const clock = isolatedClock()
      const api = await start(clock, { requests: 100, verificationRequests: 2 })
      const key = await mintKey(api.url)
      const session = await request(api.url, '/public/onboarding-sessions', { method: 'POST', headers: bearer(key.api_key), json: SESSION })
      const S = `/public/onboarding-sessions/${session.body.session_id as string}`
      const submitted = await request(api.url, `${S}/contact/phone`, { method: 'POST', headers: bearer(key.api_key), json: { phone: '+14155550123' } })
      expect(submitted.status, submitted.text).to.equal(201)
      expect(submitted.headers.get('RateLimit-Policy')).to.equal('"default";q=100;w=60, "verification";q=2;w=60')
      expect(remaining(submitted, 'default')?.['r']).to.equal(98)
      expect(remaining(submitted, 'verification')?.['r']).to.equal(1)

      const sent = api.logLines().find((l) => l['session_id'] === session.body.session_id && typeof l['verification_code'] === 'string')
      const code = sent?.['verification_code'] as string
      const wrong = code.replace(/^./, (d) => String((Number(d) + 1) % 10))
      const verify = (c: string) => request(api.url, `${S}/contact/phone/verify`, { method: 'POST', headers: bearer(key.api_key), json: { code: c } })
      expect((await verify(wrong)).body).to.include({ error: 'invalid_code' })
      const t = expectRateLimited(await verify(code), 'verification')

      const read = await request(api.url, S, { headers: bearer(key.api_key) })
      expect(read.status).to.equal(200)
      expect(read.headers.get('RateLimit-Policy')).to.equal('"default";q=100;w=60')
      expect(read.body.current_step).to.equal('PHONE_VERIFICATION')

      // The refused attempt used nothing: after the reset the right code still verifies.
      clock.advance(t * 1000)
      const verified = await verify(code)
      expect(verified.status, verified.text).to.equal(200)
      expect(remaining(verified, 'verification')?.['r']).to.equal(1)
    })

    it('limits failed mint attempts per client address; the right secret never counts, until the failures are used up (issue 52)', async () => {
      const clock = isolatedClock()
      const api = await start(clock, { mintRequests: 2 })
      // A partner backend minting key after key: never refused, never counted.
      for (let i = 0; i < 30; i++) {
        const minted = await mint(api.url, MINT_SECRET, randomUUID())
        expect(minted.status, minted.text).to.equal(201)
        expect(minted.headers.get('RateLimit-Policy')).to.equal('"mint";q=2;w=60')
        expect(remaining(minted, 'mint')?.['r']).to.equal(2)
      }
      const wrongSecret = await mint(api.url, 'not-the-mint-secret-at-all', randomUUID())
      expect(wrongSecret.status).to.equal(401)
      expect(remaining(wrongSecret, 'mint')?.['r']).to.equal(1)
      // A right secret between wrong ones uses up no failed attempt.
      expect(remaining(await mint(api.url, MINT_SECRET, randomUUID()), 'mint')?.['r']).to.equal(1)
      const secondWrong = await mint(api.url, '', randomUUID())
      expect(secondWrong.status).to.equal(401)
      expect(remaining(secondWrong, 'mint')?.['r']).to.equal(0)

      // The failures used up, every attempt is refused until the window ends, the right secret
      // included: otherwise a right guess among many would still be let through.
      const party = randomUUID()
      const t = expectRateLimited(await mint(api.url, MINT_SECRET, party), 'mint')
      expect(await clientsOf(api.db, party)).to.equal(0)
      expectRateLimited(await mint(api.url, 'another-wrong-secret-guess', party), 'mint')

      clock.advance(t * 1000)
      expect((await mint(api.url, MINT_SECRET, party)).status).to.equal(201)
      expect(await clientsOf(api.db, party)).to.equal(1)
    })

    it('checks exactly the limit of wrong secrets sent at once, and mints every right one of a burst', async () => {
      const api = await start(isolatedClock(), { mintRequests: 5 })
      const burst = await Promise.all(Array.from({ length: 30 }, () => mint(api.url, MINT_SECRET, randomUUID())))
      expect(burst.map((r) => r.status)).to.deep.equal(Array.from({ length: 30 }, () => 201))
      const guesses = await Promise.all(Array.from({ length: 20 }, () => mint(api.url, 'not-the-mint-secret-at-all', randomUUID())))
      const statuses = guesses.map((r) => r.status).sort()
      expect(statuses).to.deep.equal([...Array.from({ length: 5 }, () => 401), ...Array.from({ length: 15 }, () => 429)])
      expectRateLimited(await mint(api.url, MINT_SECRET, randomUUID()), 'mint')
    })

    it('limits failed internal-token authentications per client address, /metrics included, in a count of their own; the right token never counts (decision 112)', async () => {
      const clock = isolatedClock()
      const api = await start(clock, { mintRequests: 2 })
      const internal = (headers: Record<string, string>, path = '/internal/loan-products?limit=1') => request(api.url, path, { headers })
      for (let i = 0; i < 10; i++) {
        const listed = await internal(bearer(INTERNAL_TOKEN))
        expect(listed.status, listed.text).to.equal(200)
        expect(listed.headers.get('RateLimit-Policy')).to.equal('"internal";q=2;w=60')
        expect(remaining(listed, 'internal')?.['r']).to.equal(2)
      }
      const wrong = await internal(bearer(`${INTERNAL_TOKEN}x`))
      expect([wrong.status, wrong.body.error, remaining(wrong, 'internal')?.['r']]).to.deep.equal([401, 'invalid_internal_token', 1])
      const metrics = await internal(bearer(INTERNAL_TOKEN), '/metrics')
      expect([metrics.status, remaining(metrics, 'internal')?.['r']]).to.deep.equal([200, 1])
      const missing = await internal({})
      expect([missing.status, remaining(missing, 'internal')?.['r']]).to.deep.equal([401, 0])

      // Used up: every attempt is refused without comparing the token, the right one included, on
      // /metrics too; the mint secret keeps its own count.
      const t = expectRateLimited(await internal(bearer(INTERNAL_TOKEN)), 'internal')
      expectRateLimited(await internal(bearer(INTERNAL_TOKEN), '/metrics'), 'internal')
      expectRateLimited(await internal(bearer('another-wrong-token-guess')), 'internal')
      expect((await mint(api.url, MINT_SECRET, randomUUID())).status).to.equal(201)

      clock.advance(t * 1000)
      expect((await internal(bearer(INTERNAL_TOKEN))).status).to.equal(200)
    })

    it('compares exactly the limit of wrong internal tokens sent at once, and admits every right one of a burst', async () => {
      const api = await start(isolatedClock(), { mintRequests: 5 })
      const internal = (token: string) => request(api.url, '/internal/loan-products?limit=1', { headers: bearer(token) })
      const burst = await Promise.all(Array.from({ length: 30 }, () => internal(INTERNAL_TOKEN)))
      expect(burst.map((r) => r.status)).to.deep.equal(Array.from({ length: 30 }, () => 200))
      const guesses = await Promise.all(Array.from({ length: 20 }, (_, i) => internal(`not-the-internal-token-${i}`)))
      const statuses = guesses.map((r) => r.status).sort()
      expect(statuses).to.deep.equal([...Array.from({ length: 5 }, () => 401), ...Array.from({ length: 15 }, () => 429)])
      expectRateLimited(await internal(INTERNAL_TOKEN), 'internal')
    })

    it('takes the client address from X-Forwarded-For only behind trusted proxies (TRUSTED_PROXY_HOPS)', async () => {
      // No trusted proxy (the default): the header is ignored, one socket address is one bucket.
      const direct = await start(isolatedClock(), { mintRequests: 1 })
      expect((await guess(direct.url, '198.51.100.1')).status).to.equal(401)
      expectRateLimited(await guess(direct.url, '198.51.100.2'), 'mint')

      // One trusted proxy: the address it appended is the client's bucket.
      const proxied = await start(isolatedClock(), { mintRequests: 1 }, { trustedProxyHops: 1 })
      expect((await guess(proxied.url, '198.51.100.1')).status).to.equal(401)
      expectRateLimited(await guess(proxied.url, '198.51.100.1'), 'mint')
      expect((await guess(proxied.url, '198.51.100.2')).status).to.equal(401)
      // An address the client wrote in front of the proxy's entry does not give it a new bucket.
      expectRateLimited(await guess(proxied.url, '203.0.113.9, 198.51.100.2'), 'mint')

      // Two trusted proxies: the client is the second entry from the right.
      const twice = await start(isolatedClock(), { mintRequests: 1 }, { trustedProxyHops: 2 })
      expect((await guess(twice.url, '203.0.113.9, 198.51.100.3, 10.0.0.1')).status).to.equal(401)
      expectRateLimited(await guess(twice.url, '198.51.100.3, 10.0.0.2'), 'mint')
      expect((await guess(twice.url, '198.51.100.4, 10.0.0.1')).status).to.equal(401)
    })

    it('counts an IPv6 client by its /64 and an IPv4-mapped address as its IPv4 form', async () => {
      const api = await start(isolatedClock(), { mintRequests: 1 }, { trustedProxyHops: 1 })
      expect((await guess(api.url, '2001:db8:1:2::1')).status).to.equal(401)
      // Another address of the same /64 (written out in full, in capitals) shares its allowance…
      expectRateLimited(await guess(api.url, '2001:0DB8:0001:0002:FFFF:0:0:9'), 'mint')
      // …the next /64 has its own.
      expect((await guess(api.url, '2001:db8:1:3::1')).status).to.equal(401)
      expect((await guess(api.url, '::ffff:198.51.100.20')).status).to.equal(401)
      expectRateLimited(await guess(api.url, '198.51.100.20'), 'mint')
    })

    it('looks up keys it does not hold only within the client address\'s key-lookup limit, so forged keys cannot load the store', async () => {
      const clock = isolatedClock()
      const api = await start(clock, { keyLookups: 2 }, { trustedProxyHops: 1 })
      const from = (address: string, key: string) =>
        request(api.url, '/public/partner/api-keys', { headers: { ...bearer(key), 'X-Forwarded-For': address } })
      const held = await mintKey(api.url)
      const unheld = await mintKey(api.url)
      // Well-formed, with a valid checksum, never stored: each costs a lookup.
      const forged = () => nodeApiKeyMaterial().generate('live').plaintext
      const malformed = `${forged().slice(0, -1)}!`
      const badChecksum = `${forged().slice(0, -6)}AAAAAA`

      expect((await from('198.51.100.7', held.api_key)).status).to.equal(200)
      // Keys refused before any lookup (the format, the checksum) use none of the allowance.
      for (const key of [malformed, badChecksum, malformed, badChecksum]) expect((await from('198.51.100.7', key)).status).to.equal(401)
      const refused = await from('198.51.100.7', forged())
      expect(refused.status).to.equal(401)
      expect(refused.headers.get('RateLimit')).to.equal(null)

      // The allowance is used up: a key the cache does not hold is refused without its lookup
      // (this one is valid, so a lookup would have admitted it)…
      expectRateLimited(await from('198.51.100.7', unheld.api_key), 'key_lookups')
      expectRateLimited(await from('198.51.100.7', forged()), 'key_lookups')
      // …a key the cache holds still passes, and other addresses have their own allowance.
      expect((await from('198.51.100.7', held.api_key)).status).to.equal(200)
      expect((await from('198.51.100.8', unheld.api_key)).status).to.equal(200)
      const t = expectRateLimited(await from('198.51.100.7', forged()), 'key_lookups')
      clock.advance(t * 1000)
      expect((await from('198.51.100.7', forged())).status).to.equal(401)
    })

    it('shares the limit between two instances on one database once they have synced', async () => {
      const clock = isolatedClock()
      const a = await start(clock, { requests: 4 })
      const b = await start(clock, { requests: 4 })
      const key = await mintKey(a.url)
      const list = (url: string) => request(url, '/public/partner/api-keys', { headers: bearer(key.api_key) })
      for (let i = 0; i < 4; i += 1) expect((await list(a.url)).status).to.equal(200)
      expectRateLimited(await list(a.url), 'default')
      await a.sync()
      // b had not seen this key in this window: it admits until its first sync (the documented bound)…
      expect((await list(b.url)).status).to.equal(200)
      await b.sync()
      // …then knows the total of both instances and refuses, where alone it would admit three more.
      expectRateLimited(await list(b.url), 'default')
    })

    it('bounds a burst of one key over three instances by their shares, each counting the others at its syncs (decision 112)', async () => {
      const clock = isolatedClock()
      // Without RATE_LIMIT_INSTANCES: each counts those that synced before it at its start, and
      // the fleet at its next sync (the timer's, a sync period on).
      const apis = [await start(clock, { requests: 9 }), await start(clock, { requests: 9 }), await start(clock, { requests: 9 })]
      for (const api of apis) await api.sync()
      const key = await mintKey(apis[0]!.url)
      const burst = async (): Promise<number> => {
        const replies = await Promise.all(apis.flatMap((api) => Array.from({ length: 10 }, () => request(api.url, '/public/partner/api-keys', { headers: bearer(key.api_key) }))))
        for (const reply of replies.filter((r) => r.status !== 200)) expectRateLimited(reply, 'default')
        return replies.filter((r) => r.status === 200).length
      }
      // Before any sync, each instance admits its third of the limit (alone, each would admit 9).
      const first = await burst()
      expect(first).to.equal(9)
      for (const api of apis) await api.sync()
      // Instances that learned less at their sync take a share of what it left: within the bound.
      const second = await burst()
      expect(first + second).to.be.at.most(9 + 2 * 3)
      for (const api of apis) await api.sync()
      expect(await burst()).to.equal(0)
    })

    it('pushes the counts to the database on its own every RATE_LIMIT_SYNC_MS', async () => {
      const clock = isolatedClock()
      const api = await start(clock, { syncMs: 20 })
      const key = await mintKey(api.url)
      for (let i = 0; i < 2; i += 1) await request(api.url, '/public/partner/api-keys', { headers: bearer(key.api_key) })
      const counted = async () =>
        (await api.db.selectFrom('rate_limits').select('count').where('bucket', '=', `key:${key.api_key_id}`).executeTakeFirst())?.count
      const deadline = Date.now() + 5_000
      while ((await counted()) !== 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
      expect(await counted()).to.equal(2)
    })
  })
}

describe('rate limiting when its store is down', () => {
  it('admits the request (and a key lookup) without the limit, with a logged warning, instead of failing it', async () => {
    const down = { take: () => TE.left(storeUnavailable(new Error('connection refused'))) }
    const attemptsDown = { attempt: () => TE.left(storeUnavailable(new Error('connection refused'))) }
    const server = await startInMemoryServer(() => ({ rateLimiter: down, exactRateLimiter: down, attemptLimiter: attemptsDown }))
    try {
      const minted = await mint(server.url, MINT_SECRET, randomUUID())
      expect(minted.status).to.equal(201)
      expect(minted.headers.get('RateLimit')).to.equal(null)
      const listed = await request(server.url, '/public/partner/api-keys', { headers: bearer(minted.body.api_key as string) })
      expect(listed.status).to.equal(200)
      expect(listed.headers.get('RateLimit')).to.equal(null)
      const warnings = server.logs.lines().filter((l) => l['msg'] === 'rate limit store unavailable; request admitted without this limit')
      expect(warnings.map((w) => w['policy'])).to.deep.equal(['default'])
      const mints = server.logs.lines().filter((l) => l['msg'] === 'rate limit store unavailable; mint secret checked without this limit')
      expect(mints.map((w) => w['policy'])).to.deep.equal(['mint'])
      // Without the limit, the secret is still checked.
      expect((await mint(server.url, 'not-the-mint-secret-at-all', randomUUID())).status).to.equal(401)
      // The key, not yet held, was looked up without the key-lookup limit, as the route ran without its own.
      const lookups = server.logs.lines().filter((l) => l['msg'] === 'rate limit store unavailable; key looked up without this limit')
      expect(lookups.map((w) => w['policy'])).to.deep.equal(['key_lookups'])
    } finally {
      await server.stop()
    }
  })
})
