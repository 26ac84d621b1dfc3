import { Agent, request as httpRequest } from 'node:http'
import { connect, type Socket } from 'node:net'
import { gzipSync } from 'node:zlib'
import { expect } from 'chai'
import type { ConnectionLimits } from '../src/config.js'
import { SECURITY_HEADERS } from '../src/http/request-lifecycle.js'
import { bearer, mintKey, request } from './support/client.js'
import { startInMemoryServer, testConfig, type TestServer } from './support/test-server.js'

/**
 * Issue 35, finding 1 (and the 413, header and method findings of 5): nothing a caller without
 * credentials sends is read for what it says, every connection is held to its timeouts, and what
 * Node's parser refuses is answered as JSON like everything else.
 */

const SESSIONS = '/public/onboarding-sessions'
const SESSION_INPUT = { type: 'business', country_of_incorporation: 'US', entry_channel: 'partner_portal', locale: 'en-US' }

type Exchange = {
  /** Everything the server sent before the connection closed (or the wait ended). */
  readonly text: string
  /** Whether the server closed the connection within the wait. */
  readonly closed: boolean
}

/**
 * Opens a raw connection (from the loopback address `from`, default 127.0.0.1), writes `bytes`
 * (never more), and collects what comes back for up to `waitMs`.
 */
const exchange = (url: string, bytes: string | Buffer, waitMs: number, from = '127.0.0.1'): Promise<Exchange> =>
  new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url)
    const chunks: Buffer[] = []
    const socket: Socket = connect({ port: Number(port), host: hostname, localAddress: from }, () => socket.write(bytes))
    const done = (closed: boolean): void => {
      clearTimeout(timer)
      socket.destroy()
      resolve({ text: Buffer.concat(chunks).toString('utf8'), closed })
    }
    const timer = setTimeout(() => done(false), waitMs)
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('close', () => done(true))
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? done(true) : reject(error)))
  })

const statusOf = (text: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)
const bodyOf = (text: string): unknown => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))
const headerOf = (text: string, name: string): string | undefined =>
  new RegExp(`^${name}: (.*)$`, 'im').exec(text.slice(0, text.indexOf('\r\n\r\n')))?.[1]?.trim()

const expectSecurityHeaders = (text: string): void => {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(headerOf(text, name), name).to.equal(value)
}

const withLimits = (limits: Partial<ConnectionLimits>) => ({ connections: { ...testConfig().connections, ...limits } })

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * What the issue 53 attacker does: opens `count` connections from `from` and never reads from
 * them (so never closes its side when the server closes), sending `bytes` on each, or nothing.
 */
const holdConnections = async (url: string, count: number, from: string, bytes?: string): Promise<readonly Socket[]> => {
  const { hostname, port } = new URL(url)
  return Promise.all(
    Array.from({ length: count }, () =>
      new Promise<Socket>((resolve) => {
        const socket = connect({ port: Number(port), host: hostname, localAddress: from }, () => {
          socket.pause()
          if (bytes !== undefined) socket.write(bytes)
          resolve(socket)
        })
        // The server refusing or closing a held connection is what these tests look at, not an error.
        socket.on('error', () => undefined)
      }),
    ),
  )
}

const HEALTH = 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'

describe('Unauthenticated work and connection limits (issue 35)', function () {
  this.timeout(30_000)

  describe('bodies are read only behind authentication', () => {
    let server: TestServer
    before(async () => {
      server = await startInMemoryServer()
    })
    after(() => server.stop())

    it('answers 401 to a keyless request whatever its body holds: malformed, deeply nested or not decompressible JSON is never read', async () => {
      const bodies: [string, Record<string, string>, string | Uint8Array][] = [
        ['malformed', { 'Content-Type': 'application/json' }, '{"country_of_incorporation":'],
        ['nested 200,000 deep', { 'Content-Type': 'application/json' }, '['.repeat(200_000)],
        ['a gzip header over plain text', { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, '{a:1}'],
        ['an unknown encoding', { 'Content-Type': 'application/json', 'Content-Encoding': 'zstd-x' }, '{}'],
      ]
      for (const [label, headers, rawBody] of bodies) {
        const keyless = await request(server.url, SESSIONS, { method: 'POST', headers, rawBody })
        expect(keyless.status, label).to.equal(401)
        expect(keyless.body.error, label).to.equal('missing_api_key')
        const forged = await request(server.url, SESSIONS, { method: 'POST', headers: { ...headers, 'X-Api-Key': 'lg_test_not-a-key' }, rawBody })
        expect(forged.status, label).to.equal(401)
        expect(forged.body.error, label).to.equal('invalid_api_key')
      }
    })

    it('reads the same bodies for an authenticated caller: 400 for each, naming what is wrong', async () => {
      const key = await mintKey(server.url)
      const post = (headers: Record<string, string>, rawBody: string | Uint8Array) =>
        request(server.url, SESSIONS, { method: 'POST', headers: { ...bearer(key.api_key), 'Content-Type': 'application/json', ...headers }, rawBody })
      const deep = await post({}, `${'['.repeat(33)}${']'.repeat(33)}`)
      expect(deep.status).to.equal(400)
      expect(deep.body.detail).to.equal('The request body nests arrays and objects more than 32 levels deep.')
      const huge = await post({}, '['.repeat(200_000))
      expect(huge.status).to.equal(400)
      expect(huge.body.detail).to.equal('The request body nests arrays and objects more than 32 levels deep.')
      const compressed = await post({ 'Content-Encoding': 'gzip' }, gzipSync(JSON.stringify({ ...SESSION_INPUT, extra: [[[[1]]]] })))
      expect(compressed.status).to.equal(400)
      expect(compressed.body.param).to.equal('extra')
    })

    it('holds a keyless request whose body never finishes only until the request timeout: 408 as JSON, then closed', async () => {
      const strict = await startInMemoryServer(undefined, withLimits({ headersTimeoutMs: 500, requestTimeoutMs: 800 }))
      try {
        const head = `POST ${SESSIONS} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n`
        const stalled = await exchange(strict.url, `${head}{"a":"${'x'.repeat(1000)}`, 5_000)
        expect(stalled.closed, stalled.text).to.equal(true)
        expect(statusOf(stalled.text), stalled.text).to.equal(408)
        expect(bodyOf(stalled.text)).to.deep.equal({ error: 'request_timeout', detail: 'The request was not received in time.' })
      } finally {
        await strict.stop()
      }
    })

    it('closes a connection whose headers never finish, answering 408 as JSON', async () => {
      const strict = await startInMemoryServer(undefined, withLimits({ headersTimeoutMs: 500, requestTimeoutMs: 800 }))
      try {
        const slow = await exchange(strict.url, 'GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ', 5_000)
        expect(slow.closed).to.equal(true)
        expect(statusOf(slow.text), slow.text).to.equal(408)
        expect(bodyOf(slow.text)).to.deep.equal({ error: 'request_timeout', detail: 'The request was not received in time.' })
        expectSecurityHeaders(slow.text)
      } finally {
        await strict.stop()
      }
    })

    it('closes idle keep-alive connections after the keep-alive timeout', async () => {
      const strict = await startInMemoryServer(undefined, withLimits({ keepAliveTimeoutMs: 300 }))
      try {
        const idle = await exchange(strict.url, 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n', 5_000)
        expect(statusOf(idle.text)).to.equal(200)
        expect(idle.closed).to.equal(true)
      } finally {
        await strict.stop()
      }
    })

    it('closes connections past the maximum as they arrive, and serves the ones it holds', async () => {
      const strict = await startInMemoryServer(undefined, withLimits({ maxConnections: 2 }))
      const { hostname, port } = new URL(strict.url)
      const held = await Promise.all(
        [1, 2].map(() => new Promise<Socket>((resolve) => {
          const socket = connect(Number(port), hostname, () => resolve(socket))
        })),
      )
      try {
        // Node counts a connection once it is accepted: give the two a moment to be accepted.
        await new Promise((resolve) => setTimeout(resolve, 100))
        const third = await exchange(strict.url, 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n', 2_000)
        expect(third.closed).to.equal(true)
        expect(third.text).to.equal('')
        held[0]!.destroy()
        await new Promise((resolve) => setTimeout(resolve, 100))
        const served = await exchange(strict.url, 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 2_000)
        expect(statusOf(served.text)).to.equal(200)
      } finally {
        for (const socket of held) socket.destroy()
        await strict.stop()
      }
    })
  })

  describe('connection slots (issue 53)', () => {
    it('serves a keyed partner and the health probe while one address holds every connection the instance allows, refusing the requests of that address past its share with 429 as JSON, its health probes aside', async () => {
      const strict = await startInMemoryServer(undefined, withLimits({ maxConnections: 60, maxConnectionsPerAddress: 10 }))
      const key = await mintKey(strict.url)
      const held = await holdConnections(strict.url, 60, '127.0.0.2')
      try {
        // The 50 connections past the attacker's share are closed within a second of arriving.
        await pause(1_500)
        // On a connection of its own, as a client whose pool has none open yet.
        const body = JSON.stringify(SESSION_INPUT)
        const head = `POST ${SESSIONS} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key.api_key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`
        const partner = await exchange(strict.url, `${head}${body}`, 5_000)
        expect(statusOf(partner.text), partner.text).to.equal(201)
        const probe = await exchange(strict.url, HEALTH, 5_000, '127.0.0.3')
        expect(statusOf(probe.text), probe.text).to.equal(200)
        // The health probe, polled from the address of the clients a balancer forwards, is served even past its share.
        const ownProbe = await exchange(strict.url, HEALTH, 5_000, '127.0.0.2')
        expect(statusOf(ownProbe.text), ownProbe.text).to.equal(200)
        expect(ownProbe.closed).to.equal(true)
        const more = await exchange(strict.url, 'GET /public/loans HTTP/1.1\r\nHost: x\r\n\r\n', 5_000, '127.0.0.2')
        expect(more.closed).to.equal(true)
        expect(statusOf(more.text), more.text).to.equal(429)
        expect(headerOf(more.text, 'Retry-After')).to.equal('1')
        expect(headerOf(more.text, 'Connection')).to.equal('close')
        expectSecurityHeaders(more.text)
        expect(bodyOf(more.text)).to.deep.include({ error: 'rate_limited', policy: 'connections', retry_after_seconds: 1 })
        for (const socket of held) socket.destroy()
        await pause(100)
        const after = await exchange(strict.url, HEALTH, 5_000, '127.0.0.2')
        expect(statusOf(after.text), after.text).to.equal(200)
      } finally {
        for (const socket of held) socket.destroy()
        await strict.stop()
      }
    })

    it('frees the slot of a connection answered 408 whose peer never closes its side', async () => {
      const strict = await startInMemoryServer(undefined, withLimits({ headersTimeoutMs: 300, requestTimeoutMs: 300, maxConnectionsPerAddress: 3 }))
      const held = await holdConnections(strict.url, 3, '127.0.0.2', 'GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ')
      try {
        // The headers time out (300 ms, checked every 30 ms), the 408 is sent, and a second later the connection is gone.
        await pause(2_000)
        const next = await exchange(strict.url, HEALTH, 5_000, '127.0.0.2')
        expect(statusOf(next.text), next.text).to.equal(200)
      } finally {
        for (const socket of held) socket.destroy()
        await strict.stop()
      }
    })
  })

  describe("what Node's parser refuses", () => {
    let server: TestServer
    before(async () => {
      server = await startInMemoryServer()
    })
    after(() => server.stop())

    it('answers headers over 16 KB with 431 as JSON, with the security headers, and closes', async () => {
      const reply = await exchange(server.url, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 5_000)
      expect(statusOf(reply.text), reply.text).to.equal(431)
      expect(bodyOf(reply.text)).to.deep.equal({ error: 'headers_too_large', detail: 'The request headers exceed 16384 bytes.' })
      expectSecurityHeaders(reply.text)
      expect(reply.closed).to.equal(true)
    })

    it('answers oversized headers as JSON on a keep-alive connection that has already served a request', async () => {
      const { hostname, port } = new URL(server.url)
      const text = await new Promise<string>((resolve, reject) => {
        let seen = ''
        const socket = connect(Number(port), hostname, () => socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n'))
        socket.on('data', (chunk: Buffer) => {
          const first = seen === ''
          seen += chunk.toString('utf8')
          if (first) socket.write(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
        })
        socket.on('close', () => resolve(seen))
        socket.on('error', reject)
        setTimeout(() => socket.destroy(), 5_000)
      })
      const second = text.slice(text.indexOf('HTTP/1.1', 1))
      expect(statusOf(text)).to.equal(200)
      expect(statusOf(second), text).to.equal(431)
      expect(bodyOf(second)).to.deep.equal({ error: 'headers_too_large', detail: 'The request headers exceed 16384 bytes.' })
    })

    it('answers an unknown method and a broken request line with 400 as JSON, with the security headers', async () => {
      for (const line of ['FROB /health HTTP/1.1', 'GET /health HTTP/9.9', 'GET  HTTP/1.1']) {
        const reply = await exchange(server.url, `${line}\r\nHost: x\r\n\r\n`, 5_000)
        expect(statusOf(reply.text), `${line}: ${reply.text}`).to.equal(400)
        expect(bodyOf(reply.text), line).to.deep.equal({ error: 'invalid_request', detail: 'The request is not valid HTTP/1.1 (request line, method or headers).' })
        expectSecurityHeaders(reply.text)
      }
    })
  })

  describe('a body over the limit', () => {
    let server: TestServer
    before(async () => {
      server = await startInMemoryServer()
    })
    after(() => server.stop())

    /** One request over `agent`; resolves with the status and the Connection header. */
    const send = (agent: Agent, method: string, path: string, headers: Record<string, string>, body?: Buffer, chunked = false) =>
      new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        const { hostname, port } = new URL(server.url)
        const outgoing = httpRequest(
          { host: hostname, port, method, path, agent, headers: { ...headers, ...(body !== undefined && !chunked ? { 'Content-Length': String(body.length) } : {}) } },
          (response) => {
            response.resume()
            response.on('end', () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection }))
          },
        )
        outgoing.on('error', reject)
        if (body !== undefined) {
          // Chunked: sent in pieces so the server sees the limit passed before the body ends.
          for (let at = 0; at < body.length; at += 64 * 1024) outgoing.write(body.subarray(at, at + 64 * 1024))
        }
        outgoing.end()
      })

    it('answers 413 and closes the connection, so the next request on a keep-alive agent goes through', async () => {
      const key = await mintKey(server.url)
      const headers = { ...bearer(key.api_key), 'Content-Type': 'application/json' }
      const cases: [string, Buffer, Record<string, string>, boolean][] = [
        ['chunked', Buffer.from(`{"a":"${'x'.repeat(1_200_000)}"}`), {}, true],
        ['gzip, chunked', gzipSync(Buffer.from(`{"a":"${'x'.repeat(3_000_000)}"}`)), { 'Content-Encoding': 'gzip' }, true],
        ['gzip, with a length', gzipSync(Buffer.from(`{"a":"${'x'.repeat(3_000_000)}"}`)), { 'Content-Encoding': 'gzip' }, false],
        ['declared length', Buffer.alloc(1_100_000, 0x20), {}, false],
      ]
      for (const [label, body, extra, chunked] of cases) {
        const agent = new Agent({ keepAlive: true, maxSockets: 1 })
        try {
          const refused = await send(agent, 'POST', SESSIONS, { ...headers, ...extra }, body, chunked)
          expect(refused.status, label).to.equal(413)
          expect(refused.connection, label).to.equal('close')
          const next = await send(agent, 'GET', '/health', {})
          expect(next.status, label).to.equal(200)
        } finally {
          agent.destroy()
        }
      }
    })
  })

  describe('the keyless budget', () => {
    let server: TestServer
    before(async () => {
      const config = testConfig()
      server = await startInMemoryServer(undefined, { rateLimits: { ...config.rateLimits, keylessRequests: 3 } })
    })
    after(() => server.stop())

    it('answers 429 keyless past the per-address budget and closes the connection, while health probes and callers with a key go on', async () => {
      const key = await mintKey(server.url)
      for (let i = 0; i < 3; i++) expect((await request(server.url, '/public/partner/api-keys')).status).to.equal(401)
      const refused = await request(server.url, '/public/openapi.json')
      expect(refused.status).to.equal(429)
      expect(refused.body).to.include({ error: 'rate_limited', policy: 'keyless' })
      expect(refused.headers.get('retry-after')).to.match(/^\d+$/)
      // Past the budget the connection is closed rather than the rest of a body read.
      expect(refused.headers.get('connection')).to.equal('close')
      expect((await request(server.url, SESSIONS, { method: 'POST', headers: { 'Content-Type': 'application/json' }, json: SESSION_INPUT })).status).to.equal(429)
      // A junk credential does not get past the budget.
      for (const junk of [{ 'X-Api-Key': 'x' }, { Authorization: 'Bearer x' }, { 'X-Partner-Mint-Key': 'x' }] as Record<string, string>[]) {
        expect((await request(server.url, '/public/partner/api-keys', { headers: junk })).status, JSON.stringify(junk)).to.equal(429)
      }
      expect((await request(server.url, '/health')).status).to.equal(200)
      expect((await request(server.url, '/health/ready')).status).to.equal(200)
      expect((await request(server.url, SESSIONS, { method: 'POST', headers: bearer(key.api_key), json: SESSION_INPUT })).status).to.equal(201)
    })
  })
})
