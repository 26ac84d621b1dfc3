import { randomUUID } from 'node:crypto'
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { testDatabases } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { bufferedDestination, createLogger, isoTimeEachMillisecond } from '../src/logger.js'
import { bearer, request, type MintedKey, type Reply } from './support/client.js'
import { INTERNAL_TOKEN, MINT_SECRET, startTestServer, type TestServer } from './support/test-server.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const SESSION_INPUT = { type: 'business', country_of_incorporation: 'US', entry_channel: 'partner_portal', locale: 'en-US' }

/** A request made in `before`, with what its access log line must say. */
type Made = { readonly name: string; readonly reply: Reply; readonly method: string; readonly path: string; readonly status: number }

for (const database of testDatabases()) {
  describe(`Request logging on ${database.name}`, () => {
    let server: TestServer
    let key: MintedKey
    const made: Made[] = []
    let startedAt = 0

    before(async () => {
      startedAt = Date.now()
      server = await startTestServer(database)
      const minted = await request(server.url, '/public/partner/api-keys', {
        method: 'POST',
        headers: { 'X-Partner-Mint-Key': MINT_SECRET },
        json: { party_id: randomUUID() },
      })
      key = minted.body as MintedKey
      made.push({ name: 'mint', reply: minted, method: 'POST', path: '/public/partner/api-keys', status: 201 })
      const created = await request(server.url, '/public/onboarding-sessions', {
        method: 'POST',
        headers: { ...bearer(key.api_key), 'X-Request-Id': 'client-req-42' },
        json: SESSION_INPUT,
      })
      made.push({ name: 'create session', reply: created, method: 'POST', path: '/public/onboarding-sessions', status: 201 })
      const unauthenticated = await request(server.url, '/public/partner/api-keys')
      made.push({ name: '401', reply: unauthenticated, method: 'GET', path: '/public/partner/api-keys', status: 401 })
      const unknown = await request(server.url, '/public/nothing-here', { headers: { 'X-Api-Key': key.api_key } })
      made.push({ name: '404', reply: unknown, method: 'GET', path: '/public/nothing-here', status: 404 })
      const internalPath = `/internal/applications/${randomUUID()}/approve`
      const internal = await request(server.url, internalPath, { method: 'POST', headers: bearer(INTERNAL_TOKEN) })
      made.push({ name: 'internal', reply: internal, method: 'POST', path: internalPath, status: 404 })
    })
    after(async () => server.stop())

    const requestLines = () => server.logs.lines().filter((line) => line['msg'] === 'request')

    it('answered the requests as expected', () => {
      for (const m of made) expect(m.reply.status, m.name).to.equal(m.status)
    })

    it('writes exactly one request line per request, carrying the X-Request-Id the response had', () => {
      const ids = made.map((m) => m.reply.headers.get('x-request-id'))
      expect(new Set(ids).size).to.equal(made.length)
      for (const m of made) {
        const requestId = m.reply.headers.get('x-request-id')
        expect(requestId, m.name).to.be.a('string')
        expect(requestLines().filter((line) => line['request_id'] === requestId), m.name).to.have.length(1)
      }
      expect(requestLines()).to.have.length(made.length)
    })

    it('stamps every line with the UTC time it was written, to the millisecond, in ISO 8601', () => {
      const lines = server.logs.lines()
      expect(lines.length).to.be.at.least(made.length)
      let previous = startedAt
      for (const line of lines) {
        const time = line['time']
        expect(time).to.be.a('string').and.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
        const at = Date.parse(time as string)
        expect(at).to.be.at.least(previous).and.at.most(Date.now())
        previous = at
      }
    })

    it('uses the caller-supplied request id when it is sane and a generated UUID otherwise', () => {
      expect(made[1]!.reply.headers.get('x-request-id')).to.equal('client-req-42')
      for (const m of made.filter((x) => x.name !== 'create session')) expect(m.reply.headers.get('x-request-id'), m.name).to.match(UUID)
    })

    it('records method, path, status and a numeric duration_ms on each request line', () => {
      for (const m of made) {
        const line = requestLines().find((l) => l['request_id'] === m.reply.headers.get('x-request-id'))!
        expect(line, m.name).to.include({ method: m.method, path: m.path, status: m.status })
        expect(line['duration_ms'], m.name).to.be.a('number').and.at.least(0)
      }
    })

    it('names the operation and the authenticated caller on the request line', () => {
      const line = requestLines().find((l) => l['request_id'] === 'client-req-42')!
      expect(line).to.include({ operation_id: 'createOnboardingSession', client_id: key.client_id, key_id: key.api_key_id })
    })

    it('names the operation of a refused request too, and none when no route matched', () => {
      const lineOf = (name: string) => requestLines().find((l) => l['request_id'] === made.find((m) => m.name === name)!.reply.headers.get('x-request-id'))!
      expect(lineOf('401')).to.include({ operation_id: 'listApiKeys' })
      expect(lineOf('401')).not.to.have.property('key_id')
      expect(lineOf('404')).not.to.have.property('operation_id')
    })

    it('never writes the minted key, its secret part, the mint secret or the internal token', () => {
      const raw = server.logs.raw()
      expect(raw).not.to.contain(key.api_key)
      expect(raw).not.to.contain(key.api_key.slice(key.key_prefix.length + 1))
      expect(raw).not.to.contain(MINT_SECRET)
      expect(raw).not.to.contain(INTERNAL_TOKEN)
    })
  })
}

describe('the log timestamp', () => {
  const realNow = Date.now
  afterEach(() => {
    Date.now = realNow
  })

  it('is pino\'s ISO time, formatted once per millisecond and again as soon as the clock moves', () => {
    const stamp = isoTimeEachMillisecond()
    let now = Date.parse('2026-11-24T10:00:00.123Z')
    Date.now = () => now
    const first = stamp()
    expect(first).to.equal(',"time":"2026-11-24T10:00:00.123Z"')
    expect(stamp()).to.equal(first)
    now += 1
    expect(stamp()).to.equal(',"time":"2026-11-24T10:00:00.124Z"')
    now = Date.parse('2027-01-01T00:00:00.000Z')
    expect(stamp()).to.equal(',"time":"2027-01-01T00:00:00.000Z"')
  })
})

describe('the buffered log destination', () => {
  // Each destination flushes every 250 ms for the rest of the process, so its file stays open
  // until the process exits; the folder is removed at the end (an open file can be unlinked).
  let dir = ''
  let file = ''
  let fd = -1
  const written = () => readFileSync(file, 'utf8')

  before(() => (dir = mkdtempSync(join(tmpdir(), 'lendgate-log-'))))
  beforeEach(() => {
    file = join(dir, `${randomUUID()}.log`)
    fd = openSync(file, 'w')
  })
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('holds short lines back until the flush interval, then writes them in order', async () => {
    const destination = bufferedDestination(fd)
    destination.write('{"n":1}\n')
    destination.write('{"n":2}\n')
    expect(written()).to.equal('')
    await sleep(400)
    expect(written()).to.equal('{"n":1}\n{"n":2}\n')
  })

  it('writes a batch once it holds 8 KiB, byte for byte, multi-byte characters included', async () => {
    const destination = bufferedDestination(fd)
    // 3 bytes for "€" and 4 for "𝄞": a batch measured in characters would be cut short or mid-character.
    const lines = Array.from({ length: 400 }, (_, i) => `{"n":${i},"note":"€ 𝄞 café ${'x'.repeat(i % 7)}"}\n`)
    for (const line of lines) destination.write(line)
    const beforeInterval = written()
    expect(Buffer.byteLength(beforeInterval)).to.be.at.least(8 * 1024)
    expect(lines.join('').startsWith(beforeInterval)).to.equal(true)
    await sleep(400)
    expect(written()).to.equal(lines.join(''))
  })

  it('redacts bank account numbers and sealed values wherever a line carries them, at the top or one level down', () => {
    const lines: string[] = []
    const logger = createLogger('lendgate-api', 'info', { write: (line: string) => lines.push(line) })
    logger.info({ account_number: '49172630588214', method: { accountNumber: '49172630588215', sealed: 'v1.sealed-value' } }, 'a careless line')
    expect(lines).to.have.length(1)
    expect(lines[0]).to.not.include('4917263058821').and.not.include('v1.sealed-value')
    expect(JSON.parse(lines[0]!)).to.deep.include({ account_number: '[redacted]', method: { accountNumber: '[redacted]', sealed: '[redacted]' } })
  })

  it('carries a logger\'s lines as pino wrote them', async () => {
    const logger = createLogger('lendgate-api', 'info', bufferedDestination(fd))
    logger.info({ path: '/public/loans/ü' }, 'request')
    await sleep(400)
    const line = JSON.parse(written()) as Record<string, unknown>
    expect(line).to.include({ level: 'info', service: 'lendgate-api', path: '/public/loans/ü', msg: 'request' })
  })
})
