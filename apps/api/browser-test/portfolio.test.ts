import { expect } from 'chai'
import type { Page } from 'playwright-core'
import { request } from '../test/support/client.js'
import { testModeLoan, type TestModeLoan } from '../test/support/test-mode-borrower.js'
import { operatorHeaders } from '../test/support/test-server.js'
import { minorOf } from './support/amounts.js'
import { addOperator, checkPage, chooseFilter, expectQuiet, signIn, startConsoleRig, watched, type ConsoleRig, type Operator } from './support/console-harness.js'
import { testLoanDaysOn } from './support/seeded-loans.js'

/**
 * The book's delinquency on the Loans page, in Chromium (issue 60, item 3): in the test world, one
 * loan 1–30 days past due on its party's test clock, one current, one charged off (in no bucket);
 * the live world has none. A servicing operator reads the live book's sentence, then the test
 * world's chart and table, which say what `GET /internal/portfolio/delinquency` says; a bucket's
 * name opens the queue on that bucket's loans; the status filter narrows the queue; and a row
 * opened at any moment after a filter is chosen is the page that stays. Each page is checked as
 * every console page is (./support/console-harness.ts).
 */

/** How long react-admin's filter form waits, by default, before it applies a typed filter (`FilterLiveForm`'s `debounce`). */
const FILTER_DEBOUNCE_MS = 500

/** One bucket of `GET /internal/portfolio/delinquency`. */
type Bucket = { readonly bucket: string; readonly loans: number; readonly principal_outstanding: number; readonly past_due_amount: number }

describe("the book's delinquency on the Loans page, in Chromium", function () {
  this.timeout(180_000)
  let rig: ConsoleRig
  const servicing: Operator = { email: 'mary.servicing@lender.example', password: 'a steady servicing passphrase' }
  let pastDue: TestModeLoan
  let current: TestModeLoan
  let chargedOff: TestModeLoan

  before(async () => {
    rig = await startConsoleRig((url) => addOperator(url, 'servicing', servicing))
    // The test world, as partners' test keys make it; the internal token (automation) charges one loan off directly.
    pastDue = await testLoanDaysOn(rig.server, 45)
    // The largest loan of the book, so that the largest-first order is not the order of booking.
    current = await testModeLoan(rig.server, { amount: 2_500_000 })
    chargedOff = await testModeLoan(rig.server)
    const charged = await request(rig.server.url, `/internal/loans/${chargedOff.loanId}/charge-off`, { method: 'POST', headers: operatorHeaders('test'), json: { reason: 'Borrower ceased trading' } })
    expect(charged.status, charged.text).to.equal(200)
  })

  after(async () => {
    await rig?.stop()
  })

  /** The test world's delinquency as the API answers the internal token. */
  const testBook = async (): Promise<{ readonly livemode: unknown; readonly currencies: readonly { readonly currency: string; readonly buckets: readonly Bucket[] }[] }> => {
    const reply = await request(rig.server.url, '/internal/portfolio/delinquency', { headers: operatorHeaders('test') })
    expect(reply.status, reply.text).to.equal(200)
    return reply.body
  }

  /** Signs in, turns Test data on and opens Loans. */
  const openTestLoans = async (page: Page): Promise<void> => {
    await signIn(page, rig.server.url, servicing)
    await page.getByRole('switch', { name: 'Test data' }).check()
    await page.getByText('TEST DATA', { exact: true }).waitFor()
    await page.getByRole('menuitem', { name: 'Loans' }).click()
    await page.getByRole('link', { name: `Open loan ${pastDue.loanId}` }).waitFor()
  }

  /** The ids of the loans the queue lists now, read in one step (the list may re-render between two). */
  const queued = async (page: Page): Promise<string[]> =>
    (await page.getByRole('link', { name: /^Open loan / }).evaluateAll((links) => links.map((link) => link.getAttribute('aria-label') ?? ''))).map((label) => label.replace('Open loan ', ''))

  /** Waits until the queue lists exactly `loanIds` (in any order). */
  const queueShows = async (page: Page, loanIds: readonly string[]): Promise<void> => {
    for (const deadline = Date.now() + 10_000; ; await page.waitForTimeout(100)) {
      const now = await queued(page)
      if (now.length === loanIds.length && loanIds.every((id) => now.includes(id))) return
      if (Date.now() > deadline) expect(now, 'the loans the queue lists').to.have.members([...loanIds])
    }
  }

  it("shows the live book's sentence, then the test world's active loans per bucket as the API counts them, each bucket opening the queue on its loans", async () => {
    const book = await testBook()
    expect(book.livemode).to.equal(false)
    expect(book.currencies.map((c) => [c.currency, c.buckets.map((b) => [b.bucket, b.loans])])).to.deep.equal([
      ['USD', [['CURRENT', 1], ['DPD_1_30', 1], ['DPD_31_60', 0], ['DPD_61_90', 0], ['DPD_90_PLUS', 0]]],
    ])

    const context = await rig.browser.newContext({ viewport: { width: 1366, height: 800 } })
    const { page, watch } = await watched(context)
    await signIn(page, rig.server.url, servicing)
    await page.getByRole('menuitem', { name: 'Loans' }).click()
    const delinquency = page.getByRole('region', { name: 'Active loans by delinquency' })
    await delinquency.getByText('No active loans: paid-off and charged-off loans are in no bucket.').waitFor()
    expect(await delinquency.getByRole('figure').count(), 'no chart of an empty book').to.equal(0)
    await checkPage(page, '40-loans-live-book-empty')

    await page.getByRole('switch', { name: 'Test data' }).check()
    await page.getByText('TEST DATA', { exact: true }).waitFor()
    const table = delinquency.getByRole('table', { name: 'Active loans by delinquency, USD' })
    await table.waitFor()
    // The table is the chart's text: each bucket's loans, principal outstanding and past due, as the API counts them.
    const rows = (await table.getByRole('row').all()).slice(1)
    const shown = await Promise.all(
      rows.map(async (row) => {
        const [loans, principal, due] = await row.getByRole('cell').allTextContents()
        return { name: await row.getByRole('rowheader').textContent(), loans: Number(loans), principal_outstanding: minorOf(principal!), past_due_amount: minorOf(due!) }
      }),
    )
    const usd = book.currencies[0]!.buckets
    expect(shown).to.deep.equal([
      { name: 'Current', ...figuresOf(usd[0]!) },
      { name: '1–30 days past due', ...figuresOf(usd[1]!) },
      { name: '31–60 days past due', ...figuresOf(usd[2]!) },
      { name: '61–90 days past due', ...figuresOf(usd[3]!) },
      { name: '90+ days past due', ...figuresOf(usd[4]!) },
    ])
    expect(usd[1]!.past_due_amount, 'the past-due loan owes its first installment').to.be.greaterThan(0)
    const chart = delinquency.getByRole('figure', { name: 'Active loans per delinquency bucket, USD' })
    await chart.locator('[aria-hidden="true"] svg').first().waitFor()
    await checkPage(page, '41-loans-test-book')

    // A bucket's name opens the queue on the loans it counts (active ones only: the charged-off loan is in none).
    await table.getByRole('link', { name: 'Show loans: 1–30 days past due' }).click()
    await queueShows(page, [pastDue.loanId])
    expect(await page.getByRole('combobox', { name: /Delinquency/ }).textContent()).to.equal('1–30 days past due')
    await checkPage(page, '42-loans-bucket-1-30')
    await table.getByRole('link', { name: 'Show loans: Current' }).click()
    await queueShows(page, [current.loanId])
    expect(await page.getByRole('combobox', { name: /Delinquency/ }).textContent()).to.equal('Current')

    // The only failed answers are 401s, before signing in.
    expectQuiet(watch, [401])
    await context.close()
  })

  it('filters the queue by status, and keeps the page of a row opened at any moment after a filter is chosen', async () => {
    const context = await rig.browser.newContext({ viewport: { width: 1366, height: 800 } })
    const { page, watch } = await watched(context)
    await openTestLoans(page)
    await queueShows(page, [pastDue.loanId, current.loanId, chargedOff.loanId])
    await chooseFilter(page, 'Status', 'Charged off')
    await queueShows(page, [chargedOff.loanId])
    const row = page.getByRole('row', { name: new RegExp(chargedOff.loanId) })
    // Charged off, the loan is in no bucket of the queue.
    expect((await row.getByRole('cell').allTextContents()).slice(2)).to.deep.equal(['CHARGED_OFF', '12,000.00 USD', '0', '—'])
    await checkPage(page, '43-loans-charged-off')
    await chooseFilter(page, 'Status', 'Active')
    await queueShows(page, [pastDue.loanId, current.loanId])

    // A choice applies at once: the row opened right after it, or a moment later, is the page that
    // stays, however long react-admin would have waited to apply it. Each round toggles the status.
    for (const [round, delay] of [0, 100, 200, 300, 350, 400, 450, 500].entries()) {
      await chooseFilter(page, 'Status', round % 2 === 0 ? 'All' : 'Active')
      const chosen = Date.now()
      if (delay > 0) await page.waitForTimeout(delay)
      await page.getByRole('link', { name: `Open loan ${pastDue.loanId}` }).click()
      const heading = page.getByRole('heading', { level: 1, name: `Loan ${pastDue.loanId}` })
      await heading.waitFor()
      await page.waitForTimeout(Math.max(0, chosen + 2 * FILTER_DEBOUNCE_MS - Date.now()))
      expect([delay, await heading.count(), new URL(page.url()).hash], 'the loan page stays').to.deep.equal([delay, 1, `#/loans/${pastDue.loanId}/show`])
      await page.getByRole('menuitem', { name: 'Loans' }).click()
      await page.getByRole('link', { name: `Open loan ${pastDue.loanId}` }).waitFor()
    }
    expectQuiet(watch, [401])
    await context.close()
  })

  it('sorts the queue on the server: the order on screen is the API\'s for the same sort', async () => {
    const context = await rig.browser.newContext({ viewport: { width: 1366, height: 800 } })
    const { page, watch } = await watched(context)
    await openTestLoans(page)
    const orders = new Map<string, string[]>()
    for (const [choice, sort] of [
      ['Oldest unpaid installment first', 'oldest_unpaid_due_date'],
      ['Largest principal first', '-principal'],
      ['Oldest first', 'created_at'],
    ] as const) {
      const reply = await request(rig.server.url, `/internal/loans?sort=${sort}`, { headers: operatorHeaders('test') })
      expect(reply.status, reply.text).to.equal(200)
      const expected = (reply.body.data as { loan_id: string }[]).map((l) => l.loan_id)
      orders.set(sort, expected)
      await chooseFilter(page, 'Sort by', choice)
      for (const deadline = Date.now() + 10_000; JSON.stringify(await queued(page)) !== JSON.stringify(expected); await page.waitForTimeout(100)) {
        if (Date.now() > deadline) expect(await queued(page), choice).to.deep.equal(expected)
      }
    }
    expect(orders.get('-principal')?.[0], 'the largest loan first').to.equal(current.loanId)
    expect(orders.get('created_at')?.[0], 'the first booked first').to.equal(pastDue.loanId)
    await chooseFilter(page, 'Sort by', 'Largest principal first')
    await checkPage(page, '44-loans-sorted')
    expectQuiet(watch, [401])
    await context.close()
  })
})

/** A bucket's figures as the table names them. */
const figuresOf = (b: Bucket) => ({ loans: b.loans, principal_outstanding: b.principal_outstanding, past_due_amount: b.past_due_amount })
