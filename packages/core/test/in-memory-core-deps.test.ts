import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import {
  addLoanCollateral,
  approveLoanApplication,
  approveOnboardingSession,
  attachLoanDocument,
  authenticateApiKey,
  createLoanApplication,
  createLoanProduct,
  createOnboardingAddress,
  createOnboardingDocumentMetadata,
  createOnboardingSession,
  createPartyAddress,
  createPaymentIntentForPartyLoan,
  createPaymentMethodForPartyLoan,
  declineLoanApplication,
  getLatestLoanBalanceForParty,
  getLoanApplication,
  getLoanForParty,
  getOnboardingSession,
  getParty,
  getPartyBySessionId,
  listApiKeys,
  listAuditEvents,
  listAvailableLoanProductsForParty,
  listCollateralForPartyLoan,
  listDocumentsForOnboardingSession,
  listDocumentsForPartyLoan,
  listLoanApplicationsForReview,
  listLoanBalancesForParty,
  listLoanProducts,
  listLoanScheduleForParty,
  listLoansForParty,
  listOnboardingAddresses,
  listOnboardingSessionsForReview,
  listOnboardingSessionWebhookDeliveries,
  listPartyAddresses,
  listPartyApplications,
  listPaymentMethodsForPartyLoan,
  listPendingOnboardingRequirements,
  listTransactionsForPartyLoan,
  mintApiKey,
  previewLoanApplicationSchedule,
  registerOnboardingSessionWebhook,
  rejectOnboardingSession,
  retryContactVerification,
  retryWebhookDelivery,
  reverseLoanPayment,
  revokeApiKey,
  runInterestAccrual,
  submitContact,
  submitLoanApplication,
  submitOnboardingForReview,
  updateLoanApplication,
  updateLoanProduct,
  updateOnboardingAddress,
  updatePartyAddress,
  updatePaymentMethodForPartyLoan,
  upsertApplicantProfile,
  verifyContact,
  withdrawLoanApplication,
  type Caller,
  type CoreDeps,
} from '../src/index.js'
import { inMemoryCoreDeps, type InMemoryCoreDeps } from '../src/testing/index.js'

/** Every member of `CoreDeps`, by name (the compiler keeps this list complete). */
const MEMBERS: Record<keyof CoreDeps, true> = {
  apiKeys: true,
  keyMaterial: true,
  usage: true,
  sessions: true,
  eventLog: true,
  eventEndpoints: true,
  documents: true,
  parties: true,
  challenges: true,
  codes: true,
  sender: true,
  testClocks: true,
  world: true,
  webhooks: true,
  events: true,
  webhookSecrets: true,
  accountSeal: true,
  urlGuard: true,
  products: true,
  operators: true,
  operatorSecrets: true,
  applications: true,
  loans: true,
  paymentMethods: true,
  processor: true,
  tokenizer: true,
  audit: true,
  ids: true,
  clock: true,
}

/**
 * Every use case given one `CoreDeps`: a check made by the compiler, not at run time (`tsc -b`
 * fails on this file if any use case needs more than `CoreDeps` gives).
 */
export const everyUseCase = (deps: CoreDeps) => ({
  mintApiKey: mintApiKey(deps),
  authenticateApiKey: authenticateApiKey(deps),
  listApiKeys: listApiKeys(deps),
  revokeApiKey: revokeApiKey(deps),
  createOnboardingSession: createOnboardingSession(deps),
  getOnboardingSession: getOnboardingSession(deps),
  upsertApplicantProfile: upsertApplicantProfile(deps),
  createOnboardingAddress: createOnboardingAddress(deps),
  updateOnboardingAddress: updateOnboardingAddress(deps),
  listOnboardingAddresses: listOnboardingAddresses(deps),
  listPendingOnboardingRequirements: listPendingOnboardingRequirements(deps),
  submitContact: submitContact('phone')(deps),
  retryContactVerification: retryContactVerification('email')(deps),
  verifyContact: verifyContact('phone')(deps),
  createOnboardingDocumentMetadata: createOnboardingDocumentMetadata(deps),
  listDocumentsForOnboardingSession: listDocumentsForOnboardingSession(deps),
  submitOnboardingForReview: submitOnboardingForReview(deps),
  approveOnboardingSession: approveOnboardingSession(deps),
  rejectOnboardingSession: rejectOnboardingSession(deps),
  listOnboardingSessionsForReview: listOnboardingSessionsForReview(deps),
  getPartyBySessionId: getPartyBySessionId(deps),
  registerOnboardingSessionWebhook: registerOnboardingSessionWebhook(deps),
  listOnboardingSessionWebhookDeliveries: listOnboardingSessionWebhookDeliveries(deps),
  retryWebhookDelivery: retryWebhookDelivery(deps),
  getParty: getParty(deps),
  listPartyAddresses: listPartyAddresses(deps),
  createPartyAddress: createPartyAddress(deps),
  updatePartyAddress: updatePartyAddress(deps),
  listAvailableLoanProductsForParty: listAvailableLoanProductsForParty(deps),
  listLoanProducts: listLoanProducts(deps),
  createLoanProduct: createLoanProduct(deps),
  updateLoanProduct: updateLoanProduct(deps),
  createLoanApplication: createLoanApplication(deps),
  getLoanApplication: getLoanApplication(deps),
  updateLoanApplication: updateLoanApplication(deps),
  submitLoanApplication: submitLoanApplication(deps),
  withdrawLoanApplication: withdrawLoanApplication(deps),
  previewLoanApplicationSchedule: previewLoanApplicationSchedule(deps),
  listPartyApplications: listPartyApplications(deps),
  approveLoanApplication: approveLoanApplication(deps),
  declineLoanApplication: declineLoanApplication(deps),
  listLoanApplicationsForReview: listLoanApplicationsForReview(deps),
  listLoansForParty: listLoansForParty(deps),
  getLoanForParty: getLoanForParty(deps),
  listLoanBalancesForParty: listLoanBalancesForParty(deps),
  getLatestLoanBalanceForParty: getLatestLoanBalanceForParty(deps),
  listTransactionsForPartyLoan: listTransactionsForPartyLoan(deps),
  listLoanScheduleForParty: listLoanScheduleForParty(deps),
  listCollateralForPartyLoan: listCollateralForPartyLoan(deps),
  listDocumentsForPartyLoan: listDocumentsForPartyLoan(deps),
  listPaymentMethodsForPartyLoan: listPaymentMethodsForPartyLoan(deps),
  createPaymentMethodForPartyLoan: createPaymentMethodForPartyLoan(deps),
  updatePaymentMethodForPartyLoan: updatePaymentMethodForPartyLoan(deps),
  createPaymentIntentForPartyLoan: createPaymentIntentForPartyLoan(deps),
  reverseLoanPayment: reverseLoanPayment(deps),
  runInterestAccrual: runInterestAccrual(deps),
  addLoanCollateral: addLoanCollateral(deps),
  attachLoanDocument: attachLoanDocument(deps),
  listAuditEvents: listAuditEvents(deps),
})

const PARTNER_PARTY = '0b6a3f2e-8f5c-4d8e-9a37-1c2d3e4f5a6b'
const PHONE = '+14155550123'
const EMAIL = 'jane@acme.example'

const run = async <A>(te: TE.TaskEither<unknown, A>): Promise<A> => {
  const r = await te()
  if (E.isLeft(r)) throw new Error(`expected Right, got ${JSON.stringify(r.left)}`)
  return r.right
}

/** A partner's caller: a minted key, authenticated. */
const partner = async (deps: InMemoryCoreDeps): Promise<Caller> => {
  const minted = await run(mintApiKey(deps)({ party_id: PARTNER_PARTY, client_name: 'partner' }))
  return run(authenticateApiKey(deps)(minted.plaintext))
}

/** The code last sent to `destination`. */
const codeSentTo = (deps: InMemoryCoreDeps, destination: string): string => {
  const message = deps.sender.sent().findLast((m) => m.destination === destination)
  if (message === undefined) throw new Error(`no code sent to ${destination}`)
  return message.code
}

/** A session with everything review needs, submitted. */
const submittedSession = async (deps: InMemoryCoreDeps, caller: Caller): Promise<string> => {
  const { id: sessionId } = await run(createOnboardingSession(deps)(caller, { country_of_incorporation: 'US', locale: 'en-US' }))
  await run(submitContact('phone')(deps)(caller, { sessionId, phone: PHONE }))
  await run(verifyContact('phone')(deps)(caller, { sessionId, code: codeSentTo(deps, PHONE) }))
  await run(submitContact('email')(deps)(caller, { sessionId, email: EMAIL }))
  await run(verifyContact('email')(deps)(caller, { sessionId, code: codeSentTo(deps, EMAIL) }))
  await run(upsertApplicantProfile(deps)(caller, { sessionId, legal_name: 'Acme Widgets LLC' }))
  await run(createOnboardingAddress(deps)(caller, { sessionId, line1: '1 Main St', city: 'Springfield', postal_code: '62701', country: 'US' }))
  await run(submitOnboardingForReview(deps)(caller, { sessionId }))
  return sessionId
}

describe('inMemoryCoreDeps', () => {
  it('builds every member of CoreDeps, and nothing else', () => {
    expect(Object.keys(inMemoryCoreDeps()).sort()).to.deep.equal(Object.keys(MEMBERS).sort())
  })

  it('starts its clock where told and moves it only when told', () => {
    const deps = inMemoryCoreDeps({ start: new Date('2027-03-01T09:00:00.000Z') })
    expect(deps.clock.now()).to.deep.equal(new Date('2027-03-01T09:00:00.000Z'))
    deps.clock.advance(60_000)
    expect(deps.clock.now()).to.deep.equal(new Date('2027-03-01T09:01:00.000Z'))
  })

  describe('when a contact is submitted', () => {
    it('keeps the code it sends, which verifies the contact at the clock’s time', async () => {
      const deps = inMemoryCoreDeps()
      const caller = await partner(deps)
      const { id: sessionId } = await run(createOnboardingSession(deps)(caller, { country_of_incorporation: 'US', locale: 'en-US' }))
      const sent = await run(submitContact('phone')(deps)(caller, { sessionId, phone: PHONE }))

      expect(deps.sender.sent()).to.deep.equal([{ sessionId, channel: 'phone', destination: PHONE, code: '100000', expiresAt: sent.challenge?.expiresAt }])
      deps.clock.advance(30_000)
      const verified = await run(verifyContact('phone')(deps)(caller, { sessionId, code: '100000' }))
      expect(verified.phone).to.deep.equal({ value: PHONE, verifiedAt: deps.clock.now() })
    })
  })

  describe('when a session is approved', () => {
    it('writes the party where `parties` reads it, queues party.ready in `events` and audits it', async () => {
      const deps = inMemoryCoreDeps()
      const sessionId = await submittedSession(deps, await partner(deps))
      const { party } = await run(approveOnboardingSession(deps)({ sessionId }))

      expect(await run(deps.parties.findById(party.id))).to.deep.equal(O.some(party))
      expect(deps.events.all().map((e) => ({ sessionId: e.sessionId, type: e.type, status: e.status }))).to.deep.equal([
        { sessionId, type: 'party.ready', status: 'pending' },
      ])
      expect(deps.audit.all().map((e) => e.action)).to.deep.equal(['api_key.minted', 'onboarding_session.approved'])
    })
  })

  describe('when an application is approved', () => {
    it('books the loan where `loans` reads it, and a payment goes through the sandbox-like processor', async () => {
      const deps = inMemoryCoreDeps()
      const sessionId = await submittedSession(deps, await partner(deps))
      const { party } = await run(approveOnboardingSession(deps)({ sessionId }))
      const borrowerKey = await run(mintApiKey(deps)({ party_id: party.id, client_name: 'borrower' }))
      const borrower = await run(authenticateApiKey(deps)(borrowerKey.plaintext))
      const product = await run(
        createLoanProduct(deps)({ name: 'Term', currency: 'USD', min_amount: 100_000, max_amount: 2_000_000, min_term_months: 6, max_term_months: 24, interest_rate_bps: 1_000 }),
      )
      const draft = await run(createLoanApplication(deps)(borrower, { product_id: product.id, amount: 1_200_000, currency: 'USD', term_months: 12 }))
      await run(submitLoanApplication(deps)(borrower, { applicationId: draft.id }))
      const { loan } = await run(approveLoanApplication(deps)({ applicationId: draft.id }))
      const loanId = loan.id
      const method = await run(
        createPaymentMethodForPartyLoan(deps)(borrower, {
          partyId: party.id,
          loanId,
          type: 'bank_account',
          account_holder_name: 'Acme Widgets LLC',
          routing_number: '011000015',
          account_number: '000123456789',
        }),
      )
      const payment = await run(
        createPaymentIntentForPartyLoan(deps)(borrower, { partyId: party.id, loanId, amount: 50_000, currency: 'USD', payment_method_id: method.id, idempotency_key: 'first' }),
      )
      const balance = await run(getLatestLoanBalanceForParty(deps)(borrower, { partyId: party.id, loanId }))

      // The loan as booked, its servicing checkpoint moved on by the payment.
      expect(deps.loans.all().map((booked) => ({ ...booked.loan, checkpoint: null }))).to.deep.equal([{ ...loan, checkpoint: null }])
      expect(method.token).to.equal('btok_1')
      expect(deps.processor.charges()).to.deep.equal([{ idempotencyKey: `${borrower.clientId}/first`, paymentId: payment.id, amount: 50_000, currency: 'USD', token: 'btok_1', methodType: 'bank_account' }])
      expect({ status: payment.status, principalOutstanding: balance.principalOutstanding }).to.deep.equal({ status: 'SUCCEEDED', principalOutstanding: 1_150_000 })
    })
  })
})
