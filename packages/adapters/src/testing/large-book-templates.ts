import { randomUUID } from 'node:crypto'
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
  registerOnboardingSessionWebhook,
  runInterestAccrual,
  submitContact,
  submitLoanApplication,
  submitOnboardingForReview,
  upsertApplicantProfile,
  verifyContact,
  mintApiKey,
  type Caller,
  type Clock,
  type ContactChannel,
  type CoreDeps,
  type VerificationCodeSender,
} from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { sql, type Kysely } from 'kysely'
import { postgresCoreDeps } from '../postgres-core-deps.js'
import type { OpenDatabase } from '../postgres/database.js'
import type { Database } from '../postgres/schema.js'

/** How many rows of `table` have `column` = `id`. */
export const countOf = async (db: Kysely<Database>, table: string, column: string, id: string): Promise<number> => {
  const { rows } = await sql<{ n: string }>`select count(*)::text as n from ${sql.table(table)} where ${sql.ref(column)} = ${id}`.execute(db)
  return Number(rows[0]?.n ?? 0)
}

/** The templates of a large book (`seedLargeBook`): made by the core's own use cases over the database. */

/** What the seeded book holds; see `seedLargeBook`. */
export type BookSizes = {
  /** Months of history of the seasoned template loan (the daily job runs for every day of them, each posting an accrual). */
  readonly historyMonths: number
  /** The seasoned loan is paid (its installment amount) once every this many days of its history. */
  readonly paymentEveryDays: number
  /** Ledger transactions of the long-ledger loan (its booking's entries, then one-cent payments). */
  readonly longLedger: number
  /** Loans of the subject borrower: the seasoned loan and its copies. */
  readonly subjectLoans: number
  /** Borrowers beside the subject, each with an approved session, an API client and a key. */
  readonly parties: number
  /** Loans beside the subject's, copies of the seasoned loan. */
  readonly loans: number
  /** How many of the `parties` hold `loansPerBigParty` loans each; every other loan has a party of its own. */
  readonly bigParties: number
  readonly loansPerBigParty: number
  /** Onboarding sessions still in progress, of the partner. */
  readonly openSessions: number
}

/** The records of the templates, which a benchmark or a test reads and writes through the API. */
export type BookSubject = {
  /** The partner's party; its client `book-partner` owns every onboarding session. */
  readonly partnerPartyId: string
  /** The subject borrower's party; its client `book-borrower` made its applications and payments. */
  readonly partyId: string
  readonly approvedSessionId: string
  readonly openSessionId: string
  readonly productId: string
  readonly seasonedLoanId: string
  readonly longLedgerLoanId: string
}

/** The client names the subject's keys are minted under (minting again for them reaches the same clients). */
export const BOOK_PARTNER_CLIENT = 'book-partner'
export const BOOK_BORROWER_CLIENT = 'book-borrower'

/** Told when a stage starts (0 done) and after every chunk: the stage, its chunks done and its chunks in all. */
export type BookProgress = (stage: string, done: number, total: number) => void

export type BookOptions = {
  readonly onProgress?: BookProgress
  /**
   * The instant the templates' history ends (default now): a day earlier leaves every loan a day
   * of interest for the daily servicing job to post today.
   */
  readonly historyEndsAt?: Date
}

const DAY_MS = 86_400_000
const PHONE = '+14155550123'
const EMAIL = 'jane@acme.example'
const BANK_ACCOUNT = { type: 'bank_account', account_holder_name: 'Acme Widgets LLC', routing_number: '011000015', account_number: '000123456789' }

/** A clock the templates move forward by hand. */
const movingClock = (start: Date): Clock & { readonly set: (at: Date) => void } => {
  let now = start
  return { now: () => now, set: (at) => (now = at) }
}

/** The codes the templates' contact verification sent, by destination. */
const codeInbox = (): VerificationCodeSender & { readonly last: (destination: string) => string } => {
  const sent = new Map<string, string>()
  return {
    send: (message) => TE.fromIO(() => void sent.set(message.destination, message.code)),
    last: (destination) => {
      const code = sent.get(destination)
      if (code === undefined) throw new Error(`no code was sent to ${destination}`)
      return code
    },
  }
}

/** The Right of `task`, or an error naming `what` with the Left. */
const run = async <A>(what: string, task: TE.TaskEither<unknown, A>): Promise<A> => {
  const result = await task()
  if (E.isLeft(result)) throw new Error(`large book: ${what} failed: ${JSON.stringify(result.left)}`)
  return result.right
}

const caller = async (deps: CoreDeps, partyId: string, clientName: string): Promise<Caller> => {
  const minted = await run(`minting a key for ${clientName}`, mintApiKey(deps)({ party_id: partyId, client_name: clientName }))
  return run(`authenticating ${clientName}`, authenticateApiKey(deps)(minted.plaintext))
}

const verified = async (deps: CoreDeps, inbox: ReturnType<typeof codeInbox>, partner: Caller, sessionId: string, channel: ContactChannel, destination: string) => {
  await run(`submitting the ${channel}`, submitContact(channel)(deps)(partner, { sessionId, [channel]: destination }))
  await run(`verifying the ${channel}`, verifyContact(channel)(deps)(partner, { sessionId, code: inbox.last(destination) }))
}

/** A session of the partner with a profile and a registered address, left in progress. */
const filledSession = async (deps: CoreDeps, partner: Caller): Promise<string> => {
  const { id: sessionId } = await run('creating a session', createOnboardingSession(deps)(partner, { country_of_incorporation: 'US', locale: 'en-US' }))
  await run('filling the profile', upsertApplicantProfile(deps)(partner, { sessionId, legal_name: 'Acme Widgets LLC', legal_form: 'llc', tax_id: '12-3456789' }))
  await run('adding an address', createOnboardingAddress(deps)(partner, { sessionId, type: 'registered', line1: '1 Main St', city: 'Springfield', postal_code: '62701', country: 'US' }))
  return sessionId
}

/** Applies for a loan, has it approved (booked today by `deps`' clock) and gives it a bank account. */
const bookedLoan = async (deps: CoreDeps, borrower: Caller, productId: string) => {
  const application = await run(
    'applying',
    createLoanApplication(deps)(borrower, { product_id: productId, amount: 5_000_000, currency: 'USD', term_months: 60, purpose: 'working capital' }),
  )
  await run('submitting the application', submitLoanApplication(deps)(borrower, { applicationId: application.id }))
  const { loan } = await run('approving the application', approveLoanApplication(deps)({ applicationId: application.id, decided_by: 'large-book' }))
  const method = await run('adding a bank account', createPaymentMethodForPartyLoan(deps)(borrower, { partyId: borrower.partyId, loanId: loan.id, ...BANK_ACCOUNT }))
  return { loan, methodId: method.id }
}

const pay = (deps: CoreDeps, borrower: Caller, loanId: string, methodId: string, amount: number, key: string) =>
  run(
    'paying',
    createPaymentIntentForPartyLoan(deps)(borrower, { partyId: borrower.partyId, loanId, amount, currency: 'USD', payment_method_id: methodId, idempotency_key: key }),
  )

/**
 * The templates, through the core with a clock that starts `historyMonths` ago: see the module's
 * comment. The history ends at `now`.
 */
export const makeTemplates = async (database: OpenDatabase, sizes: BookSizes, now: Date): Promise<BookSubject> => {
  const days = Math.round((sizes.historyMonths * 365.25) / 12)
  const clock = movingClock(new Date(now.getTime() - days * DAY_MS))
  const inbox = codeInbox()
  const deps = postgresCoreDeps(database, {
    clock,
    sender: inbox,
    webhookSecretKey: new Uint8Array(32).fill(9),
    webhookUrls: { allowHttp: false, allowPrivateNetworks: false, resolve: async () => ['93.184.216.34'] },
  })
  const partnerPartyId = randomUUID()
  const partner = await caller(deps, partnerPartyId, BOOK_PARTNER_CLIENT)
  const product = await run(
    'creating the product',
    createLoanProduct(deps)({
      name: 'Large Book Term Loan',
      currency: 'USD',
      min_amount: 100_000,
      max_amount: 100_000_000,
      min_term_months: 6,
      max_term_months: 60,
      interest_rate_bps: 1_200,
      origination_fee_bps: 100,
      late_fee_flat: 2_500,
      late_fee_grace_days: 10,
    }),
  )

  const approvedSessionId = await filledSession(deps, partner)
  for (const type of ['certificate_of_incorporation', 'bank_statement']) {
    await run('adding a document', createOnboardingDocumentMetadata(deps)(partner, { sessionId: approvedSessionId, type, storage_ref: `s3://large-book/${type}.pdf`, content_type: 'application/pdf' }))
  }
  await verified(deps, inbox, partner, approvedSessionId, 'phone', PHONE)
  await verified(deps, inbox, partner, approvedSessionId, 'email', EMAIL)
  await run('registering the webhook', registerOnboardingSessionWebhook(deps)(partner, { sessionId: approvedSessionId, webhook_url: 'https://hooks.partner.example/lendgate' }))
  await run('submitting the session', submitOnboardingForReview(deps)(partner, { sessionId: approvedSessionId }))
  const { party } = await run('approving the session', approveOnboardingSession(deps)({ sessionId: approvedSessionId, reviewed_by: 'large-book' }))
  const openSessionId = await filledSession(deps, partner)

  const borrower = await caller(deps, party.id, BOOK_BORROWER_CLIENT)
  await run('adding a party address', createPartyAddress(deps)(borrower, { partyId: party.id, type: 'mailing', line1: '2 Side St', city: 'Springfield', postal_code: '62702', country: 'US' }))
  await run('drafting an application', createLoanApplication(deps)(borrower, { product_id: product.id, amount: 1_000_000, currency: 'USD', term_months: 12 }))

  const seasoned = await bookedLoan(deps, borrower, product.id)
  await run('adding collateral', addLoanCollateral(deps)({ loanId: seasoned.loan.id, type: 'inventory', description: 'Stock held at 1 Main St', valuation: 1_800_000, currency: 'USD' }))
  await run('attaching a document', attachLoanDocument(deps)({ loanId: seasoned.loan.id, type: 'agreement', storage_ref: 's3://large-book/agreement.pdf', content_type: 'application/pdf' }))
  for (let day = 1; day <= days; day++) {
    clock.set(new Date(now.getTime() - (days - day) * DAY_MS))
    await run('the daily accrual', runInterestAccrual(deps)({}))
    if (day % sizes.paymentEveryDays === 0) await pay(deps, borrower, seasoned.loan.id, seasoned.methodId, seasoned.loan.paymentAmount, `book-${day}`)
  }

  const long = await bookedLoan(deps, borrower, product.id)
  // Booking wrote the disbursement and the fee's entries; a one-cent payment adds one more.
  const booked = await countOf(database.db, 'loan_transactions', 'loan_id', long.loan.id)
  for (let n = booked; n < sizes.longLedger; n++) await pay(deps, borrower, long.loan.id, long.methodId, 1, `book-long-${n}`)

  return { partnerPartyId, partyId: party.id, approvedSessionId, openSessionId, productId: product.id, seasonedLoanId: seasoned.loan.id, longLedgerLoanId: long.loan.id }
}
