import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { openDatabase } from '@lendgate/adapters'
import { emptyDatabase, type ScratchDatabase } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import type { Config } from '../../src/config.js'
import { startCodeReceiver } from '../../test/support/code-receiver.js'
import { startTestServer, type TestServer } from '../../test/support/test-server.js'

/**
 * What every browser test of the operator console stands on: a scratch database with operators the
 * CLI added, the API serving the console on it, Debian's Chromium driven by playwright-core, and
 * the checks each visited page passes (its Content-Security-Policy kept, no page error, no serious
 * or critical accessibility violation by axe-core), each page kept as a screenshot under
 * `.build/console-screenshots/` (CI keeps them as artefacts).
 */

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium'
export const ROOT = fileURLToPath(new URL('../../../../', import.meta.url))
const SCREENSHOTS = join(ROOT, '.build', 'console-screenshots')
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** An operator's sign-in. */
export type Operator = { readonly email: string; readonly password: string }

/** `lendgate …` as an operator runs it, on the database at `url`; its JSON answer. */
export const lendgate = (url: string, stdin: string | undefined, ...argv: string[]): Record<string, any> => {
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

/** Adds an operator of `role` with the CLI (its password read from stdin), as a lender's admin does. */
export const addOperator = (url: string, role: 'reviewer' | 'credit' | 'servicing' | 'admin', operator: Operator): Operator => {
  lendgate(url, `${operator.password}\n`, 'operators', 'add', '--email', operator.email, '--role', role, '--password-from', 'stdin')
  return operator
}

/** The API serving the console on a scratch database, a receiver of verification codes, and Chromium. */
export type ConsoleRig = {
  readonly scratch: ScratchDatabase & { readonly url: string }
  readonly server: TestServer
  readonly receiver: Awaited<ReturnType<typeof startCodeReceiver>>
  readonly browser: Browser
  readonly stop: () => Promise<void>
}

/**
 * Starts a rig: `addOperators` runs the CLI on the database before the API serves it (the CLI
 * migrates it); `overrides` are the server's configuration beyond the verification receiver and
 * the background jobs every console test runs.
 */
export const startConsoleRig = async (addOperators: (databaseUrl: string) => void, overrides: Partial<Config> = {}): Promise<ConsoleRig> => {
  const scratch = await emptyDatabase(process.env['TEST_DATABASE_URL'] === undefined ? 'embedded' : 'postgres')
  addOperators(scratch.url)
  const receiver = await startCodeReceiver()
  const server = await startTestServer(
    { name: 'console', kind: scratch.database.kind, open: () => openDatabase({ url: scratch.url, dataDir: '' }) },
    { verificationDeliveryUrl: receiver.url, runJobs: true, ...overrides },
  )
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] })
  return {
    scratch,
    server,
    receiver,
    browser,
    stop: async () => {
      await browser.close()
      await server.stop()
      await receiver.close()
      await scratch.drop()
    },
  }
}

/** What the page said about its policy: each violation Chromium reported, and each console error. */
export type Watch = { readonly violations: string[]; readonly errors: string[] }

/** A new page of `context`, with what it reports watched. */
export const watched = async (context: BrowserContext): Promise<{ readonly page: Page; readonly watch: Watch }> => {
  const page = await context.newPage()
  const watch: Watch = { violations: [], errors: [] }
  page.on('console', (message) => {
    if (message.type() === 'error') watch.errors.push(message.text())
    if (/Content Security Policy/i.test(message.text())) watch.violations.push(message.text())
  })
  page.on('pageerror', (error) => watch.errors.push(error.message))
  return { page, watch }
}

/**
 * No Content-Security-Policy violation, and no error on the page but the failed answers Chromium
 * logs of the statuses `expected` (401 while no one is signed in, a refused action's 403).
 */
export const expectQuiet = (watch: Watch, expected: readonly number[]): void => {
  expect(watch.violations, 'Content-Security-Policy violations').to.deep.equal([])
  const answered = new RegExp(`the server responded with a status of (${expected.join('|')})\\b`)
  expect(watch.errors.filter((e) => !answered.test(e)), 'errors on the page').to.deep.equal([])
}

/** One rule axe-core found broken, as axe reports it. */
type AxeViolation = {
  readonly id: string
  readonly impact: string | null
  readonly help: string
  readonly nodes: readonly { readonly target: readonly unknown[]; readonly failureSummary?: string }[]
}

/** What axe says of one element: where it is, and why it fails (a contrast's colours and ratio), on one line. */
const nodeLine = (node: AxeViolation['nodes'][number]): string =>
  `${node.target.join(' ')}${node.failureSummary === undefined ? '' : ` (${node.failureSummary.replace(/^Fix (any|all) of the following:\s*/, '').replace(/\s+/g, ' ')})`}`

/**
 * The serious and critical accessibility violations axe-core finds on the page as it is now, one
 * line each: the rule, its impact, what it asks, and each element that breaks it with axe's reason. axe is evaluated
 * through the DevTools protocol, which the page's Content-Security-Policy does not govern, so the
 * policy stays in force for the page's own scripts and styles.
 */
export const seriousViolations = async (page: Page): Promise<string[]> => {
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE_SOURCE)
  const violations = await page.evaluate<AxeViolation[]>(`axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations)`)
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${v.help}: ${nodeLine(n)}`))
}

/**
 * Checks the page as it settled, and keeps it as `name`.png: no serious or critical accessibility
 * violation; the screenshot is taken with transitions finished (a notification fading in).
 */
export const checkPage = async (page: Page, name: string): Promise<void> => {
  mkdirSync(SCREENSHOTS, { recursive: true })
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true, animations: 'disabled' })
  expect(await seriousViolations(page), `serious or critical accessibility violations on ${name}`).to.deep.equal([])
}

/** `text` as a regular expression that matches it literally. */
const literally = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The operator's menu button, which names the signed-in operator by e-mail. */
const operatorMenu = (page: Page, operator: Operator) => page.getByRole('button', { name: new RegExp(literally(operator.email), 'i') })

/**
 * Opens the console and signs in with the form; done once the console shows who is signed in and
 * the page it lands on has read what it shows, so that a click that follows is not undone by the
 * sign-in's own redirect.
 */
export const signIn = async (page: Page, url: string, operator: Operator): Promise<void> => {
  await page.goto(`${url}/console/`)
  await page.getByLabel('E-mail').fill(operator.email)
  await page.getByLabel('Password').fill(operator.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await operatorMenu(page, operator).waitFor()
  await page.waitForLoadState('networkidle')
}

/** Signs out from the user menu, back to the sign-in form. */
export const signOut = async (page: Page, operator: Operator): Promise<void> => {
  await operatorMenu(page, operator).click()
  await page.getByRole('menuitem', { name: 'Logout' }).click()
  await page.getByLabel('E-mail').waitFor()
}

/**
 * Chooses the option showing `choice` of a list's filter `label` (a select), as an operator does;
 * react-admin names the empty option, which shows "All", "Clear value".
 */
export const chooseFilter = async (page: Page, label: string, choice: string): Promise<void> => {
  await page.getByRole('combobox', { name: label, exact: true }).click()
  await page.getByRole('option').filter({ hasText: new RegExp(`^${literally(choice)}$`) }).click()
}
