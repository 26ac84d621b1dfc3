import { randomUUID } from 'node:crypto'
import type { RequestListener } from 'node:http'
import { expect } from 'chai'
import fc from 'fast-check'
import { createApp, type App } from '../src/app.js'
import { frontDoor } from '../src/http/front-door.js'
import { OPERATIONS } from '../src/routes/operations.js'
import { createLogger } from '../src/logger.js'
import { listen, type Listening } from '../src/server.js'
import { bearer, mintKey, request, type MintedKey, type Reply, type RequestOptions } from './support/client.js'
import { captureLogs, inMemoryDeps, INTERNAL_TOKEN, testConfig, type LogCapture } from './support/test-server.js'

/**
 * The front door (decision 65) refuses some partner requests before Koa runs. Partners must not
 * be able to tell: every request here goes to the service with its front door and to the same
 * service's Koa application alone, and the two answers and access lines must be the same. Each
 * case also says whether the front door answers it, which is checked by counting the contexts
 * the application makes.
 */

type Served = { readonly server: Listening; readonly logs: LogCapture; readonly contexts: () => number }

/** `app` on a socket through `handleOf` it, counting the request contexts Koa makes. */
const serve = async (handleOf: (app: App) => RequestListener): Promise<Served> => {
  const { stream, capture } = captureLogs()
  const config = testConfig()
  const app = createApp(deps, config, createLogger(config.logLevel, stream))
  let contexts = 0
  const createContext = app.koa.createContext.bind(app.koa)
  app.koa.createContext = (req, res) => {
    contexts += 1
    return createContext(req, res)
  }
  const server = await listen(handleOf(app), '127.0.0.1', 0, async () => undefined)
  return { server, logs: capture, contexts: () => contexts }
}

/** Both services share one set of dependencies: a key minted through one works on the other. */
const deps = inMemoryDeps()

/** Headers that differ between any two answers, whoever makes them. */
const VARYING = new Set(['date', 'x-request-id'])

/**
 * The answer's headers but those that vary; the requests left in a rate limit's window are
 * elided, since the two services share one limiter and each request counts.
 */
const headersOf = (reply: Reply): Record<string, string> =>
  Object.fromEntries(
    [...reply.headers.entries()]
      .filter(([name]) => !VARYING.has(name))
      .map(([name, value]) => [name, name === 'ratelimit' ? value.replace(/;r=\d+;/g, ';r=…;') : value])
      .sort(([a], [b]) => (a as string).localeCompare(b as string)),
  )

/** The access line of the request that got `reply`, without what differs between any two lines. */
const accessLineOf = (logs: LogCapture, reply: Reply): Record<string, unknown> => {
  const id = reply.headers.get('x-request-id')
  const lines = logs.lines().filter((line) => line['msg'] === 'request' && line['request_id'] === id)
  expect(lines, `one access line for request ${id}`).to.have.length(1)
  const { time, duration_ms, request_id, ...rest } = lines[0] as Record<string, unknown>
  expect([typeof time, typeof duration_ms, request_id]).to.deep.equal(['string', 'number', id])
  return rest
}

describe('The front door (refusals before Koa)', () => {
  let door: Served
  let koa: Served
  let key: MintedKey
  let sessionPath: string

  before(async () => {
    door = await serve((app) => app.handle)
    koa = await serve((app) => app.koa.callback())
    key = await mintKey(door.server.url)
    const created = await request(door.server.url, '/public/onboarding-sessions', {
      method: 'POST',
      headers: { ...bearer(key.api_key), 'Idempotency-Key': randomUUID() },
      json: { type: 'business', country_of_incorporation: 'US', entry_channel: 'partner_portal', locale: 'en-US' },
    })
    expect(created.status).to.equal(201)
    sessionPath = `/public/onboarding-sessions/${created.body.session_id as string}`
  })

  after(async () => {
    await door.server.stop(1_000)
    await koa.server.stop(1_000)
  })

  /** Sends the request to both; expects the same answer and access line, and says who answered. */
  const both = async (path: string, options: RequestOptions = {}): Promise<{ readonly reply: Reply; readonly answeredByDoor: boolean }> => {
    const before = door.contexts()
    const [viaDoor, viaKoa] = [await request(door.server.url, path, options), await request(koa.server.url, path, options)]
    const answeredByDoor = door.contexts() === before
    expect({ status: viaDoor.status, headers: headersOf(viaDoor), text: viaDoor.text }, `${options.method ?? 'GET'} ${path}`).to.deep.equal({
      status: viaKoa.status,
      headers: headersOf(viaKoa),
      text: viaKoa.text,
    })
    expect(accessLineOf(door.logs, viaDoor)).to.deep.equal(accessLineOf(koa.logs, viaKoa))
    return { reply: viaDoor, answeredByDoor }
  }

  const malformed = `lgk_live_${'0'.repeat(16)}_${'A'.repeat(32)}`
  /** Well formed, for an id segment no key has, with the checksum of another: refused without a lookup. */
  const badChecksum = (): string => {
    const forged = key.api_key.replace(/_[0-9A-Za-z]{16}_/, `_${'Z'.repeat(16)}_`)
    expect(deps.keyMaterial.hasValidChecksum(forged)).to.equal(false)
    return forged
  }

  describe('answers a partner route whose key is missing or refused on sight, exactly as the application does', () => {
    const cases: readonly (readonly [string, () => readonly [string, RequestOptions], string])[] = [
      ['no key', () => [sessionPath, {}], 'missing_api_key'],
      ['a malformed Bearer key', () => [sessionPath, { headers: bearer(malformed) }], 'invalid_api_key'],
      ['a malformed X-Api-Key', () => [sessionPath, { headers: { 'X-Api-Key': malformed } }], 'invalid_api_key'],
      ['a key whose checksum fails', () => [sessionPath, { headers: bearer(badChecksum()) }], 'invalid_api_key'],
      ['a Bearer value that is not a key, and no X-Api-Key', () => [sessionPath, { headers: { Authorization: 'Bearer hello' } }], 'missing_api_key'],
      ['the version prefix, a query string and a trailing slash', () => [`/public/v1${sessionPath.slice('/public'.length)}/?expand=all`, { headers: bearer(malformed) }], 'invalid_api_key'],
      ['upper-case literal segments', () => [sessionPath.replace('onboarding-sessions', 'ONBOARDING-SESSIONS'), {}], 'missing_api_key'],
      ['a party-scoped route', () => [`/public/parties/${key.party_id}/loans`, { headers: bearer(malformed) }], 'invalid_api_key'],
      ['a POST without a body', () => ['/public/onboarding-sessions', { method: 'POST' }], 'missing_api_key'],
      ['a DELETE', () => [`/public/partner/api-keys/${randomUUID()}`, { method: 'DELETE', headers: bearer(malformed) }], 'invalid_api_key'],
      ['its own sane X-Request-Id', () => [sessionPath, { headers: { ...bearer(malformed), 'X-Request-Id': 'partner-req-42' } }], 'invalid_api_key'],
      ['an X-Request-Id that is not kept', () => [sessionPath, { headers: { ...bearer(malformed), 'X-Request-Id': 'x'.repeat(200) } }], 'invalid_api_key'],
    ]
    for (const [name, make, error] of cases) {
      it(`with ${name}`, async () => {
        const [path, options] = make()
        const { reply, answeredByDoor } = await both(path, options)
        expect({ status: reply.status, error: reply.body?.error, answeredByDoor }).to.deep.equal({ status: 401, error, answeredByDoor: true })
      })
    }

    it('keeps a sane X-Request-Id and replaces any other', async () => {
      const kept = await request(door.server.url, sessionPath, { headers: { 'X-Request-Id': 'partner-req-43' } })
      const replaced = await request(door.server.url, sessionPath, { headers: { 'X-Request-Id': 'not sane!' } })
      expect(kept.headers.get('x-request-id')).to.equal('partner-req-43')
      expect(replaced.headers.get('x-request-id')).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    })

    it('answers HEAD with the headers and no body', async () => {
      const { reply, answeredByDoor } = await both(sessionPath, { method: 'HEAD', headers: bearer(malformed) })
      expect({ status: reply.status, text: reply.text, answeredByDoor }).to.deep.equal({ status: 401, text: '', answeredByDoor: true })
      expect(Number(reply.headers.get('content-length'))).to.be.above(0)
    })
  })

  describe('leaves to the application, which answers it the same, every other request', () => {
    const cases: readonly (readonly [string, () => readonly [string, RequestOptions], number])[] = [
      ['a usable key', () => [sessionPath, { headers: bearer(key.api_key) }], 200],
      ['a well-formed key with a valid checksum that is not held (it is looked up)', () => [sessionPath, { headers: bearer(wellFormedUnknown()) }], 401],
      ['an Origin header (CORS)', () => [sessionPath, { headers: { ...bearer(malformed), Origin: 'https://app.partner.example' } }], 401],
      ['a body (read before authentication)', () => ['/public/onboarding-sessions', { method: 'POST', headers: { ...bearer(malformed), 'Content-Type': 'application/json' }, rawBody: '{not json' }], 400],
      ['a body the parser does not read', () => ['/public/onboarding-sessions', { method: 'POST', headers: bearer(malformed), rawBody: 'plain text' }], 401],
      ['a path no route has', () => ['/public/no-such-thing', { headers: bearer(malformed) }], 404],
      ['a method the partner path does not serve', () => [sessionPath, { method: 'PUT', headers: bearer(malformed) }], 405],
      ['OPTIONS', () => [sessionPath, { method: 'OPTIONS', headers: bearer(malformed) }], 204],
      ['the mint route (another credential)', () => ['/public/partner/api-keys', { method: 'POST', headers: bearer(malformed), json: { party_id: randomUUID() } }], 401],
      ['an internal route', () => ['/internal/onboarding-sessions', { headers: bearer(malformed) }], 401],
      ['the internal token on an internal route', () => ['/internal/onboarding-sessions', { headers: bearer(INTERNAL_TOKEN) }], 200],
      ['a route without a key', () => ['/health', {}], 200],
      ['the reference page', () => ['/docs', { headers: bearer(malformed) }], 200],
    ]
    for (const [name, make, status] of cases) {
      it(`such as one with ${name}`, async () => {
        const [path, options] = make()
        const { reply, answeredByDoor } = await both(path, options)
        expect({ status: reply.status, answeredByDoor }).to.deep.equal({ status, answeredByDoor: false })
      })
    }
  })

  describe('on requests drawn at random from the route table', () => {
    const keyOf = fc.constantFrom<() => Record<string, string>>(
      () => ({}),
      () => bearer(malformed),
      () => ({ 'X-Api-Key': malformed }),
      () => bearer(badChecksum()),
      () => bearer(wellFormedUnknown()),
      () => ({ Authorization: 'Basic dXNlcjpwYXNz' }),
      () => ({ 'X-Partner-Mint-Key': 'not-the-secret' }),
    )
    /**
     * A request to some operation's path, its parameters filled with a UUID or a stray segment,
     * in any of the forms routes accept, mostly with the operation's own method; with any of
     * the keys above, and sometimes an Origin or a body.
     */
    const requestOf = fc.constantFrom(...OPERATIONS).chain((op) =>
      fc.record({
        path: fc
          .record({
            param: fc.constantFrom(randomUUID(), 'x', '%41%42', 'ABC-123', '..%2F'),
            versioned: fc.boolean(),
            trailingSlash: fc.boolean(),
            query: fc.constantFrom('', '?limit=2', '?a=%ZZ'),
            upper: fc.oneof({ arbitrary: fc.constant(false), weight: 4 }, { arbitrary: fc.constant(true), weight: 1 }),
            stray: fc.oneof({ arbitrary: fc.constant(''), weight: 4 }, { arbitrary: fc.constant('/extra'), weight: 1 }),
          })
          .map(({ param, versioned, trailingSlash, query, upper, stray }) => {
            let path = op.path.replace(/:[A-Za-z]+/g, param) + stray
            if (versioned && path.startsWith('/public/')) path = `/public/v1${path.slice('/public'.length)}`
            if (upper) path = path.toUpperCase()
            return `${path}${trailingSlash ? '/' : ''}${query}`
          }),
        method: fc.oneof(
          { arbitrary: fc.constant<string>(op.method), weight: 3 },
          { arbitrary: fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'), weight: 1 },
        ),
        key: keyOf,
        origin: fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: fc.constant('https://app.partner.example'), weight: 1 }),
        body: fc.oneof({ arbitrary: fc.constant(undefined), weight: 2 }, { arbitrary: fc.constantFrom('{"a":1}', '{not json'), weight: 1 }),
      }),
    )

    it('gets the same answer and access line from the service as from its Koa application alone', async () => {
      let answeredByDoor = 0
      await fc.assert(
        fc.asyncProperty(requestOf, async ({ path, method, key, origin, body }) => {
          const sendsBody = body !== undefined && method !== 'GET' && method !== 'HEAD'
          const headers = { ...key(), ...(origin === undefined ? {} : { Origin: origin }), ...(sendsBody ? { 'Content-Type': 'application/json' } : {}) }
          const outcome = await both(path, { method, headers, ...(sendsBody ? { rawBody: body } : {}) })
          if (outcome.answeredByDoor) answeredByDoor += 1
        }),
        { numRuns: 300 },
      )
      // The draw reaches both sides of the door.
      expect(answeredByDoor).to.be.within(1, 299)
    })
  })

  describe('when it fails', () => {
    it('logs the failure and leaves the request to the application, which answers it', async () => {
      const { stream, capture } = captureLogs()
      const config = testConfig()
      const logger = createLogger(config.logLevel, stream)
      const broken = frontDoor({
        table: {
          partnerOperationOf: () => {
            throw new Error('broken table')
          },
        },
        onSight: () => undefined,
        logger,
      })
      const server = await listen(broken(createApp(deps, config, logger).koa.callback()), '127.0.0.1', 0, async () => undefined)
      try {
        const reply = await request(server.url, sessionPath, { headers: bearer(malformed) })
        expect({ status: reply.status, error: reply.body?.error }).to.deep.equal({ status: 401, error: 'invalid_api_key' })
        const failures = capture.lines().filter((line) => line['level'] === 'error')
        expect(failures.map((line) => [line['msg'], (line['err'] as Record<string, unknown> | undefined)?.['message']])).to.deep.equal([
          ['front door failed; the application answers the request', 'broken table'],
        ])
        expect(accessLineOf(capture, reply)).to.include({ status: 401, operation_id: 'getOnboardingSession' })
      } finally {
        await server.stop(1_000)
      }
    })
  })

  /** A key of the right form and checksum for an id segment no key has: a lookup decides it. */
  const wellFormedUnknown = (): string => {
    const unknown = deps.keyMaterial.generate('live').plaintext
    expect(deps.keyMaterial.hasValidChecksum(unknown)).to.equal(true)
    return unknown
  }
})
