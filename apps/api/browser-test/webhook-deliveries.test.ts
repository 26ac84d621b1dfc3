import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import type { Page } from 'playwright-core'
import { bearer, mintKey, request, type Reply } from '../test/support/client.js'
import { sessionCookieOf, signIn as signInOverHttp } from '../test/support/operators.js'
import { partnerCalls, startWebhookReceiver } from '../test/support/partner-journey.js'
import { INTERNAL_TOKEN } from '../test/support/test-server.js'
import { addOperator, checkPage, chooseFilter, expectQuiet, signIn, signOut, startConsoleRig, watched, type ConsoleRig, type Operator } from './support/console-harness.js'

/**
 * Webhook deliveries in the operator console, in Chromium (docs/console.md): a partner's test-world
 * endpoint on a receiver that answers 503, so its delivery of `loan.booked` fails after its retries.
 * A servicing operator finds it and is refused sending it again, in the server's words; an admin
 * finds it among the failed deliveries, reads its attempts, sends it again once the receiver
 * answers 204, and sees it delivered. An admin walks every queue of the console, each page
 * checked; and an operator signs in and opens a delivery with the keyboard alone.
 */

const TEST_WORLD = { 'Lendgate-Mode': 'test' }

/** Polls `probe` until it answers, for at most `ms`. */
const eventually = async <A>(what: string, probe: () => Promise<A | undefined>, ms = 20_000): Promise<A> => {
  for (const until = Date.now() + ms; ; await new Promise((resolve) => setTimeout(resolve, 100))) {
    const found = await probe()
    if (found !== undefined) return found
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
  }
}

/** The name of what has the keyboard focus: its `aria-label`, else its label's text (a field, a switch), else its own text. */
const focusedName = (page: Page): Promise<string> =>
  page.evaluate<string>(`(() => {
    const el = document.activeElement
    return (el?.getAttribute('aria-label') ?? el?.labels?.[0]?.textContent ?? el?.textContent ?? '').replace(/\\s+/g, ' ').trim()
  })()`)

/** Presses Tab until what has the focus is named `name`, at most `max` times. */
const tabTo = async (page: Page, name: string | RegExp, max = 60): Promise<void> => {
  const named = (text: string) => (typeof name === 'string' ? text === name : name.test(text))
  const seen: string[] = []
  for (let i = 0; i < max; i += 1) {
    await page.keyboard.press('Tab')
    const focused = await focusedName(page)
    if (named(focused)) return
    seen.push(focused)
  }
  throw new Error(`Tab never reached ${String(name)}; it reached: ${seen.join(' | ')}`)
}

describe('webhook deliveries in the operator console, in Chromium', function () {
  this.timeout(180_000)
  let rig: ConsoleRig
  let hooks: Awaited<ReturnType<typeof startWebhookReceiver>>
  const admin: Operator = { email: 'edsger.admin@lender.example', password: 'a thorough admin passphrase' }
  const servicing: Operator = { email: 'mary.servicing@lender.example', password: 'a steady servicing passphrase' }
  const { ok, withLoan } = partnerCalls(() => rig.server.url)
  /** What the partner's journey left: the failing endpoint, its failed delivery, and the records on the way. */
  let seeded: { readonly endpointId: string; readonly eventId: string; readonly hookPath: string; readonly sessionId: string; readonly applicationId: string; readonly loanId: string; readonly requestId: string }

  const internal = (path: string): Promise<Reply> => request(rig.server.url, path, { headers: { ...bearer(INTERNAL_TOKEN), ...TEST_WORLD } })
  const deliveryOf = async (endpointId: string, eventId: string): Promise<Reply['body']> => {
    const reply = await internal(`/internal/webhook-endpoints/${endpointId}/deliveries/${eventId}`)
    expect(reply.status, reply.text).to.equal(200)
    return reply.body
  }

  before(async () => {
    hooks = await startWebhookReceiver()
    rig = await startConsoleRig(
      (url) => {
        addOperator(url, 'admin', admin)
        addOperator(url, 'servicing', servicing)
      },
      { webhookAllowHttp: true, webhookAllowPrivateNetworks: true, webhookRetrySchedule: [0, 1] },
    )
    // A partner's test key, its endpoint down (503), and the journey to a booked loan, whose loan.booked it is sent.
    hooks.answer(503)
    const partner = await mintKey(rig.server.url, { environment: 'test' })
    const hookPath = `/down-${randomUUID()}`
    const endpoint = await ok(partner, 'POST', '/public/webhook-endpoints', { url: `${hooks.base}${hookPath}`, enabled_events: ['loan.booked'] }, 201)
    const endpointId = endpoint.webhook_endpoint_id as string
    const journey = await withLoan(partner)
    const failed = await eventually('the delivery to fail', async () => {
      const reply = await internal(`/internal/webhook-deliveries?endpoint_id=${endpointId}&status=failed`)
      return (reply.body.data as Record<string, unknown>[] | undefined)?.[0]
    })
    expect(failed).to.deep.include({ type: 'loan.booked', status: 'failed', attempts: 2, last_error: 'HTTP 503' })
    // A charge-off asked for by the servicing operator, for the Approvals queue.
    const session = await signInOverHttp(rig.server, servicing.email, servicing.password)
    expect(session.status, session.text).to.equal(201)
    const asked = await request(rig.server.url, '/internal/operator-requests', {
      method: 'POST',
      headers: { Cookie: sessionCookieOf(session), 'X-CSRF-Token': session.body.csrf_token as string, ...TEST_WORLD },
      json: { kind: 'loan_charge_off', loan_id: journey.loanId, reason: 'Borrower ceased trading' },
    })
    expect(asked.status, asked.text).to.equal(201)
    seeded = {
      endpointId,
      eventId: failed.event_id as string,
      hookPath,
      sessionId: journey.sessionId,
      applicationId: journey.applicationId,
      loanId: journey.loanId,
      requestId: asked.body.operator_request_id as string,
    }
  })

  after(async () => {
    await rig?.stop()
    await hooks?.close()
  })

  /** Signs in, turns Test data on and opens Webhook deliveries. */
  const openDeliveries = async (page: Page, operator: Operator): Promise<void> => {
    await signIn(page, rig.server.url, operator)
    await page.getByRole('switch', { name: 'Test data' }).check()
    await page.getByText('TEST DATA', { exact: true }).waitFor()
    await page.getByRole('menuitem', { name: 'Webhook deliveries' }).click()
    await page.waitForURL(/#\/webhook-deliveries(\?|$)/)
    await page.getByLabel('Endpoint id').waitFor()
  }

  it('lets an operator sign in and open a failed delivery with the keyboard alone', async () => {
    const context = await rig.browser.newContext({ viewport: { width: 1366, height: 800 } })
    const { page, watch } = await watched(context)
    await page.goto(`${rig.server.url}/console/`)
    // The e-mail field has the focus as the page opens; Enter in the password submits the form.
    await page.getByLabel('E-mail').waitFor()
    expect(await focusedName(page)).to.match(/^E-mail/)
    await page.keyboard.type(admin.email)
    await tabTo(page, /^Password/, 1)
    await page.keyboard.type(admin.password)
    await page.keyboard.press('Enter')
    await page.getByRole('menuitem', { name: 'Webhook deliveries' }).waitFor()
    await page.waitForLoadState('networkidle')
    await tabTo(page, 'Test data')
    await page.keyboard.press('Space')
    await page.getByText('TEST DATA', { exact: true }).waitFor()
    await tabTo(page, 'Webhook deliveries')
    await page.keyboard.press('Enter')
    await page.getByRole('row', { name: new RegExp(seeded.eventId) }).waitFor()
    await tabTo(page, `Open delivery ${seeded.eventId}`)
    await checkPage(page, '20-keyboard-focus-on-delivery')
    await page.keyboard.press('Enter')
    await page.getByRole('heading', { level: 1, name: `Webhook delivery ${seeded.eventId}` }).waitFor()
    // The page's action is reached by keyboard too.
    await tabTo(page, `Send again ${seeded.eventId}`)
    expectQuiet(watch, [401])
    await context.close()
  })

  it('shows a servicing operator the refusal of sending a delivery again, and lets an admin send it again once the endpoint is back, then shows it delivered', async () => {
    const { endpointId, eventId, hookPath } = seeded
    const context = await rig.browser.newContext({ viewport: { width: 1366, height: 800 } })
    const { page, watch } = await watched(context)

    // The servicing operator finds the delivery and is refused sending it again, in the server's words.
    await openDeliveries(page, servicing)
    await page.getByRole('row', { name: new RegExp(eventId) }).getByRole('link', { name: `Open delivery ${eventId}` }).click()
    await page.getByRole('heading', { level: 1, name: `Webhook delivery ${eventId}` }).waitFor()
    await page.getByRole('button', { name: `Send again ${eventId}` }).click()
    await page.getByText('The servicing role may not do this: it needs the operate_rails permission.').waitFor()
    await checkPage(page, '21-delivery-send-again-refused')
    await page.getByRole('region', { name: 'Delivery' }).getByText('failed', { exact: true }).waitFor()
    expect((await deliveryOf(endpointId, eventId)).attempts).to.equal(2)
    await signOut(page, servicing)

    // The admin finds it among the failed deliveries (the queue's default), one endpoint's.
    await openDeliveries(page, admin)
    expect(await page.getByRole('combobox', { name: /Status/ }).textContent()).to.equal('Failed')
    const endpointFilter = page.getByLabel('Endpoint id')
    await endpointFilter.fill('not-an-id')
    await page.getByText('An endpoint id is a UUID.').waitFor()
    await endpointFilter.fill(endpointId)
    // The filter applies once typing pauses, by the list's address: wait for it, or it would take the page back to the list later.
    await page.waitForURL((url) => decodeURIComponent(url.hash).includes(endpointId))
    const row = page.getByRole('row', { name: new RegExp(eventId) })
    await row.waitFor()
    expect(await page.getByRole('row').count(), 'the header and the endpoint\'s one delivery').to.equal(2)
    expect(await row.getByRole('cell').allTextContents()).to.include.members([eventId, 'loan.booked', 'failed', '2', 'HTTP 503', `${hooks.base}${hookPath}`])
    await checkPage(page, '22-webhook-deliveries-failed')

    // Its page: the delivery and its two attempts, each answered 503.
    await row.getByRole('link', { name: `Open delivery ${eventId}` }).click()
    await page.getByRole('heading', { level: 1, name: `Webhook delivery ${eventId}` }).waitFor()
    const attempts = page.getByRole('table', { name: 'Attempts' })
    const attemptRows = async () => (await attempts.getByRole('row').all()).slice(1)
    await attempts.waitFor()
    const answers = async () => Promise.all((await attemptRows()).map(async (r) => (await r.getByRole('cell').allTextContents())[2]))
    expect(await attempts.getByRole('columnheader').allTextContents()).to.deep.equal(['Attempt', 'Started', 'Duration (ms)', 'Answer', 'Error', 'URL'])
    expect(await answers()).to.deep.equal(['HTTP 503', 'HTTP 503'])
    await checkPage(page, '23-webhook-delivery-failed')

    // The endpoint is back; the admin sends the delivery again and is told what the server answered.
    hooks.answer(204)
    await page.getByRole('button', { name: `Send again ${eventId}` }).click()
    await page.getByText('The delivery is queued to be sent now: its status is pending.').waitFor()
    await eventually('the delivery to be delivered', async () => ((await deliveryOf(endpointId, eventId)).status === 'delivered' ? true : undefined))
    await page.reload()
    const delivery = page.getByRole('region', { name: 'Delivery' })
    await delivery.getByText('delivered', { exact: true }).waitFor()
    await attempts.waitFor()
    expect(await answers()).to.deep.equal(['HTTP 503', 'HTTP 503', 'HTTP 204'])
    await checkPage(page, '24-webhook-delivery-delivered')
    expect(hooks.received.filter((r) => r.path === hookPath).map((r) => r.headers['webhook-id'])).to.deep.equal([eventId, eventId, eventId])
    const audit = await internal(`/internal/audit-events?action=webhook_delivery.retried&subject_id=${endpointId}`)
    expect(audit.body.data.map((e: { actor: { type: string } }) => e.actor.type), audit.text).to.deep.equal(['operator'])

    // Only the servicing operator's refused retry (403), and 401 before signing in.
    expectQuiet(watch, [401, 403])
    await context.close()
  })

  it('lets an admin walk every queue of the console, each showing its records', async () => {
    const context = await rig.browser.newContext({ viewport: { width: 1366, height: 800 } })
    const { page, watch } = await watched(context)
    await signIn(page, rig.server.url, admin)
    await page.getByRole('menuitem', { name: 'Onboarding review' }).waitFor()
    await page.getByRole('switch', { name: 'Test data' }).check()
    await page.getByText('TEST DATA', { exact: true }).waitFor()
    /** Opens a queue from the menu, with `filter` set to the option showing `choice` when given, and waits for the row naming `id`. */
    const walk = async (menu: string, resource: string, id: string, screenshot: string, filter?: { readonly label: string; readonly choice: string }) => {
      await page.getByRole('menuitem', { name: menu }).click()
      await page.waitForURL(new RegExp(`#/${resource}`))
      // The list has read its first page: a select opened before then is closed by the list's rendering.
      await page.waitForLoadState('networkidle')
      if (filter !== undefined) {
        await chooseFilter(page, filter.label, filter.choice)
      }
      await page.getByRole('row', { name: new RegExp(id) }).waitFor()
      await checkPage(page, screenshot)
    }
    await walk('Onboarding review', 'onboarding-sessions', seeded.sessionId, '30-walk-onboarding-review', { label: 'Status', choice: 'APPROVED' })
    await walk('Credit decisions', 'applications', seeded.applicationId, '31-walk-credit-decisions', { label: 'Status', choice: 'APPROVED' })
    await walk('Loans', 'loans', seeded.loanId, '32-walk-loans')
    await walk('Approvals', 'operator-requests', seeded.loanId, '33-walk-approvals')
    await page.getByRole('link', { name: `Open request ${seeded.requestId}` }).waitFor()
    await walk('Webhook deliveries', 'webhook-deliveries', seeded.eventId, '34-walk-webhook-deliveries', { label: 'Status', choice: 'All' })
    expectQuiet(watch, [401])
    await context.close()
  })
})
