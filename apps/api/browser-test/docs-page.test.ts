import { createServer, request as forward, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { expect } from 'chai'
import { webhookUrlGuard } from '@lendgate/adapters'
import { chromium, type Browser, type Page, type Request as BrowserRequest } from 'playwright-core'
import { GUIDES, guideFile } from '../src/openapi/guides.js'
import { mintKey } from '../test/support/client.js'
import { MINT_SECRET, startInMemoryServer, TEST_DNS, type TestServer } from '../test/support/test-server.js'

/**
 * In a real browser (Debian's Chromium, driven by playwright-core; `.ci/run` installs it):
 * the reference page renders the operations, its "Try it out" calls the server that served it,
 * and a page on another origin can call the API through a CORS preflight only when its origin
 * is allowed; "Try it out" with the prefilled examples succeeds (issue 58); and the page works
 * behind a gateway that serves the API under a path prefix. Run with `pnpm test:browser`.
 */

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium'

/**
 * A gateway on its own port serving `target` under `prefix`: it strips the prefix, forwards the
 * request (method, headers, body) and passes the answer through unchanged; 404 outside the prefix.
 */
const gateway = async (target: string, prefix: string): Promise<{ readonly url: string; readonly close: () => Promise<void> }> => {
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/'
    if (path !== prefix && !path.startsWith(`${prefix}/`) && !path.startsWith(`${prefix}?`)) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not under the gateway prefix')
      return
    }
    const upstream = forward(`${target}${path.slice(prefix.length)}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    upstream.on('error', () => res.headersSent || res.writeHead(502).end())
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

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

type OpenApiDocument = {
  readonly paths: Record<string, Record<string, { readonly operationId?: string; readonly requestBody?: { readonly content: Record<string, { readonly example?: unknown }> } }>>
}

/** The example the document gives `operationId`'s JSON request body, which Swagger UI prefills. */
const prefilledExample = (document: OpenApiDocument, operationId: string): unknown => {
  for (const item of Object.values(document.paths))
    for (const operation of Object.values(item)) if (operation.operationId === operationId) return operation.requestBody?.content['application/json']?.example
  throw new Error(`no operation ${operationId} in the document`)
}

/** Opens /docs (at `docsUrl`) and waits for the operations. */
const openReference = async (browser: Browser, docsUrl: string): Promise<Page> => {
  const page = await browser.newPage()
  await page.goto(docsUrl)
  await page.waitForSelector('.opblock', { timeout: 30_000 })
  return page
}

/** Authorizes `scheme` (`bearerApiKey` or an apiKey scheme such as `mintKey`) with `value` in the Authorize dialog. */
const authorize = async (page: Page, scheme: string, value: string): Promise<void> => {
  await page.locator('.auth-wrapper button.authorize').click()
  const container = page.locator('.modal-ux .auth-container', { has: page.locator('h4 code', { hasText: new RegExp(`^${scheme}$`) }) })
  await container.locator(scheme === 'bearerApiKey' ? 'input#auth-bearer-value' : 'input#api_key_value').fill(value)
  await container.locator('button.authorize').click()
  // Authorized: the dialog shows the scheme's Logout button.
  await container.locator('button', { hasText: 'Logout' }).waitFor()
  await container.locator('button.btn-done').click()
  await page.locator('.modal-ux').waitFor({ state: 'detached' })
}

type Executed = {
  /** The status the page shows in its live response. */
  readonly shown: string
  /** The calls the browser made to the operation's path. */
  readonly calls: readonly { readonly method: string; readonly url: string; readonly headers: Record<string, string>; readonly body: unknown; readonly status: number | undefined; readonly answer: string }[]
}

/**
 * Expands operation `#operations-<tag>-<operationId>`, clicks "Try it out" then "Execute", touching
 * nothing in between (the parameters and the body are Swagger UI's prefill), and returns what the
 * page shows and what the browser sent to `pathname`.
 */
const tryItOut = async (page: Page, tag: string, operationId: string, pathname: string): Promise<Executed> => {
  const operation = page.locator(`#operations-${tag}-${operationId}`)
  await operation.locator('.opblock-summary-control').click()
  await operation.locator('button.try-out__btn').click()
  const calls: BrowserRequest[] = []
  const listener = (r: BrowserRequest): void => {
    if (new URL(r.url()).pathname === pathname) calls.push(r)
  }
  page.on('request', listener)
  await operation.locator('button.execute').click()
  const status = operation.locator('.live-responses-table tr.response .response-col_status')
  await status.waitFor({ timeout: 30_000 })
  page.off('request', listener)
  return {
    shown: (await status.innerText()).trim(),
    calls: await Promise.all(
      calls.map(async (r) => {
        const response = await r.response()
        const sent = r.postData()
        return {
          method: r.method(),
          url: r.url(),
          headers: r.headers(),
          body: sent === null ? undefined : (JSON.parse(sent) as unknown),
          status: response?.status(),
          answer: (await response?.text()) ?? '',
        }
      }),
    ),
  }
}

/** What to say when a prefilled example is not answered 2xx: the operation, what was sent and the answer. */
const describeCalls = (operationId: string, executed: Executed): string =>
  `${operationId} (page shows ${executed.shown}):\n` + executed.calls.map((c) => `${c.method} ${c.url}\nsent ${JSON.stringify(c.body)}\nanswered ${c.status} ${c.answer}`).join('\n')

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

  it('shows the partner guides above the operations, each under its title', async () => {
    const page = await browser.newPage()
    await page.goto(`${api.url}/docs`)
    await page.waitForSelector('.info h1', { timeout: 30_000 })
    // The document's title, then each guide's.
    const [title, ...guides] = await page.locator('.info h1').allTextContents()
    expect(title).to.contain('Lendgate partner lending API')
    expect(guides).to.deep.equal(GUIDES.map((name) => /^# (.+)$/m.exec(guideFile(name))![1]!))
    await page.close()
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
    // Paths are relative to the servers (`<base>/public/v1`, `<base>/public`).
    expect(await page.locator('.opblock-summary-path[data-path="/applications"]').count()).to.be.greaterThan(0)
    expect(await page.locator('.opblock-summary-path[data-path^="/public/"]').count()).to.equal(0)
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
      if (new URL(r.url()).pathname === '/public/v1/partner/api-keys') calls.push(r)
    })
    await operation.locator('button.execute').click()
    const status = operation.locator('.live-responses-table tr.response .response-col_status')
    await status.waitFor()

    // The first server, version 1 under its path segment.
    const expectedUrl = `${api.url}/public/v1/partner/api-keys?limit=20`
    expect(await operation.locator('.request-url pre').innerText()).to.equal(expectedUrl)
    expect(calls.map((r) => [r.method(), r.url(), r.headers()['authorization']])).to.deep.equal([['GET', expectedUrl, `Bearer ${key.api_key}`]])
    expect((await status.innerText()).trim()).to.equal('200')
    // The listing is this key's client's: the server knew the key it was sent.
    const listed = (await (await calls[0]?.response())?.json()) as { data: { api_key_id: string }[] }
    expect(listed.data.map((k) => k.api_key_id)).to.deep.equal([key.api_key_id])
    await page.close()
  })

  describe('"Try it out" with the prefilled examples, changing nothing (issue 58)', () => {
    let document: OpenApiDocument
    before(async () => {
      document = (await (await fetch(`${api.url}/public/openapi.json`)).json()) as OpenApiDocument
    })

    it('mints a key (POST /partner/api-keys) with the mint secret given in the Authorize dialog: 201', async () => {
      const page = await openReference(browser, `${api.url}/docs`)
      await authorize(page, 'mintKey', MINT_SECRET)
      const executed = await tryItOut(page, 'keys', 'mintApiKey', '/public/v1/partner/api-keys')
      const explain = describeCalls('mintApiKey', executed)
      expect(executed.calls.map((c) => [c.method, c.url]), explain).to.deep.equal([['POST', `${api.url}/public/v1/partner/api-keys`]])
      const [call] = executed.calls
      expect(call?.headers['x-partner-mint-key'], explain).to.equal(MINT_SECRET)
      expect(call?.body, explain).to.deep.equal(prefilledExample(document, 'mintApiKey'))
      expect(executed.shown, explain).to.match(/^2\d\d$/)
      expect(call?.status, explain).to.equal(Number(executed.shown))
      expect((JSON.parse(call?.answer ?? '{}') as { api_key?: string }).api_key, explain).to.match(/^lgk_/)
      await page.close()
    })

    it('opens an onboarding session (POST /onboarding-sessions) with a bearer key: 2xx', async () => {
      const key = await mintKey(api.url)
      const page = await openReference(browser, `${api.url}/docs`)
      await authorize(page, 'bearerApiKey', key.api_key)
      const executed = await tryItOut(page, 'onboarding', 'createOnboardingSession', '/public/v1/onboarding-sessions')
      const explain = describeCalls('createOnboardingSession', executed)
      expect(executed.calls.map((c) => [c.method, c.url, c.headers['authorization']]), explain).to.deep.equal([['POST', `${api.url}/public/v1/onboarding-sessions`, `Bearer ${key.api_key}`]])
      expect(executed.calls[0]?.body, explain).to.deep.equal(prefilledExample(document, 'createOnboardingSession'))
      expect(executed.shown, explain).to.match(/^2\d\d$/)
      expect(executed.calls[0]?.status, explain).to.equal(Number(executed.shown))
      await page.close()
    })

    it('registers a webhook endpoint (POST /webhook-endpoints) with a bearer key: 2xx', async () => {
      // These machines have no DNS: the in-memory server resolves only TEST_DNS's hosts, so this
      // one also resolves the example's host (`.example` is reserved: no real resolver knows it).
      const exampleHost = new URL((prefilledExample(document, 'createWebhookEndpoint') as { url: string }).url).hostname
      const dns: Readonly<Record<string, readonly string[]>> = { ...TEST_DNS, [exampleHost]: ['93.184.216.34'] }
      const hooks = await startInMemoryServer(() => ({
        urlGuard: webhookUrlGuard({ allowHttp: false, allowPrivateNetworks: false, resolve: async (host) => dns[host] ?? [] }),
      }))
      try {
        const key = await mintKey(hooks.url)
        const page = await openReference(browser, `${hooks.url}/docs`)
        await authorize(page, 'bearerApiKey', key.api_key)
        const executed = await tryItOut(page, 'events', 'createWebhookEndpoint', '/public/v1/webhook-endpoints')
        const explain = describeCalls('createWebhookEndpoint', executed)
        expect(executed.calls.map((c) => [c.method, c.url, c.headers['authorization']]), explain).to.deep.equal([['POST', `${hooks.url}/public/v1/webhook-endpoints`, `Bearer ${key.api_key}`]])
        expect(executed.calls[0]?.body, explain).to.deep.equal(prefilledExample(document, 'createWebhookEndpoint'))
        expect(executed.shown, explain).to.match(/^2\d\d$/)
        expect(executed.calls[0]?.status, explain).to.equal(Number(executed.shown))
        await page.close()
      } finally {
        await hooks.stop()
      }
    })
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

describe('the reference page behind a gateway path prefix, in Chromium', function () {
  this.timeout(60_000)
  let browser: Browser
  let api: TestServer
  let proxy: Awaited<ReturnType<typeof gateway>>
  before(async () => {
    api = await startInMemoryServer()
    proxy = await gateway(api.url, '/lending')
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
  })
  after(async () => {
    await browser?.close()
    await proxy?.close()
    await api?.stop()
  })

  it('loads its assets and the document under the prefix, none answered 404', async () => {
    const page = await browser.newPage()
    const requested: BrowserRequest[] = []
    page.on('request', (r) => requested.push(r))
    await page.goto(`${proxy.url}/lending/docs`)
    await page.waitForSelector('.opblock', { timeout: 30_000 })
    const urls = requested.map((r) => r.url())
    // The page, its three assets and the document, all through the gateway.
    for (const path of ['docs', 'docs/swagger-ui.css', 'docs/swagger-ui-bundle.js', 'docs/reference.js', 'public/openapi.json'])
      expect(urls, urls.join('\n')).to.include(`${proxy.url}/lending/${path}`)
    expect(urls.filter((url) => !url.startsWith(`${proxy.url}/lending/`)), urls.join('\n')).to.deep.equal([])
    const statuses = await Promise.all(requested.map(async (r) => [r.url(), (await r.response())?.status()] as const))
    expect(statuses.filter(([, status]) => status === undefined || status === 404)).to.deep.equal([])
    expect(await page.locator('.opblock-summary-path[data-path="/applications"]').count()).to.be.greaterThan(0)
    await page.close()
  })

  it('redirects /docs/ (301) to /docs, relatively, so that the prefix is kept', async () => {
    const direct = await fetch(`${api.url}/docs/`, { redirect: 'manual' })
    expect(direct.status).to.equal(301)
    expect(new URL(direct.headers.get('location') ?? '', `${api.url}/docs/`).href).to.equal(`${api.url}/docs`)
    const prefixed = await fetch(`${proxy.url}/lending/docs/`, { redirect: 'manual' })
    expect(prefixed.status).to.equal(301)
    expect(new URL(prefixed.headers.get('location') ?? '', `${proxy.url}/lending/docs/`).href).to.equal(`${proxy.url}/lending/docs`)
  })
})
