import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { expect } from 'chai'
import { chromium, type Browser } from 'playwright-core'
import { startInMemoryServer, type TestServer } from '../test/support/test-server.js'

/**
 * In a real browser (Debian's Chromium, driven by playwright-core; `.ci/run` installs it):
 * the reference page renders the operations, and a page on another origin can call the API
 * through a CORS preflight only when its origin is allowed. Run with `pnpm test:browser`.
 */

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium'

/** A page on its own origin whose script calls the API cross-origin with a bearer header (so a preflight). */
const callerPage = async (): Promise<{ readonly origin: string; readonly close: () => Promise<void> }> => {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' })
    res.end('<!doctype html><title>partner app</title>')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) }
}

describe('the reference page and CORS, in Chromium', function () {
  this.timeout(60_000)
  let browser: Browser
  let api: TestServer
  let allowed: Awaited<ReturnType<typeof callerPage>>
  let refused: Awaited<ReturnType<typeof callerPage>>
  before(async () => {
    allowed = await callerPage()
    refused = await callerPage()
    api = await startInMemoryServer(() => ({}), { corsOrigins: [allowed.origin] })
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
  })
  after(async () => {
    await browser?.close()
    await api?.stop()
    await allowed?.close()
    await refused?.close()
  })

  it('renders every operation of the document at /docs, from assets of this origin only', async () => {
    const page = await browser.newPage()
    const requested: string[] = []
    page.on('request', (r) => requested.push(r.url()))
    await page.goto(`${api.url}/docs`)
    await page.waitForSelector('.opblock', { timeout: 30_000 })
    const document = (await (await fetch(`${api.url}/public/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>
      webhooks: Record<string, Record<string, unknown>>
    }
    const count = (items: Record<string, Record<string, unknown>>) => Object.values(items).reduce((n, item) => n + Object.keys(item).length, 0)
    // Every operation, and the party.ready webhook.
    expect(await page.locator('.opblock').count()).to.equal(count(document.paths) + count(document.webhooks))
    expect(await page.locator('.opblock-summary-path', { hasText: '/public/applications' }).count()).to.be.greaterThan(0)
    expect(requested.every((url) => url.startsWith(api.url)), requested.join('\n')).to.equal(true)
    await page.close()
  })

  const callFrom = async (origin: string): Promise<{ readonly ok: true; readonly status: number } | { readonly ok: false; readonly error: string }> => {
    const page = await browser.newPage()
    await page.goto(origin)
    const outcome = await page.evaluate(async (url) => {
      try {
        const reply = await fetch(url, { headers: { Authorization: 'Bearer lgk_live_0000000000000000_0000' } })
        return { ok: true as const, status: reply.status }
      } catch (error) {
        return { ok: false as const, error: String(error) }
      }
    }, `${api.url}/public/onboarding-sessions/5b0c1d2e-0001-4a00-8000-000000000001`)
    await page.close()
    return outcome
  }

  it('lets a page on an allowed origin through the preflight (the API then answers, here 401)', async () => {
    expect(await callFrom(allowed.origin)).to.deep.equal({ ok: true, status: 401 })
  })

  it('refuses a page on another origin: the browser blocks the call', async () => {
    const outcome = await callFrom(refused.origin)
    expect(outcome.ok).to.equal(false)
  })
})
