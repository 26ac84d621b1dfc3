import { expect } from 'chai'
import { bearer, request } from '../../test/support/client.js'
import { testModeLoan, type TestModeLoan } from '../../test/support/test-mode-borrower.js'
import type { TestServer } from '../../test/support/test-server.js'

/** Loans the console's browser tests read, seeded through the API as a partner's test keys make them. */

const DAY_MS = 86_400_000

/** A test-world loan on its party's test clock (`clockId` is that clock's). */
export type ClockedTestLoan = TestModeLoan & { readonly clockId: string }

/**
 * A test-world borrower's loan (12,000.00 USD over 12 months) booked on a test clock of its party's,
 * the clock then moved `days` on and waited for until it is `ready` (its servicing caught up): with
 * 45 days, the first installment is unpaid and the loan is 1–30 days past due.
 */
export const testLoanDaysOn = async (server: TestServer, days: number): Promise<ClockedTestLoan> => {
  const loan = await testModeLoan(server, { clock: true })
  const clockPath = `/public/test-helpers/clocks/${loan.clockId!}`
  const asBorrower = bearer(loan.borrower.api_key)
  const clock = await request(server.url, clockPath, { headers: asBorrower })
  expect(clock.status, clock.text).to.equal(200)
  const target = new Date(Date.parse(clock.body.frozen_time as string) + days * DAY_MS).toISOString()
  const advancing = await request(server.url, `${clockPath}/advance`, { method: 'POST', headers: asBorrower, json: { frozen_time: target } })
  expect(advancing.status, advancing.text).to.equal(200)
  for (const deadline = Date.now() + 60_000; ; await new Promise((resolve) => setTimeout(resolve, 100))) {
    const advanced = await request(server.url, clockPath, { headers: asBorrower })
    if (advanced.body.status === 'ready') break
    if (Date.now() > deadline) throw new Error(`the test clock is still advancing: ${advanced.text}`)
  }
  return { ...loan, clockId: loan.clockId! }
}
