import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { expect } from 'chai'
import { chromium, type Browser, type Request as BrowserRequest } from 'playwright-core'
import { mintKey } from '../test/support/client.js'
import { startInMemoryServer, type TestServer } from '../test/support/test-server.js'

/**
 * In a real browser (Debian's Chromium, driven by playwright-core; `.ci/run` installs it):
 * the reference page renders the operations, its "Try it out" calls the server that served it,
 * and a page on another origin can call the API through a CORS preflight only when its origin
 * is allowed. Run with `pnpm test:browser`.
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

  it('"Try it out" with a key calls the server that served the page, on its own port, and shows the 200', async () => {
    // The default port (PORT) is 3000: a document naming a fixed server would send the call there.
    expect(new URL(api.url).port).to.not.equal('3000')
    const key = await mintKey(api.url)
    expect(key.scopes).to.include('keys:manage')
    const page = await browser.newPage()
    await page.goto(`${api.url}/docs`)
    await page.waitForSelector('.opblock', { timeout: 30_000 })

    await page.locator('.auth-wrapper button.authorize').click()
    const bearerScheme = page.locator('.modal-ux .auth-container', { has: page.locator('h4 code', { hasText: /^bearerApiKey$/ }) })
    await bearerScheme.locator('input#auth-bearer-value').fill(key.api_key)
    await bearerScheme.locator('button.authorize').click()
    await bearerScheme.locator('button.btn-done').click()
    await page.locator('.modal-ux').waitFor({ state: 'detached' })

    // deepLinking gives each operation the id operations-<tag>-<operationId>.
    const operation = page.locator('#operations-keys-listApiKeys')
    await operation.locator('.opblock-summary-control').click()
    await operation.locator('button.try-out__btn').click()
    const calls: BrowserRequest[] = []
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/public/partner/api-keys') calls.push(r)
    })
    await operation.locator('button.execute').click()
    const status = operation.locator('.live-responses-table tr.response .response-col_status')
    await status.waitFor()

    const expectedUrl = `${api.url}/public/partner/api-keys?limit=20`
    expect(await operation.locator('.request-url pre').innerText()).to.equal(expectedUrl)
    expect(calls.map((r) => [r.method(), r.url(), r.headers()['authorization']])).to.deep.equal([['GET', expectedUrl, `Bearer ${key.api_key}`]])
    expect((await status.innerText()).trim()).to.equal('200')
    // The listing is this key's client's: the server knew the key it was sent.
    const listed = (await (await calls[0]?.response())?.json()) as { data: { api_key_id: string }[] }
    expect(listed.data.map((k) => k.api_key_id)).to.deep.equal([key.api_key_id])
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
