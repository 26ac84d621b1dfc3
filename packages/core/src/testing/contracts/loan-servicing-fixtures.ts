import { applicationApprovedEvent, NOT_AUDITED, OPERATOR_CONTEXT } from '../../domain/audit/audit-event.js'
import { newLoanApplication, type LoanApplication } from '../../domain/loans/loan-application.js'
import type { LoanProduct } from '../../domain/loans/loan-product.js'
import { bookLoan, type BookedLoan, type LoanStatus } from '../../domain/loans/loan.js'
import type { PaymentMethod } from '../../domain/loans/payment-method.js'
import type { LoanApplicationRepository } from '../../ports/loan-application-repository.js'
import type { LoanRepository } from '../../ports/loan-repository.js'
import type { PaymentMethodRepository } from '../../ports/payment-method-repository.js'
import { at, freshId, right } from './run.js'
import type { ClientId, LoanId, PartyId } from '../../domain/foundations/ids.js'

/** Who a loan belongs to: a stored party and an API client (payments reference both). */
export type LoanBorrower = { readonly partyId: PartyId; readonly clientId: ClientId }

/** What `bookedLoan` may be told; anything left out is a new borrower, a fixed time, a fresh id, ACTIVE, 1,200,000. */
export type LoanToBook = {
  readonly borrower?: LoanBorrower
  /** When the loan is booked: its `createdAt` and (as a UTC date) its start date. */
  readonly at?: Date
  readonly id?: string
  /** A paid-off loan owes nothing: it has no oldest unpaid due date. */
  readonly status?: LoanStatus
  readonly amount?: number
}

/** The servicing suites' fixtures: the repositories and a factory of stored, booked loans. */
export type LoanServicingFixtures = {
  readonly loans: LoanRepository
  readonly methods: PaymentMethodRepository
  /** A stored party with an API client of its own. */
  readonly borrower: () => Promise<LoanBorrower>
  /** Books a loan the way approval does (`saveApproved` of an approved application) and returns it. */
  readonly bookedLoan: (options?: LoanToBook) => Promise<BookedLoan>
}

/** The default booking time of `bookedLoan`: start date 2026-03-10, first due date 2026-04-10. */
export const BOOKED_AT = at('2026-03-10T09:30:00.000Z')

/**
 * A `bookedLoan` factory over any `LoanApplicationRepository`: stores a submitted application of
 * `product` (1,200,000 over 12 months unless told) and approves it with the loan `bookLoan` books.
 */
export const bookingThrough =
  (applications: LoanApplicationRepository, product: LoanProduct, borrower: () => Promise<LoanBorrower>) =>
  async (options: LoanToBook = {}): Promise<BookedLoan> => {
    const owner = options.borrower ?? (await borrower())
    const now = options.at ?? BOOKED_AT
    const input = { product_id: product.id, amount: options.amount ?? 1_200_000, currency: product.currency, term_months: 12, purpose: 'Working capital' }
    const draft = newLoanApplication(input, owner, product, freshId(), now)
    await right(applications.insert(draft))
    const submitted = await right(applications.save({ ...draft, status: 'SUBMITTED', submittedAt: now, updatedAt: now }, NOT_AUDITED, []))
    let loanId = options.id
    const ids = (): string => {
      const id = loanId ?? freshId()
      loanId = undefined
      return id
    }
    const booked = bookLoan(submitted, { next: ids }, now)
    const loan = { ...booked.loan, ...(options.status === undefined ? {} : { status: options.status }), ...(options.status === 'PAID_OFF' ? { oldestUnpaidDueDate: null } : {}) }
    const approved: LoanApplication = {
      ...submitted,
      status: 'APPROVED',
      decision: { decision: 'APPROVED', reason: null, decidedBy: 'internal', decidedAt: now },
      loanId: loan.id,
      updatedAt: now,
    }
    const result = { ...booked, loan }
    await right(applications.saveApproved(approved, result, applicationApprovedEvent(freshId(), OPERATOR_CONTEXT, approved, loan, now), []))
    return result
  }

/** A tokenised bank account of `loanId`, as stored (payments reference a stored method). */
export const bankAccountOf = (loanId: LoanId, now: Date, isDefault = true): PaymentMethod => ({
  id: freshId(),
  loanId,
  type: 'bank_account',
  nickname: 'Operating account',
  isDefault,
  status: 'active',
  token: `btok_${freshId().replace(/-/g, '')}`,
  last4: '6789',
  accountHolderName: 'Acme Widgets LLC',
  accountType: 'checking',
  brand: null,
  expMonth: null,
  expYear: null,
  createdAt: now,
  updatedAt: now,
})
