import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import type { Page } from 'playwright-core'
import { bookLoan, WORKING_CAPITAL } from '../test/support/booked-loan.js'
import { BORROWER_EMAIL, BORROWER_PROFILE, onboardBorrower, submittedSession, type Borrower } from '../test/support/borrower.js'
import { bearer, mintKey, request, type MintedKey } from '../test/support/client.js'
import { INTERNAL_TOKEN } from '../test/support/test-server.js'
import { minorOf } from './support/amounts.js'
import { addOperator, checkPage, chooseFilter, expectQuiet, lendgate, signIn, signOut, startConsoleRig, watched, type ConsoleRig, type Operator } from './support/console-harness.js'
import { testLoanDaysOn } from './support/seeded-loans.js'

/**
 * The operator console in a real browser (issue 60; Debian's Chromium driven by playwright-core):
 * operators added with the CLI, as a lender's admin adds them, sign in; a reviewer opens an
 * onboarding session from its queue, reads its contacts, profile, addresses and documents and
 * approves it on its page, and is shown the server's refusal of a credit decision; a credit officer
 * opens the application, reads its APR and schedule and approves it there; a servicing operator
 * switches to the test world and finds a test-clock loan 1–30 days past due, and reads its page;
 * one servicing operator asks for a payment's reversal after previewing it, is refused approving
 * their own request, and a second one previews and approves it; one asks for a charge-off and a
 * second rejects it with a reason (maker-checker, decision 152). No page breaks its
 * Content-Security-Policy or has a serious or critical accessibility violation (axe-core); each is
 * kept as a screenshot (./support/console-harness.ts).
 */

/** The bank account a borrower pays from (as apps/api/test/maker-checker.test.ts adds it). */
const BANK_ACCOUNT = { type: 'bank_account', account_holder_name: 'Acme Widgets LLC', routing_number: '011000015', account_number: '000123456789' }

/** Opens a loan's page from the Loans queue, as an operator does. */
const openLoan = async (page: Page, loanId: string): Promise<void> => {
  await page.getByRole('menuitem', { name: 'Loans' }).click()
  await page.getByRole('row', { name: new RegExp(loanId) }).getByRole('link', { name: `Open loan ${loanId}` }).click()
  await page.getByRole('heading', { level: 1, name: `Loan ${loanId}` }).waitFor()
}

describe('the operator console, in Chromium', function () {
  this.timeout(180_000)
  let rig: ConsoleRig
  let server: ConsoleRig['server']
  let receiver: ConsoleRig['receiver']
  let browser: ConsoleRig['browser']
  let reviewer: Operator
  const credit: Operator = { email: 'grace.credit@lender.example', password: 'a careful credit passphrase' }
  const servicing: Operator = { email: 'mary.servicing@lender.example', password: 'a steady servicing passphrase' }
  // Maker and checker: two servicing operators, each holding service_loans.
  const maker: Operator = { email: 'alan.maker@lender.example', password: 'a patient maker passphrase' }
  const checker: Operator = { email: 'barbara.checker@lender.example', password: 'a watchful checker passphrase' }

  /** The document a partner registers on the session before submitting it, which the reviewer must see. */
  const ARTICLES = {
    type: 'certificate_of_incorporation',
    storage_ref: 's3://acme-backend-onboarding/acme-widgets/articles-of-organization.pdf',
    file_name: 'articles-of-organization.pdf',
    content_type: 'application/pdf',
    description: 'Articles of organization filed with the Illinois Secretary of State',
  }

  /** A submitted application of the borrower of `key`: 12,000.00 USD over 12 months. */
  const submittedApplication = async (key: MintedKey): Promise<string> => {
    const draft = await request(server.url, '/public/applications', { method: 'POST', headers: bearer(key.api_key), json: { product_id: WORKING_CAPITAL, amount: 1_200_000, currency: 'USD', term_months: 12 } })
    expect(draft.status, draft.text).to.equal(201)
    const submitted = await request(server.url, `/public/applications/${draft.body.application_id as string}/submit`, { method: 'POST', headers: bearer(key.api_key), json: {} })
    expect(submitted.status, submitted.text).to.equal(200)
    return draft.body.application_id as string
  }

  before(async () => {
    // As a lender's admin adds them: the CLI on the database, before the API serves it (the CLI migrates it).
    rig = await startConsoleRig((url) => {
      const added = lendgate(url, undefined, 'operators', 'add', '--email', 'Ada.Reviewer@lender.example', '--role', 'reviewer')
      reviewer = { email: 'ada.reviewer@lender.example', password: added['password'] as string }
      addOperator(url, 'credit', credit)
      for (const operator of [servicing, maker, checker]) addOperator(url, 'servicing', operator)
    })
    ;({ server, receiver, browser } = rig)
  })

  after(async () => {
    await rig?.stop()
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

  it('lets a reviewer read a session with its documents and approve it there, shows it the refusal of a credit decision, and a credit officer approve the application from its page', async () => {
    // Seeded through the API, as partners would: a session awaiting review with a document, and a borrower's submitted application.
    const sessionId = await submittedSession(server, receiver, await mintKey(server.url), { documents: [ARTICLES] })
    const borrower: Borrower = await onboardBorrower(server, receiver)
    const applicationId = await submittedApplication(borrower.key)
    const preview = await request(server.url, `/internal/applications/${applicationId}/schedule-preview`, { headers: bearer(INTERNAL_TOKEN) })
    const apr = preview.body.disclosure?.annual_percentage_rate as string
    expect(apr, preview.text).to.match(/^\d+\.\d{3}$/)

    const context = await browser.newContext({ viewport: { width: 1366, height: 800 } })
    const { page, watch } = await watched(context)
    await checkPage(await (async () => (await page.goto(`${server.url}/console/`), page))(), '01-sign-in')
    await signIn(page, server.url, { ...reviewer, email: reviewer.email.toUpperCase() })
    const row = page.getByRole('row', { name: new RegExp(sessionId) })
    await row.waitFor()
    // The cookie is the session's: HttpOnly, Secure, SameSite=Strict, kept by Chromium over http://127.0.0.1.
    const [cookie] = await context.cookies()
    expect(cookie).to.deep.include({ name: '__Host-lendgate_operator', httpOnly: true, secure: true, sameSite: 'Strict', path: '/' })
    await checkPage(page, '02-onboarding-review')

    // The session's page: its record, contacts, profile, addresses and documents, then the decision.
    await row.getByRole('link', { name: `Open session ${sessionId}` }).click()
    await page.getByRole('heading', { level: 1, name: `Onboarding session ${sessionId}` }).waitFor()
    const documents = page.getByRole('region', { name: 'Documents' })
    await documents.getByRole('row', { name: /articles-of-organization\.pdf/ }).waitFor()
    const contacts = page.getByRole('region', { name: 'Contacts' })
    expect(await contacts.getByText(BORROWER_EMAIL, { exact: false }).textContent()).to.match(/: verified /)
    await page.getByRole('region', { name: 'Applicant profile' }).getByText(BORROWER_PROFILE.legal_name).waitFor()
    await page.getByRole('region', { name: 'Addresses' }).getByText(/1 Main St, Springfield, IL, 62701, US/).waitFor()
    await checkPage(page, '05-onboarding-session')
    await page.getByRole('button', { name: `Approve ${sessionId}` }).click()
    await page.getByText('The session is approved: its party is created.').waitFor()
    await page.getByRole('region', { name: 'Review' }).getByText('APPROVED', { exact: true }).waitFor()
    expect(await page.getByRole('button', { name: `Approve ${sessionId}` }).count(), 'no decision on a decided session').to.equal(0)
    const approved = await request(server.url, `/internal/audit-events?subject_id=${sessionId}&action=onboarding_session.approved`, { headers: bearer(INTERNAL_TOKEN) })
    expect(approved.body.data.map((e: { actor: { type: string; id?: string } }) => e.actor.type === 'operator' && typeof e.actor.id)).to.deep.equal(['string'])

    await page.getByRole('menuitem', { name: 'Credit decisions' }).click()
    await page.getByRole('row', { name: new RegExp(applicationId) }).getByRole('link', { name: `Open application ${applicationId}` }).click()
    await page.getByRole('button', { name: `Approve ${applicationId}` }).click()
    await page.getByText('The reviewer role may not do this: it needs the decide_credit permission.').waitFor()
    await checkPage(page, '03-refused-credit-decision')
    await page.getByRole('region', { name: 'Terms' }).getByText('SUBMITTED', { exact: true }).waitFor()

    await signOut(page, reviewer)
    await signIn(page, server.url, credit)
    await page.getByRole('menuitem', { name: 'Credit decisions' }).click()
    const waiting = page.getByRole('row', { name: new RegExp(applicationId) })
    await waiting.waitFor()
    await checkPage(page, '04-credit-decisions')

    // The application's page: its terms, the APR and finance charge of its disclosure, the schedule; then the decision.
    await waiting.getByRole('link', { name: `Open application ${applicationId}` }).click()
    await page.getByRole('heading', { level: 1, name: `Loan application ${applicationId}` }).waitFor()
    const disclosure = page.getByRole('region', { name: 'Disclosure (Truth in Lending)' })
    await disclosure.getByText(`${apr} %`, { exact: true }).waitFor()
    await disclosure.getByText('Finance charge', { exact: true }).waitFor()
    const schedule = page.getByRole('table', { name: 'Schedule preview' })
    expect(await schedule.getByRole('row').count(), 'a header and 12 installments').to.equal(13)
    await page.getByRole('figure', { name: 'Principal and interest of each installment' }).waitFor()
    await checkPage(page, '06-application')
    await page.getByRole('button', { name: `Approve ${applicationId}` }).click()
    await page.getByText('The application is approved: its loan is booked.').waitFor()
    await page.getByRole('region', { name: 'Terms' }).getByText('APPROVED', { exact: true }).waitFor()
    const booked = await request(server.url, `/public/parties/${borrower.partyId}/loans`, { headers: bearer(borrower.key.api_key) })
    expect(booked.body.data.map((loan: { application_id: string }) => loan.application_id)).to.deep.equal([applicationId])

    // The only errors are answers Chromium logs as failed resources: 401 while no one is signed in, the refused decision's 403.
    expectQuiet(watch, [401, 403])
    await context.close()
  })

  it("lets a servicing operator find a test-world loan 1–30 days past due with Test data on, and read its page", async () => {
    // The test world, as a partner's test keys make it: a borrower on a test clock, a loan booked on it, the clock moved 45 days on.
    const { loanId, partyId, borrower } = await testLoanDaysOn(server, 45)
    const asPartner = await request(server.url, `/public/parties/${partyId}/loans/${loanId}`, { headers: bearer(borrower.api_key) })
    expect(asPartner.body.delinquency_bucket, asPartner.text).to.equal('DPD_1_30')
    const asOperator = await request(server.url, `/internal/loans/${loanId}`, { headers: { ...bearer(INTERNAL_TOKEN), 'Lendgate-Mode': 'test' } })
    expect([asOperator.status, asOperator.body.delinquency_bucket], `the operator's view of the test loan: ${asOperator.text}`).to.deep.equal([200, 'DPD_1_30'])

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    const { page, watch } = await watched(context)
    await signIn(page, server.url, servicing)
    await page.getByRole('menuitem', { name: 'Loans' }).click()
    await page.getByRole('heading', { name: 'Loans' }).first().waitFor()
    // Live first: the test world's loan is not there.
    expect(await page.getByRole('row', { name: new RegExp(loanId) }).count()).to.equal(0)
    await page.getByRole('switch', { name: 'Test data' }).check()
    await page.getByRole('status').getByText(/Test data: you are reading and acting on the test world/).waitFor()
    await page.getByText('TEST DATA', { exact: true }).waitFor()
    await chooseFilter(page, 'Delinquency', '1–30 days past due')
    const row = page.getByRole('row', { name: new RegExp(loanId) })
    await row.waitFor()
    expect(await row.getByRole('cell').allTextContents()).to.deep.include.members(['12,000.00 USD', '1–30 days past due'])
    await checkPage(page, '07-loans-test-world')
    await row.getByRole('link', { name: `Open loan ${loanId}` }).click()
    await page.getByRole('heading', { level: 1, name: `Loan ${loanId}` }).waitFor()
    const summary = page.getByRole('region', { name: 'Summary' })
    await summary.getByText('1–30 days past due', { exact: true }).waitFor()
    await page.getByRole('region', { name: 'Schedule' }).getByRole('row', { name: /LATE/ }).first().waitFor()
    await page.getByRole('region', { name: 'Ledger' }).getByRole('row', { name: /INTEREST_ACCRUAL/ }).first().waitFor()
    await page.getByRole('region', { name: 'Balance history' }).getByRole('figure', { name: 'Balance over time' }).waitFor()
    await page.getByRole('region', { name: 'Schedule' }).getByRole('figure', { name: 'Principal and interest due of each installment' }).waitFor()
    await checkPage(page, '08-loan')
    // The ledger pages by cursor: its next page holds the entries after the first ten (sequence 11 on).
    const ledger = page.getByRole('region', { name: 'Ledger' })
    await ledger.getByRole('cell', { name: '10', exact: true }).waitFor()
    await ledger.getByRole('button', { name: 'Next' }).click()
    await ledger.getByText('Page 2').waitFor()
    await ledger.getByRole('cell', { name: '11', exact: true }).waitFor()
    expect(await ledger.getByRole('cell', { name: '10', exact: true }).count()).to.equal(0)

    // Off again: the live world, where this loan is not.
    await page.getByRole('switch', { name: 'Test data' }).uncheck()
    expect(await page.getByText('TEST DATA', { exact: true }).count()).to.equal(0)
    // A live read of the test loan's page is the API's 404 (the worlds never mix); 401 before signing in.
    expectQuiet(watch, [401, 404])
    await context.close()
  })

  it('lets one servicing operator ask for a reversal after previewing it, refuses them approving it, and lets a second preview and approve it', async () => {
    // A live borrower's booked loan with one payment of 500.00 USD, as a partner makes them.
    const borrower = await onboardBorrower(server, receiver)
    const loan = await bookLoan(server, borrower)
    const asBorrower = { ...bearer(borrower.key.api_key) }
    const method = await request(server.url, loan.paths.paymentMethods, { method: 'POST', headers: asBorrower, json: BANK_ACCOUNT })
    expect(method.status, method.text).to.equal(201)
    const paid = await request(server.url, loan.paths.payments, {
      method: 'POST',
      headers: { ...asBorrower, 'Idempotency-Key': randomUUID() },
      json: { amount: 50_000, currency: 'USD', payment_method_id: method.body.payment_method_id },
    })
    expect(paid.status, paid.text).to.equal(201)
    const paymentId = paid.body.payment_id as string
    const paymentStatus = async (): Promise<unknown> => {
      const payments = await request(server.url, `${loan.paths.payments}?limit=100`, { headers: asBorrower })
      return (payments.body.data as { payment_id: string; status: string }[]).find((p) => p.payment_id === paymentId)?.status
    }
    expect(await paymentStatus()).to.be.oneOf(['SUCCEEDED', 'SETTLED'])

    // The maker opens the loan and asks for the reversal of its payment, seeing what it would do first.
    const context = await browser.newContext({ viewport: { width: 1366, height: 800 } })
    const { page, watch } = await watched(context)
    await signIn(page, server.url, maker)
    await openLoan(page, loan.loanId)
    await page.getByRole('region', { name: 'Summary' }).getByRole('button', { name: `Request charge-off of loan ${loan.loanId}` }).waitFor()
    const payments = page.getByRole('region', { name: 'Payments' })
    await payments.getByRole('button', { name: `Request reversal of payment ${paymentId}` }).click()
    const dialog = page.getByRole('dialog', { name: `Request a reversal of payment ${paymentId}` })
    const preview = dialog.getByRole('button', { name: 'Preview', exact: true })
    expect(await preview.isDisabled(), 'no preview without a reason').to.equal(true)
    expect(await dialog.getByRole('button', { name: 'Ask for approval' }).isDisabled(), 'no request before its preview').to.equal(true)
    await dialog.getByLabel('Reason').fill('ACH return R01 reported by phone')
    await preview.click()
    const beforeAfter = dialog.getByRole('table', { name: 'Before and after' })
    await beforeAfter.waitFor()
    const cells = async (label: string): Promise<string[]> => beforeAfter.getByRole('row', { name: new RegExp(`^${label}`) }).getByRole('cell').allTextContents()
    const [payoffBefore, payoffAfter, payoffChange] = await cells('Payoff amount')
    const [principalBefore, principalAfter] = await cells('Principal outstanding')
    const reversalEntry = await dialog.getByRole('table', { name: 'Ledger entries it would post' }).getByRole('row', { name: /REVERSAL/ }).getByRole('cell').allTextContents()
    // The payoff goes up by what reversing gives back (the reversed principal, interest and fees, and any
    // interest accrued since on them), the principal by the reversal entry's principal; all shown exactly.
    expect(minorOf(payoffAfter!) - minorOf(payoffBefore!)).to.equal(minorOf(payoffChange!))
    expect(minorOf(payoffChange!)).to.be.greaterThanOrEqual(50_000)
    expect(reversalEntry.slice(0, 1).concat(reversalEntry.slice(2, 3))).to.deep.equal(['REVERSAL', '500.00 USD'])
    expect(minorOf(principalAfter!) - minorOf(principalBefore!)).to.equal(minorOf(reversalEntry[3]!))
    expect(await cells('Status')).to.deep.equal(['ACTIVE', 'ACTIVE', 'No change'])
    await checkPage(page, '09-reversal-preview')
    await dialog.getByRole('button', { name: 'Ask for approval' }).click()
    await page.getByText('The reversal is asked for: another operator must approve it in Approvals.').waitFor()
    // The dialog closes once the server has the request.
    await dialog.waitFor({ state: 'hidden' })
    // Asked, not done: the payment stands until another operator approves.
    expect(await paymentStatus()).to.be.oneOf(['SUCCEEDED', 'SETTLED'])
    const inbox = await request(server.url, '/internal/operator-requests?state=PENDING&limit=100', { headers: bearer(INTERNAL_TOKEN) })
    const asked = (inbox.body.data as { operator_request_id: string; payment_id: string | null }[]).filter((r) => r.payment_id === paymentId)
    expect(asked, inbox.text).to.have.length(1)
    const requestId = asked[0]!.operator_request_id

    // Approvals: the maker finds the request pending, opens it, and is refused approving their own.
    await page.getByRole('menuitem', { name: 'Approvals' }).click()
    // The request's row in Approvals (not the payment's row of the loan page it leaves).
    const requestRow = () => page.getByRole('row').filter({ has: page.getByRole('link', { name: `Open request ${requestId}` }) })
    const row = requestRow()
    await row.waitFor()
    expect(await row.getByRole('cell').allTextContents()).to.include.members(['Payment reversal', loan.loanId, 'ACH return R01 reported by phone', 'PENDING'])
    await checkPage(page, '10-approvals')
    await row.getByRole('link', { name: `Open request ${requestId}` }).click()
    await page.getByRole('heading', { level: 1, name: `Payment reversal request ${requestId}` }).waitFor()
    await page.getByRole('region', { name: 'What approving would do now' }).getByRole('table', { name: 'Before and after' }).waitFor()
    await page.getByRole('button', { name: `Approve ${requestId}` }).click()
    await page.getByText('The operator who asked cannot approve the request: another operator holding service_loans must.').waitFor()
    await checkPage(page, '11-own-request-refused')
    await page.getByRole('region', { name: 'Request' }).getByText('PENDING', { exact: true }).waitFor()
    expect(await paymentStatus()).to.be.oneOf(['SUCCEEDED', 'SETTLED'])

    await signOut(page, maker)

    // The checker signs in, opens the request from Approvals, sees what approving would do, and approves it.
    await signIn(page, server.url, checker)
    await page.getByRole('menuitem', { name: 'Approvals' }).click()
    const waiting = requestRow()
    await waiting.waitFor()
    await waiting.getByRole('link', { name: `Open request ${requestId}` }).click()
    await page.getByRole('heading', { level: 1, name: `Payment reversal request ${requestId}` }).waitFor()
    const live = page.getByRole('region', { name: 'What approving would do now' })
    const livePayoffRow = live.getByRole('table', { name: 'Before and after' }).getByRole('row', { name: /^Payoff amount/ })
    await livePayoffRow.waitFor()
    const livePayoff = await livePayoffRow.getByRole('cell').allTextContents()
    expect(livePayoff, "the checker's preview is the maker's").to.deep.equal([payoffBefore, payoffAfter, payoffChange])
    await live.getByRole('table', { name: 'Ledger entries it would post' }).getByRole('row', { name: /REVERSAL/ }).waitFor()
    await checkPage(page, '12-approval-request')
    await page.getByRole('button', { name: `Approve ${requestId}` }).click()
    await page.getByText('The request is approved: the payment is reversed.').waitFor()
    const decided = page.getByRole('region', { name: 'Request' })
    await decided.getByText('APPROVED', { exact: true }).waitFor()
    expect(await page.getByRole('button', { name: `Approve ${requestId}` }).count(), 'no decision on a decided request').to.equal(0)
    expect(await live.count(), 'no preview of a decided request').to.equal(0)
    expect(await paymentStatus()).to.equal('REVERSED')

    // The loan's page: the payment is REVERSED, and no reversal can be asked of it again.
    await decided.getByRole('link', { name: `Open loan ${loan.loanId}` }).click()
    await page.getByRole('heading', { level: 1, name: `Loan ${loan.loanId}` }).waitFor()
    const reversed = page.getByRole('region', { name: 'Payments' }).getByRole('row', { name: new RegExp(paymentId) })
    await reversed.getByRole('cell', { name: 'REVERSED', exact: true }).waitFor()
    expect(await reversed.getByRole('button', { name: /Request reversal/ }).count()).to.equal(0)
    await checkPage(page, '13-loan-payment-reversed')

    // The only errors are answers Chromium logs as failed resources: 401 while no one is signed in, the maker's refused approval (403).
    expectQuiet(watch, [401, 403])
    await context.close()
  })

  it('lets one servicing operator ask for a charge-off and a second reject it with a reason, and the request then shows REJECTED and why', async () => {
    const borrower = await onboardBorrower(server, receiver)
    const loan = await bookLoan(server, borrower)
    const loanStatus = async (): Promise<unknown> => (await request(server.url, loan.paths.loan, { headers: bearer(borrower.key.api_key) })).body.status

    // The maker asks for the charge-off from the loan's page, after its preview.
    const context = await browser.newContext({ viewport: { width: 1366, height: 800 } })
    const { page, watch } = await watched(context)
    await signIn(page, server.url, maker)
    await openLoan(page, loan.loanId)
    await page.getByRole('region', { name: 'Summary' }).getByRole('button', { name: `Request charge-off of loan ${loan.loanId}` }).click()
    const dialog = page.getByRole('dialog', { name: `Request a charge-off of loan ${loan.loanId}` })
    await dialog.getByLabel('Reason').fill('Borrower ceased trading')
    await dialog.getByRole('button', { name: 'Preview', exact: true }).click()
    const statusRow = dialog.getByRole('table', { name: 'Before and after' }).getByRole('row', { name: /^Status/ })
    await statusRow.waitFor()
    expect((await statusRow.getByRole('cell').allTextContents()).slice(0, 2)).to.deep.equal(['ACTIVE', 'CHARGED_OFF'])
    await checkPage(page, '14-charge-off-preview')
    await dialog.getByRole('button', { name: 'Ask for approval' }).click()
    await page.getByText('The charge-off is asked for: another operator must approve it in Approvals.').waitFor()
    await dialog.waitFor({ state: 'hidden' })
    const inbox = await request(server.url, '/internal/operator-requests?state=PENDING&limit=100', { headers: bearer(INTERNAL_TOKEN) })
    const asked = (inbox.body.data as { operator_request_id: string; loan_id: string; kind: string }[]).filter((r) => r.loan_id === loan.loanId && r.kind === 'loan_charge_off')
    expect(asked, inbox.text).to.have.length(1)
    const requestId = asked[0]!.operator_request_id
    await signOut(page, maker)

    // The checker opens it from Approvals and rejects it with a reason.
    await signIn(page, server.url, checker)
    await page.getByRole('menuitem', { name: 'Approvals' }).click()
    await page.getByRole('link', { name: `Open request ${requestId}` }).click()
    await page.getByRole('heading', { level: 1, name: `Charge-off request ${requestId}` }).waitFor()
    await page.getByRole('button', { name: `Reject ${requestId}` }).click()
    const rejecting = page.getByRole('dialog', { name: 'Reject the request' })
    const reject = rejecting.getByRole('button', { name: 'Reject', exact: true })
    expect(await reject.isDisabled(), 'no rejection without a reason').to.equal(true)
    await rejecting.getByLabel('Reason').fill('Payment plan agreed with the borrower')
    await checkPage(page, '15-charge-off-rejecting')
    await reject.click()
    await page.getByText('The request is rejected: nothing was done.').waitFor()
    const decided = page.getByRole('region', { name: 'Request' })
    await decided.getByText('REJECTED', { exact: true }).waitFor()
    await decided.getByText('Payment plan agreed with the borrower', { exact: true }).waitFor()
    expect(await decided.getByText('Rejection reason', { exact: true }).count()).to.equal(1)
    expect(await page.getByRole('button', { name: `Approve ${requestId}` }).count(), 'no decision on a decided request').to.equal(0)
    await checkPage(page, '16-charge-off-rejected')
    // Rejected, nothing done: the loan is still active.
    expect(await loanStatus()).to.equal('ACTIVE')

    expectQuiet(watch, [401])
    await context.close()
  })
})
