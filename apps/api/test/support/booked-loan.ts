import { expect } from 'chai'
import type { Borrower } from './borrower.js'
import { bearer, request, type Reply } from './client.js'
import { INTERNAL_TOKEN, operatorHeaders, type TestServer } from './test-server.js'

/** The seeded Working Capital Term Loan (docs/applications.md "Loan products"): 1199 bps, fee 200 bps. */
export const WORKING_CAPITAL = '5b0c1d2e-0001-4a00-8000-000000000001'

export type LoanTerms = {
  readonly product_id: string
  readonly amount: number
  readonly currency: string
  readonly term_months: number
}

/** The body of `POST /internal/loan-products` for a plain term loan (suites name it as they like). */
export const TERM_LOAN_PRODUCT = {
  name: 'Test Term Loan',
  currency: 'USD',
  min_amount: 100_000,
  max_amount: 5_000_000,
  min_term_months: 3,
  max_term_months: 24,
  interest_rate_bps: 1500,
  origination_fee_bps: 250,
} as const

export const DEFAULT_LOAN_TERMS: LoanTerms = { product_id: WORKING_CAPITAL, amount: 1_200_000, currency: 'USD', term_months: 12 }

/** The loan as `approveLoanApplication` answered it (docs/applications.md "the loan"). */
export type LoanBody = Record<string, unknown> & {
  readonly loan_id: string
  readonly party_id: string
  readonly currency: string
  readonly principal: number
  readonly payment_amount: number
  readonly start_date: string
  readonly first_due_date: string
  readonly created_at: string
}

/** Every servicing path of one loan (docs/servicing.md), partner and internal. */
export type LoanPaths = {
  readonly loans: string
  readonly loan: string
  readonly balances: string
  readonly latestBalance: string
  readonly schedule: string
  readonly transactions: string
  readonly collateral: string
  readonly documents: string
  readonly paymentMethods: string
  readonly paymentMethod: (paymentMethodId: string) => string
  readonly payments: string
  readonly internalCollateral: string
  readonly internalDocuments: string
}

export type BookedLoan = {
  readonly loanId: string
  readonly loan: LoanBody
  readonly applicationId: string
  readonly paths: LoanPaths
}

/** The paths of loan `loanId` of party `partyId`. */
export const loanPaths = (partyId: string, loanId: string): LoanPaths => {
  const loans = `/public/parties/${partyId}/loans`
  const loan = `${loans}/${loanId}`
  return {
    loans,
    loan,
    balances: `${loan}/balances`,
    latestBalance: `${loan}/balances/latest`,
    schedule: `${loan}/schedule`,
    transactions: `${loan}/transactions`,
    collateral: `${loan}/collateral`,
    documents: `${loan}/documents`,
    paymentMethods: `${loan}/payment-methods`,
    paymentMethod: (paymentMethodId) => `${loan}/payment-methods/${paymentMethodId}`,
    payments: `${loan}/payments`,
    internalCollateral: `/internal/loans/${loanId}/collateral`,
    internalDocuments: `/internal/loans/${loanId}/documents`,
  }
}

/**
 * Books a loan for `borrower` over HTTP: the borrower's key applies (by default for the seeded
 * Working Capital product, 1,200,000 USD over 12 months) and submits; the operator approves.
 * The loan starts on the server clock's UTC date.
 */
export const bookLoan = async (server: TestServer, borrower: Borrower, terms: Partial<LoanTerms> = {}): Promise<BookedLoan> => {
  const asBorrower = async (method: string, path: string, json: unknown, expected: number): Promise<Reply> => {
    const reply = await request(server.url, path, { method, headers: bearer(borrower.key.api_key), json })
    expect(reply.status, `${method} ${path}: ${reply.text}`).to.equal(expected)
    return reply
  }
  const draft = await asBorrower('POST', '/public/applications', { ...DEFAULT_LOAN_TERMS, ...terms }, 201)
  const applicationId = draft.body.application_id as string
  await asBorrower('POST', `/public/applications/${applicationId}/submit`, {}, 200)
  const approved = await request(server.url, `/internal/applications/${applicationId}/approve`, {
    method: 'POST',
    headers: operatorHeaders(borrower.key.environment),
    json: { decided_by: 'credit@lendgate' },
  })
  expect(approved.status, `approve: ${approved.text}`).to.equal(200)
  const loan = approved.body.loan as LoanBody
  return { loanId: loan.loan_id, loan, applicationId, paths: loanPaths(borrower.partyId, loan.loan_id) }
}

/** The fields docs/servicing.md gives each servicing record, in its order. */
export const DOCUMENTED_FIELDS = {
  transaction: ['transaction_id', 'loan_id', 'type', 'effective_date', 'amount', 'currency', 'principal', 'interest', 'fees', 'payment_id', 'reverses_transaction_id', 'sequence', 'created_at'],
  balance: [
    'balance_id',
    'loan_id',
    'as_of',
    'currency',
    'principal_outstanding',
    'interest_outstanding',
    'fees_outstanding',
    'payoff_amount',
    'past_due_amount',
    'next_due_date',
    'next_due_amount',
    'transaction_id',
    'sequence',
    'created_at',
  ],
  installment: [
    'installment_number',
    'due_date',
    'currency',
    'principal_due',
    'interest_due',
    'fees_due',
    'total_due',
    'principal_paid',
    'interest_paid',
    'fees_paid',
    'total_paid',
    'interest_accrued',
    'status',
  ],
  payment: ['payment_id', 'loan_id', 'status', 'amount', 'currency', 'payment_method_id', 'allocation', 'failure_code', 'return_code', 'effective_date', 'created_at'],
  paymentMethod: [
    'payment_method_id',
    'loan_id',
    'type',
    'nickname',
    'is_default',
    'status',
    'last4',
    'account_holder_name',
    'account_type',
    'brand',
    'exp_month',
    'exp_year',
    'created_at',
    'updated_at',
  ],
  collateral: ['collateral_id', 'loan_id', 'type', 'description', 'valuation', 'currency', 'lien_position', 'created_at'],
  document: ['document_id', 'loan_id', 'type', 'period_start', 'period_end', 'storage_ref', 'file_name', 'content_type', 'created_at'],
} as const

export type Resource = keyof typeof DOCUMENTED_FIELDS

/**
 * `body` cut to the documented fields of `resource` (a missing one stays missing, so a
 * whole-body comparison still catches it). Fields the docs do not name are checked, once, by
 * the shape tests; here they are left out so that every other test asserts the documented body.
 */
export const documented = (resource: Resource, body: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(
    DOCUMENTED_FIELDS[resource].filter((field) => field in body && !(UNCOMPARED[resource] ?? []).includes(field)).map((field) => [field, body[field]]),
  )

/**
 * Documented fields whose values depend on the database or the day rather than on the flow
 * (a ledger-wide sequence, the payment's date): the shape tests check they are there and
 * `sequence` is checked for order; whole-body comparisons leave them out.
 */
const UNCOMPARED: Partial<Record<Resource, readonly string[]>> = { transaction: ['sequence'], balance: ['sequence'], payment: ['effective_date'] }

/** Every item of a list, following `next_cursor` with pages of `limit`. */
export const allPages = async (server: TestServer, apiKey: string, path: string, limit = 100): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = []
  const separator = path.includes('?') ? '&' : '?'
  let cursor: string | null = null
  do {
    const page: Reply = await request(server.url, `${path}${separator}limit=${limit}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`, {
      headers: bearer(apiKey),
    })
    expect(page.status, `${path}: ${page.text}`).to.equal(200)
    items.push(...(page.body.data as Record<string, unknown>[]))
    cursor = page.body.next_cursor as string | null
  } while (cursor !== null)
  return items
}

/**
 * The servicing invariants, read through the API: the ledger's bucket sums equal the last
 * snapshot written (the ledger holds what has been posted); the latest balance (brought forward
 * to today) owes at least that interest and the same principal and fees, and its payoff is their
 * sum; the schedule owes exactly that principal and those fees. Returns the latest balance.
 */
export const expectLedgerMatchesLatestBalance = async (server: TestServer, apiKey: string, paths: LoanPaths, label = ''): Promise<Record<string, unknown>> => {
  const ledger = await allPages(server, apiKey, paths.transactions, 7)
  const sum = (bucket: 'principal' | 'interest' | 'fees'): number => ledger.reduce((total, t) => total + (t[bucket] as number), 0)
  const outstanding = { principal: sum('principal'), interest: sum('interest'), fees: sum('fees') }
  const snapshots = await allPages(server, apiKey, paths.balances)
  const written = snapshots[snapshots.length - 1]!
  expect(
    { principal: written['principal_outstanding'], interest: written['interest_outstanding'], fees: written['fees_outstanding'], payoff: written['payoff_amount'] },
    `${label} ledger sums vs the last snapshot`,
  ).to.deep.equal({ ...outstanding, payoff: outstanding.principal + outstanding.interest + outstanding.fees })
  const latest = await request(server.url, paths.latestBalance, { headers: bearer(apiKey) })
  expect(latest.status, latest.text).to.equal(200)
  const today = latest.body as Record<string, number>
  expect([today['principal_outstanding'], today['fees_outstanding']], `${label} latest balance vs ledger`).to.deep.equal([outstanding.principal, outstanding.fees])
  expect(today['interest_outstanding'], `${label} interest accrued since the last posting`).to.be.at.least(outstanding.interest)
  expect(today['payoff_amount']).to.equal(today['principal_outstanding']! + today['interest_outstanding']! + today['fees_outstanding']!)
  const schedule = await allPages(server, apiKey, paths.schedule)
  const owed = (bucket: 'principal' | 'fees'): number => schedule.reduce((total, i) => total + (i[`${bucket}_due`] as number) - (i[`${bucket}_paid`] as number), 0)
  expect({ principal: owed('principal'), fees: owed('fees') }, `${label} schedule still owed vs ledger`).to.deep.equal({ principal: outstanding.principal, fees: outstanding.fees })
  return latest.body as Record<string, unknown>
}

/** `amount × bps ÷ 120000` (one 30/360 month) rounded half up: written independently of the service. */
export const monthlyInterestOf = (principal: number, annualRateBps: number): number => Math.floor((principal * annualRateBps) / 120_000 + 0.5)
