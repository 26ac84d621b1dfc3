import {
  approveLoanApplication,
  approveOnboardingSession,
  authenticateApiKey,
  balanceView,
  createLoanApplication,
  createLoanProduct,
  createOnboardingAddress,
  createOnboardingDocumentMetadata,
  createOnboardingSession,
  createPaymentIntentForPartyLoan,
  createPaymentMethodForPartyLoan,
  getLatestLoanBalanceForParty,
  listLoanProducts,
  mintApiKey,
  paymentView,
  submitContact,
  submitLoanApplication,
  submitOnboardingForReview,
  upsertApplicantProfile,
  verifyContact,
  type Caller,
  type ContactChannel,
  type CoreDeps,
  type Loan,
  type LoanProduct,
  type Party,
  type Payment,
} from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { CodeInbox } from './code-inbox.js'

/**
 * One borrower's whole journey through the core's use cases, called directly as another
 * internal service would: no HTTP, one `CoreDeps`. Partner use cases take the `Caller` an
 * authenticated key stands for and one command; operator use cases take the command alone.
 * A command is a plain object under the API's wire names: path parameters by their names
 * (`sessionId`, `loanId`, …), body fields by their JSON names (`legal_name`, `idempotency_key`).
 */

/** The loan the journey applies for, in minor units: USD 12,000.00 over 12 months. */
export const LOAN_AMOUNT = 1_200_000
/** The one payment the journey makes, in minor units: USD 500.00. */
export const PAYMENT_AMOUNT = 50_000

/**
 * The principal owed after the payment. It is paid on the day the loan is booked: interest
 * accrues on due dates (none has passed) and the origination fee is withheld from the
 * disbursement (none is owed), so the whole payment goes to principal.
 */
export const EXPECTED_PRINCIPAL_OUTSTANDING = LOAN_AMOUNT - PAYMENT_AMOUNT

/** The product the journey applies for; the operator creates it when the catalogue lacks it. */
export const JOURNEY_PRODUCT = {
  name: 'Embedded Service Term Loan',
  description: 'The term loan of the embedded-service example.',
  currency: 'USD',
  min_amount: 100_000,
  max_amount: 5_000_000,
  min_term_months: 6,
  max_term_months: 36,
  interest_rate_bps: 1_000,
  origination_fee_bps: 150,
} as const

/** The partner's own party, which its service key is minted for. */
const PARTNER_PARTY_ID = '7d1f0c2a-5b3e-4c6d-8e9f-0a1b2c3d4e5f'
const PHONE = '+14155550123'
const EMAIL = 'jane@acme.example'
const PROFILE = { legal_name: 'Acme Widgets LLC', legal_form: 'llc', tax_id: '12-3456789' }
const ADDRESS = { type: 'registered', line1: '1 Main St', city: 'Springfield', postal_code: '62701', country: 'US' }
const DOCUMENTS = [
  { type: 'certificate_of_incorporation', storage_ref: 's3://acme-onboarding/certificate.pdf', content_type: 'application/pdf' },
  { type: 'bank_statement', storage_ref: 's3://acme-onboarding/statement-2026-01.pdf', content_type: 'application/pdf' },
]
const BANK_ACCOUNT = { type: 'bank_account', account_holder_name: 'Acme Widgets LLC', routing_number: '011000015', account_number: '000123456789' }

/** Where the journey stopped: the step, and the Left its use case returned. */
export type JourneyFailure = { readonly step: string; readonly error: unknown }

/** What the journey ends with, as the API would show it. */
export type JourneyReport = {
  readonly party_id: string
  readonly loan_id: string
  readonly payment: ReturnType<typeof paymentView>
  readonly balance: ReturnType<typeof balanceView>
}

type Step<A> = TE.TaskEither<JourneyFailure, A>

/** `task`, its Left named by the step it failed. */
const step = <E, A>(name: string, task: TE.TaskEither<E, A>): Step<A> =>
  pipe(
    task,
    TE.mapLeft((error) => ({ step: name, error })),
  )

/** A key minted for `partyId` (an operator's act), authenticated as a request's key would be. */
const callerFor = (deps: CoreDeps, partyId: string, clientName: string): Step<Caller> =>
  pipe(
    step(`mint a key for ${clientName}`, mintApiKey(deps)({ party_id: partyId, client_name: clientName })),
    TE.chain((minted) => step(`authenticate the key of ${clientName}`, authenticateApiKey(deps)(minted.plaintext))),
  )

/** Profile, registered address and documents. */
const fillSession = (deps: CoreDeps, partner: Caller, sessionId: string): Step<unknown> =>
  pipe(
    step('fill the applicant profile', upsertApplicantProfile(deps)(partner, { sessionId, ...PROFILE })),
    TE.chain(() => step('add the registered address', createOnboardingAddress(deps)(partner, { sessionId, ...ADDRESS }))),
    TE.chain(() =>
      TE.traverseSeqArray((document: (typeof DOCUMENTS)[number]) =>
        step(`add the ${document.type} document`, createOnboardingDocumentMetadata(deps)(partner, { sessionId, ...document })),
      )(DOCUMENTS),
    ),
  )

/** Submits the phone or email, reads the code the inbox received, and verifies it. */
const verifyContactOf = (deps: CoreDeps, inbox: Pick<CodeInbox, 'lastCodeFor'>, partner: Caller, sessionId: string, channel: ContactChannel, destination: string) =>
  pipe(
    step(`submit the ${channel}`, submitContact(channel)(deps)(partner, { sessionId, [channel]: destination })),
    TE.chain(() => step(`read the ${channel} code`, TE.fromOption(() => `no code reached ${channel === 'phone' ? 'the phone' : 'the inbox'}`)(inbox.lastCodeFor(destination)))),
    TE.chain((code) => step(`verify the ${channel}`, verifyContact(channel)(deps)(partner, { sessionId, code }))),
  )

/** Onboards the borrower with the partner's key and has an operator approve it: the new party. */
const onboardBorrower = (deps: CoreDeps, inbox: Pick<CodeInbox, 'lastCodeFor'>, partner: Caller): Step<Party> =>
  pipe(
    step('create an onboarding session', createOnboardingSession(deps)(partner, { country_of_incorporation: 'US', locale: 'en-US' })),
    TE.map((session) => session.id),
    TE.chainFirst((sessionId) => fillSession(deps, partner, sessionId)),
    TE.chainFirst((sessionId) => verifyContactOf(deps, inbox, partner, sessionId, 'phone', PHONE)),
    TE.chainFirst((sessionId) => verifyContactOf(deps, inbox, partner, sessionId, 'email', EMAIL)),
    TE.chainFirst((sessionId) => step('submit the session for review', submitOnboardingForReview(deps)(partner, { sessionId }))),
    TE.chain((sessionId) => step('approve the session (operator)', approveOnboardingSession(deps)({ sessionId, reviewed_by: 'embedded-service' }))),
    TE.map(({ party }) => party),
  )

/** The journey's product in the active catalogue, read page by page. */
const findJourneyProduct = (deps: CoreDeps, cursor: string | null): Step<O.Option<LoanProduct>> =>
  pipe(
    step('list the loan products (operator)', listLoanProducts(deps)({ active: 'true', limit: 100, ...(cursor === null ? {} : { cursor }) })),
    TE.chain((page) => {
      const found = page.items.find((product) => product.name === JOURNEY_PRODUCT.name)
      return found !== undefined || page.nextCursor === null ? TE.right(O.fromNullable(found)) : findJourneyProduct(deps, page.nextCursor)
    }),
  )

/** The journey's product, created by an operator if the catalogue lacks it. */
const journeyProduct = (deps: CoreDeps): Step<LoanProduct> =>
  pipe(
    findJourneyProduct(deps, null),
    TE.chain(O.match(() => step('create the loan product (operator)', createLoanProduct(deps)(JOURNEY_PRODUCT)), TE.right)),
  )

/** Applies, submits, and has an operator approve, which books the loan. */
const bookLoan = (deps: CoreDeps, borrower: Caller, product: LoanProduct): Step<Loan> =>
  pipe(
    step(
      'create a loan application',
      createLoanApplication(deps)(borrower, { product_id: product.id, amount: LOAN_AMOUNT, currency: product.currency, term_months: 12, purpose: 'inventory' }),
    ),
    TE.chainFirst((application) => step('submit the application', submitLoanApplication(deps)(borrower, { applicationId: application.id }))),
    TE.chain((application) => step('approve the application (operator)', approveLoanApplication(deps)({ applicationId: application.id, decided_by: 'embedded-service' }))),
    TE.map(({ loan }) => loan),
  )

/** A failed charge is a Right of the use case (recorded, no balance moved) but not what the journey wants. */
const succeeded = (payment: Payment): E.Either<JourneyFailure, Payment> =>
  payment.status === 'SUCCEEDED' ? E.right(payment) : E.left({ step: 'take a payment', error: { status: payment.status, failure_code: payment.failureCode } })

/** Registers a bank account and pays once with it, under an idempotency key of the loan. */
const payOnce = (deps: CoreDeps, borrower: Caller, loan: Loan): Step<Payment> =>
  pipe(
    step('register a bank account', createPaymentMethodForPartyLoan(deps)(borrower, { partyId: borrower.partyId, loanId: loan.id, ...BANK_ACCOUNT })),
    TE.chain((method) =>
      step(
        'take a payment',
        createPaymentIntentForPartyLoan(deps)(borrower, {
          partyId: borrower.partyId,
          loanId: loan.id,
          amount: PAYMENT_AMOUNT,
          currency: loan.currency,
          payment_method_id: method.id,
          idempotency_key: `first-payment-${loan.id}`,
        }),
      ),
    ),
    TE.chainEitherK(succeeded),
  )

/** Pays once and reads the balance that follows. */
const repay = (deps: CoreDeps, borrower: Caller, loan: Loan): Step<JourneyReport> =>
  pipe(
    payOnce(deps, borrower, loan),
    TE.chain((payment) =>
      pipe(
        step('read the latest balance', getLatestLoanBalanceForParty(deps)(borrower, { partyId: borrower.partyId, loanId: loan.id })),
        TE.map((balance) => ({ party_id: borrower.partyId, loan_id: loan.id, payment: paymentView(payment), balance: balanceView(balance) })),
      ),
    ),
  )

/** The report, if its balance is the one the journey's arithmetic expects. */
export const checkBalance = (report: JourneyReport): E.Either<JourneyFailure, JourneyReport> =>
  report.balance.principal_outstanding === EXPECTED_PRINCIPAL_OUTSTANDING
    ? E.right(report)
    : E.left({ step: 'check the balance', error: { expected_principal_outstanding: EXPECTED_PRINCIPAL_OUTSTANDING, principal_outstanding: report.balance.principal_outstanding } })

/**
 * The journey: the partner's key → onboarding (codes read from `inbox`) → approval → the
 * borrower's key → product → application → approval (the loan is booked) → bank account →
 * payment → balance, checked. The first Left stops it, named by its step.
 */
export const runJourney = (deps: CoreDeps, inbox: Pick<CodeInbox, 'lastCodeFor'>): Step<JourneyReport> =>
  pipe(
    callerFor(deps, PARTNER_PARTY_ID, 'embedded-service'),
    TE.chain((partner) => onboardBorrower(deps, inbox, partner)),
    TE.chain((party) => callerFor(deps, party.id, 'embedded-service-borrower')),
    TE.chain((borrower) =>
      pipe(
        journeyProduct(deps),
        TE.chain((product) => bookLoan(deps, borrower, product)),
        TE.chain((loan) => repay(deps, borrower, loan)),
      ),
    ),
    TE.chainEitherK(checkBalance),
  )
