import { spawnSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { openDatabase } from '@lendgate/adapters'
import { emptyDatabase, type ScratchDatabase } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { onboardBorrower, submittedSession, type Borrower } from '../test/support/borrower.js'
import { bearer, mintKey, request } from '../test/support/client.js'
import { startCodeReceiver } from '../test/support/code-receiver.js'
import { startTestServer, type TestServer } from '../test/support/test-server.js'

/**
 * The operator console in a real browser (issue 60; Debian's Chromium driven by playwright-core):
 * operators added with the CLI, as a lender's admin adds them, sign in; a reviewer approves an
 * onboarding session from its queue and is shown the server's refusal of a credit decision; a
 * credit officer approves the application; no page breaks its Content-Security-Policy. Each page
 * is kept as a screenshot under `.build/console-screenshots/` (CI keeps them as artefacts).
 */

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium'
const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const SCREENSHOTS = join(ROOT, '.build', 'console-screenshots')

/** `lendgate …` as an operator runs it, on the database at `url`; its JSON answer. */
const lendgate = (url: string, stdin: string | undefined, ...argv: string[]): Record<string, any> => {
  const result = spawnSync(join(ROOT, 'node_modules/.bin/tsx'), ['--conditions=@lendgate/source', 'apps/cli/src/main.ts', ...argv], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: url, NODE_ENV: 'test' },
    encoding: 'utf8',
    ...(stdin === undefined ? {} : { input: stdin }),
    timeout: 60_000,
  })
  if (result.status !== 0) throw new Error(`lendgate ${argv.join(' ')} exited ${result.status}: ${result.stderr}`)
  return JSON.parse(result.stdout) as Record<string, any>
}

/** What the page said about its policy: each violation Chromium reported, and each console error. */
type Watch = { readonly violations: string[]; readonly errors: string[] }

const watched = async (context: BrowserContext): Promise<{ readonly page: Page; readonly watch: Watch }> => {
  const page = await context.newPage()
  const watch: Watch = { violations: [], errors: [] }
  page.on('console', (message) => {
    if (message.type() === 'error') watch.errors.push(message.text())
    if (/Content Security Policy/i.test(message.text())) watch.violations.push(message.text())
  })
  page.on('pageerror', (error) => watch.errors.push(error.message))
  return { page, watch }
}

const screenshot = async (page: Page, name: string): Promise<void> => {
  mkdirSync(SCREENSHOTS, { recursive: true })
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true })
}

const signIn = async (page: Page, url: string, email: string, password: string): Promise<void> => {
  await page.goto(`${url}/console/`)
  await page.getByLabel('E-mail').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
}

describe('the operator console, in Chromium', function () {
  this.timeout(180_000)
  let scratch: ScratchDatabase & { readonly url: string }
  let server: TestServer
  let receiver: Awaited<ReturnType<typeof startCodeReceiver>>
  let browser: Browser
  let reviewer: { readonly email: string; readonly password: string }
  let credit: { readonly email: string; readonly password: string }

  before(async () => {
    scratch = await emptyDatabase(process.env['TEST_DATABASE_URL'] === undefined ? 'embedded' : 'postgres')
    // As a lender's admin adds them: the CLI on the database, before the API serves it (the CLI migrates it).
    const added = lendgate(scratch.url, undefined, 'operators', 'add', '--email', 'Ada.Reviewer@lender.example', '--role', 'reviewer')
    reviewer = { email: 'ada.reviewer@lender.example', password: added['password'] as string }
    credit = { email: 'grace.credit@lender.example', password: 'a careful credit passphrase' }
    lendgate(scratch.url, `${credit.password}\n`, 'operators', 'add', '--email', credit.email, '--role', 'credit', '--password-from', 'stdin')
    receiver = await startCodeReceiver()
    server = await startTestServer({ name: 'console', kind: scratch.database.kind, open: () => openDatabase({ url: scratch.url, dataDir: '' }) }, { verificationDeliveryUrl: receiver.url })
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
  })

  after(async () => {
    await browser?.close()
    await server?.stop()
    await receiver?.close()
    await scratch?.drop()
  })

  it('serves the page with a policy of its own and a fresh nonce each time, and its files from this origin', async () => {
    const [first, second] = [await fetch(`${server.url}/console/`), await fetch(`${server.url}/console/`)]
    expect(first.status).to.equal(200)
    const policy = first.headers.get('content-security-policy') ?? ''
    expect(policy).to.match(/^default-src 'none'; script-src 'self'; style-src 'self' 'nonce-[A-Za-z0-9+/]{22}=='; img-src 'self' data:; font-src 'self'; connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'$/)
    expect(second.headers.get('content-security-policy')).to.not.equal(policy)
    const page = await first.text()
    const nonce = /'nonce-([^']+)'/.exec(policy)?.[1]
    expect(page).to.include(`<meta property="csp-nonce" nonce="${nonce}">`)
    expect(page).to.not.include('LENDGATE_CSP_NONCE')
    expect(page).to.not.match(/https?:\/\//)
    const redirect = await fetch(`${server.url}/console`, { redirect: 'manual' })
    expect([redirect.status, redirect.headers.get('location')]).to.deep.equal([302, 'console/'])
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(page)?.[1]
    const asset = await fetch(`${server.url}/console/${script}`)
    expect([asset.status, asset.headers.get('content-type'), asset.headers.get('cache-control')]).to.deep.equal([200, 'text/javascript; charset=utf-8', 'public, max-age=31536000, immutable'])
    expect((await fetch(`${server.url}/console/assets/none.js`)).status).to.equal(404)
  })

  it('lets a reviewer approve an onboarding session, shows it the refusal of a credit decision, and a credit officer approve the application', async () => {
    // Seeded through the API, as partners would: a session awaiting review, and a borrower's submitted application.
    const sessionId = await submittedSession(server, receiver, await mintKey(server.url))
    const borrower: Borrower = await onboardBorrower(server, receiver)
    const draft = await request(server.url, '/public/applications', { method: 'POST', headers: bearer(borrower.key.api_key), json: { product_id: '5b0c1d2e-0001-4a00-8000-000000000001', amount: 1_200_000, currency: 'USD', term_months: 12 } })
    const applicationId = draft.body.application_id as string
    expect((await request(server.url, `/public/applications/${applicationId}/submit`, { method: 'POST', headers: bearer(borrower.key.api_key), json: {} })).status).to.equal(200)

    const context = await browser.newContext({ viewport: { width: 1366, height: 800 } })
    const { page, watch } = await watched(context)
    await screenshot(await (async () => (await page.goto(`${server.url}/console/`), page))(), '01-sign-in')
    await signIn(page, server.url, reviewer.email.toUpperCase(), reviewer.password)
    const row = page.getByRole('row', { name: new RegExp(sessionId) })
    await row.waitFor()
    // The cookie is the session's: HttpOnly, Secure, SameSite=Strict, kept by Chromium over http://127.0.0.1.
    const [cookie] = await context.cookies()
    expect(cookie).to.deep.include({ name: '__Host-lendgate_operator', httpOnly: true, secure: true, sameSite: 'Strict', path: '/' })
    await screenshot(page, '02-onboarding-review')
    await row.getByRole('button', { name: 'Approve' }).click()
    await page.getByText('The session is approved: its party is created.').waitFor()
    await row.waitFor({ state: 'detached' })
    const approved = await request(server.url, `/internal/audit-events?subject_id=${sessionId}&action=onboarding_session.approved`, { headers: bearer('test-internal-token-0123456789abcdef') })
    expect(approved.body.data.map((e: { actor: { type: string; id?: string } }) => e.actor.type === 'operator' && typeof e.actor.id)).to.deep.equal(['string'])

    await page.getByRole('menuitem', { name: 'Credit decisions' }).click()
    const application = page.getByRole('row', { name: new RegExp(applicationId) })
    await application.waitFor()
    await application.getByRole('button', { name: 'Approve' }).click()
    await page.getByText('The reviewer role may not do this: it needs the decide_credit permission.').waitFor()
    await screenshot(page, '03-refused-credit-decision')
    expect(await application.isVisible()).to.equal(true)

    await page.getByRole('button', { name: /Profile|ada\.reviewer/i }).first().click()
    await page.getByRole('menuitem', { name: 'Logout' }).click()
    await page.getByLabel('E-mail').waitFor()
    await signIn(page, server.url, credit.email, credit.password)
    await page.getByRole('menuitem', { name: 'Credit decisions' }).click()
    const waiting = page.getByRole('row', { name: new RegExp(applicationId) })
    await waiting.waitFor()
    await screenshot(page, '04-credit-decisions')
    await waiting.getByRole('button', { name: 'Approve' }).click()
    await page.getByText('The application is approved: its loan is booked.').waitFor()
    await waiting.waitFor({ state: 'detached' })
    const booked = await request(server.url, `/public/parties/${borrower.partyId}/loans`, { headers: bearer(borrower.key.api_key) })
    expect(booked.body.data.map((loan: { application_id: string }) => loan.application_id)).to.deep.equal([applicationId])

    expect(watch.violations, 'Content-Security-Policy violations').to.deep.equal([])
    // The only errors are answers Chromium logs as failed resources: 401 while no one is signed in, the refused decision's 403.
    expect(watch.errors.filter((e) => !/the server responded with a status of (401|403)\b/.test(e)), 'errors on the page').to.deep.equal([])
    await context.close()
  })
})
