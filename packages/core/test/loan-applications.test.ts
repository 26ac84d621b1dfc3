import { DEFAULT_SERVICING_TERMS } from '../src/domain/loans/servicing-terms.js'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import type { Caller } from '../src/domain/keys/api-key.js'
import { concurrentUpdate, invalidRequest, invalidState, notFound, partyMismatch } from '../src/domain/foundations/errors.js'
import {
  APPLICATION_STATUSES,
  applicationTransition,
  type ApplicationAction,
  type ApplicationStatus,
  type LoanApplication,
} from '../src/domain/loans/loan-application.js'
import type { LoanProduct } from '../src/domain/loans/loan-product.js'
import { bookLoan } from '../src/domain/loans/loan.js'
import { schedulePreview } from '../src/views/loan-applications.js'
import { encodeCursor } from '../src/domain/foundations/pagination.js'
import type { Party } from '../src/domain/onboarding/party.js'
import { acmeParty } from './fixtures/parties.js'
import {
  createLoanApplication,
  getLoanApplication,
  listPartyApplications,
  previewLoanApplicationSchedule,
  submitLoanApplication,
  updateLoanApplication,
  withdrawLoanApplication,
} from '../src/use-cases/applications/applications.js'
import { approveLoanApplication, declineLoanApplication, listLoanApplicationsForReview } from '../src/use-cases/applications/decisioning.js'
import { updateLoanProduct } from '../src/use-cases/loan-products/loan-products.js'
import {
  inMemoryLoanApplicationRepository,
  inMemoryLoanProductRepository,
  inMemoryOnboardingSessionRepository,
  sequentialIds,
  testClock,
} from '../src/testing/index.js'
import { testId } from '../src/testing/test-ids.js'

/** Loan applications and their decisioning (docs/applications.md), against the in-memory adapters. */

const T0 = new Date('2026-01-15T10:00:00.000Z')
const PARTY = testId('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa')
const OTHER_PARTY = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb'
const NO_PARTY = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc'
const UNKNOWN_ID = 'dddddddd-dddd-4ddd-8ddd-dddddddddddd'

const callerOf = (partyId: string, clientId = 'client-1'): Caller => ({ keyId: testId('key-1'), clientId: testId(clientId), partyId: testId(partyId), environment: 'live', scopes: ['partner:api'] })
const caller = callerOf(PARTY)
const otherCaller = callerOf(OTHER_PARTY, 'client-2')

const product = (over: Partial<LoanProduct> & Pick<LoanProduct, 'id'>): LoanProduct => ({
  name: 'Product',
  description: null,
  currency: 'USD',
  minAmount: 100_000,
  maxAmount: 1_000_000,
  minTermMonths: 3,
  maxTermMonths: 12,
  interestRateBps: 0,
  originationFeeBps: 0,
  repaymentFrequency: 'MONTHLY',
  servicing: DEFAULT_SERVICING_TERMS,
  active: true,
  createdAt: new Date('2025-12-01T00:00:00.000Z'),
  updatedAt: new Date('2025-12-01T00:00:00.000Z'),
  ...over,
})

/** The catalogue a fresh database holds (docs/applications.md "Loan products"), and a retired product. */
const WORKING_CAPITAL = product({
  id: testId('5b0c1d2e-0001-4a00-8000-000000000001'),
  name: 'Working Capital Term Loan',
  minAmount: 500_000,
  maxAmount: 25_000_000,
  minTermMonths: 6,
  maxTermMonths: 36,
  interestRateBps: 1199,
  originationFeeBps: 200,
})
const EQUIPMENT = product({
  id: testId('5b0c1d2e-0002-4a00-8000-000000000002'),
  name: 'Equipment Financing',
  minAmount: 1_000_000,
  maxAmount: 50_000_000,
  minTermMonths: 12,
  maxTermMonths: 60,
  interestRateBps: 899,
  originationFeeBps: 100,
})
const STARTER = product({
  id: testId('5b0c1d2e-0003-4a00-8000-000000000003'),
  name: 'Interest-Free Starter Loan',
  interestRateBps: 0,
  originationFeeBps: 300,
})
const RETIRED = product({ id: testId('5b0c1d2e-0004-4a00-8000-000000000004'), name: 'Retired', active: false })

const party = (id: string): Party =>
  acmeParty({ id: testId(id), sessionId: testId('11111111-1111-4111-8111-111111111111'), clientId: testId('client-1'), createdAt: new Date('2026-01-01T00:00:00.000Z') })

const DRAFT_INPUT = { product_id: WORKING_CAPITAL.id, amount: 1_200_000, currency: 'USD', term_months: 12, purpose: 'Inventory' }

const setup = () => {
  const products = inMemoryLoanProductRepository([WORKING_CAPITAL, EQUIPMENT, STARTER, RETIRED])
  const sessions = inMemoryOnboardingSessionRepository(new Map([PARTY, OTHER_PARTY].map((id) => [id, party(id)])))
  const applications = inMemoryLoanApplicationRepository()
  const deps = { applications, products, parties: sessions.parties, ids: sequentialIds(), clock: testClock(T0) }
  const run = async <A>(te: () => Promise<E.Either<unknown, A>>): Promise<A> => {
    const r = await te()
    if (E.isLeft(r)) throw new Error(`expected Right, got ${JSON.stringify(r.left)}`)
    return r.right
  }
  const create = (input: object = DRAFT_INPUT, who: Caller = caller) => run(createLoanApplication(deps)(who, input))
  const submit = (a: LoanApplication, who: Caller = caller) => run(submitLoanApplication(deps)(who, { applicationId: a.id }))
  const changeProduct = (p: LoanProduct, patch: object) => run(updateLoanProduct(deps)({ productId: p.id, ...patch }))
  /** A fresh application of the caller's party in `status`, reached through the use cases. */
  const inStatus = async (status: ApplicationStatus): Promise<LoanApplication> => {
    const draft = await create()
    if (status === 'DRAFT') return draft
    if (status === 'WITHDRAWN') return run(withdrawLoanApplication(deps)(caller, { applicationId: draft.id }))
    const submitted = await submit(draft)
    if (status === 'SUBMITTED') return submitted
    if (status === 'APPROVED') return (await run(approveLoanApplication(deps)({ applicationId: draft.id }))).application
    return run(declineLoanApplication(deps)({ applicationId: draft.id, reason: 'Too risky' }))
  }
  /** Everything the repository holds: applications and booked loans. */
  const snapshot = () => ({ applications: applications.all(), loans: applications.loans.all() })
  return { deps, products, applications, run, create, submit, changeProduct, inStatus, snapshot }
}

describe('applicationTransition', () => {
  const allowed: Readonly<Record<ApplicationAction, Partial<Record<ApplicationStatus, ApplicationStatus>>>> = {
    edit: { DRAFT: 'DRAFT' },
    submit: { DRAFT: 'SUBMITTED' },
    withdraw: { DRAFT: 'WITHDRAWN', SUBMITTED: 'WITHDRAWN' },
    approve: { SUBMITTED: 'APPROVED' },
    decline: { SUBMITTED: 'DECLINED' },
  }

  it('allows exactly the moves of the state machine and refuses every other with InvalidState naming the status', () => {
    const actions = Object.keys(allowed) as ApplicationAction[]
    const table = APPLICATION_STATUSES.flatMap((status) => actions.map((action) => [status, action, applicationTransition(status, action)] as const))
    expect(table).to.deep.equal(
      APPLICATION_STATUSES.flatMap((status) =>
        actions.map((action) => {
          const to = allowed[action][status]
          return [status, action, to === undefined ? E.left(invalidState('loan_application', status, action)) : E.right(to)] as const
        }),
      ),
    )
  })

  it('leaves APPROVED, DECLINED and WITHDRAWN final', () => {
    for (const status of ['APPROVED', 'DECLINED', 'WITHDRAWN'] as const) {
      for (const action of ['edit', 'submit', 'withdraw', 'approve', 'decline'] as const) {
        expect(applicationTransition(status, action)).to.deep.equal(E.left(invalidState('loan_application', status, action)))
      }
    }
  })

  describe('through the use cases', () => {
    const attempt = (w: ReturnType<typeof setup>, action: ApplicationAction, a: LoanApplication) => {
      const params = { applicationId: a.id }
      switch (action) {
        case 'edit':
          return updateLoanApplication(w.deps)(caller, { ...params, amount: 1_000_000 })()
        case 'submit':
          return submitLoanApplication(w.deps)(caller, params)()
        case 'withdraw':
          return withdrawLoanApplication(w.deps)(caller, params)()
        case 'approve':
          return approveLoanApplication(w.deps)(params)()
        case 'decline':
          return declineLoanApplication(w.deps)({ ...params, reason: 'Outside appetite' })()
      }
    }
    const statusOf = (result: unknown): unknown => {
      const value = result as { readonly status?: string; readonly application?: { readonly status: string } }
      return value.application?.status ?? value.status
    }

    for (const status of APPLICATION_STATUSES) {
      for (const action of ['edit', 'submit', 'withdraw', 'approve', 'decline'] as const) {
        const to = E.getOrElseW(() => undefined)(applicationTransition(status, action))
        if (to === undefined) {
          it(`refuses ${action} from ${status} with InvalidState and changes nothing`, async () => {
            const w = setup()
            const a = await w.inStatus(status)
            const before = w.snapshot()
            expect(await attempt(w, action, a)).to.deep.equal(E.left(invalidState('loan_application', status, action)))
            expect(w.snapshot()).to.deep.equal(before)
          })
        } else {
          it(`allows ${action} from ${status}, leading to ${to}`, async () => {
            const w = setup()
            const a = await w.inStatus(status)
            const result: E.Either<unknown, unknown> = await attempt(w, action, a)
            expect(E.isRight(result) && statusOf(result.right)).to.equal(to)
            expect(w.applications.all().map((x) => [x.id, x.status, x.version])).to.deep.equal([[a.id, to, a.version + 1]])
            expect(w.applications.loans.all().length).to.equal(action === 'approve' ? 1 : 0)
          })
        }
      }
    }
  })
})

describe('createLoanApplication', () => {
  it("creates a DRAFT of the key's party, priced by the product", async () => {
    const w = setup()
    const expected: LoanApplication = {
      id: testId('00000000-0000-4000-8000-000000000001'),
      partyId: PARTY,
      clientId: testId('client-1'),
      productId: WORKING_CAPITAL.id,
      amount: 1_200_000,
      currency: 'USD',
      termMonths: 12,
      purpose: 'Inventory',
      interestRateBps: 1199,
      originationFeeBps: 200,
      status: 'DRAFT',
      submittedAt: null,
      decision: null,
      loanId: null,
      version: 0,
      createdAt: T0,
      updatedAt: T0,
    }
    expect(await createLoanApplication(w.deps)(caller, DRAFT_INPUT)()).to.deep.equal(E.right(expected))
    expect(w.applications.all()).to.deep.equal([expected])
  })

  it('stores a missing purpose as null and trims a given one', async () => {
    const w = setup()
    const { purpose: _purpose, ...withoutPurpose } = DRAFT_INPUT
    expect((await w.create(withoutPurpose)).purpose).to.equal(null)
    expect((await w.create({ ...DRAFT_INPUT, purpose: '  Inventory  ' })).purpose).to.equal('Inventory')
  })

  it("accepts party_id when it is the key's party, in any case", async () => {
    const w = setup()
    expect((await w.create({ ...DRAFT_INPUT, party_id: PARTY })).partyId).to.equal(PARTY)
    expect((await w.create({ ...DRAFT_INPUT, party_id: PARTY.toUpperCase() })).partyId).to.equal(PARTY)
  })

  it('accepts a product_id in any case, storing it in lower case', async () => {
    const w = setup()
    expect((await w.create({ ...DRAFT_INPUT, product_id: WORKING_CAPITAL.id.toUpperCase() })).productId).to.equal(WORKING_CAPITAL.id)
  })

  it("refuses another party's party_id with PartyMismatch and stores nothing", async () => {
    const w = setup()
    expect(await createLoanApplication(w.deps)(caller, { ...DRAFT_INPUT, party_id: OTHER_PARTY })()).to.deep.equal(E.left(partyMismatch))
    expect(w.applications.all()).to.deep.equal([])
  })

  it('answers NotFound(party) for a key whose party is not a borrower, and stores nothing', async () => {
    const w = setup()
    expect(await createLoanApplication(w.deps)(callerOf(NO_PARTY), DRAFT_INPUT)()).to.deep.equal(E.left(notFound('party')))
    expect(w.applications.all()).to.deep.equal([])
  })

  describe('when the terms do not fit the product', () => {
    const cases: readonly (readonly [string, object, ReturnType<typeof invalidRequest>])[] = [
      ['an unknown product', { product_id: UNKNOWN_ID }, invalidRequest(`product_id ${UNKNOWN_ID} is not an active loan product.`, 'product_id')],
      ['an inactive product', { product_id: RETIRED.id, amount: 500_000, term_months: 6 }, invalidRequest(`product_id ${RETIRED.id} is not an active loan product.`, 'product_id')],
      ['another currency', { currency: 'EUR' }, invalidRequest('currency must be USD, the currency of the product.', 'currency')],
      ['an amount below the minimum', { amount: 499_999 }, invalidRequest('amount must be from 500000 to 25000000 (USD minor units) for this product.', 'amount')],
      ['an amount above the maximum', { amount: 25_000_001 }, invalidRequest('amount must be from 500000 to 25000000 (USD minor units) for this product.', 'amount')],
      ['a term below the minimum', { term_months: 5 }, invalidRequest('term_months must be from 6 to 36 for this product.', 'term_months')],
      ['a term above the maximum', { term_months: 37 }, invalidRequest('term_months must be from 6 to 36 for this product.', 'term_months')],
    ]
    for (const [name, change, error] of cases) {
      it(`refuses ${name} naming the field, and stores nothing`, async () => {
        const w = setup()
        expect(await createLoanApplication(w.deps)(caller, { ...DRAFT_INPUT, ...change })()).to.deep.equal(E.left(error))
        expect(w.applications.all()).to.deep.equal([])
      })
    }

    it('accepts the bounds of every range', async () => {
      const w = setup()
      for (const change of [{ amount: 500_000 }, { amount: 25_000_000 }, { term_months: 6 }, { term_months: 36 }]) {
        expect(await w.create({ ...DRAFT_INPUT, ...change })).to.deep.include(
          'amount' in change ? { amount: change.amount, termMonths: 12 } : { amount: 1_200_000, termMonths: change.term_months },
        )
      }
    })
  })

  describe('when the body is malformed', () => {
    const cases: readonly (readonly [string, unknown, ReturnType<typeof invalidRequest>])[] = [
      ['a body that is not an object', 'x', invalidRequest('The request body must be a JSON object')],
      ['an unknown field', { ...DRAFT_INPUT, colour: 'red' }, invalidRequest('colour is not a known field', 'colour')],
      ['a missing product_id', { ...DRAFT_INPUT, product_id: undefined }, invalidRequest('product_id is required', 'product_id')],
      ['a product_id that is not a UUID', { ...DRAFT_INPUT, product_id: 'working-capital' }, invalidRequest('product_id must be a UUID', 'product_id')],
      ['a zero amount', { ...DRAFT_INPUT, amount: 0 }, invalidRequest('amount must be an integer from 1 to 9007199254740991', 'amount')],
      ['a fractional amount', { ...DRAFT_INPUT, amount: 1_200_000.5 }, invalidRequest('amount must be an integer', 'amount')],
      ['an amount as a string', { ...DRAFT_INPUT, amount: '1200000' }, invalidRequest('amount must be an integer', 'amount')],
      ['a lower-case currency', { ...DRAFT_INPUT, currency: 'usd' }, invalidRequest('currency must be an ISO 4217 currency code in upper case, such as USD', 'currency')],
      ['a term of 0 months', { ...DRAFT_INPUT, term_months: 0 }, invalidRequest('term_months must be an integer from 1 to 480', 'term_months')],
      ['a term of 481 months', { ...DRAFT_INPUT, term_months: 481 }, invalidRequest('term_months must be an integer from 1 to 480', 'term_months')],
      ['an empty purpose', { ...DRAFT_INPUT, purpose: '   ' }, invalidRequest('purpose must be between 1 and 500 characters', 'purpose')],
      ['a purpose of 501 characters', { ...DRAFT_INPUT, purpose: 'x'.repeat(501) }, invalidRequest('purpose must be between 1 and 500 characters', 'purpose')],
      ['a party_id that is not a UUID', { ...DRAFT_INPUT, party_id: 'me' }, invalidRequest('party_id must be a UUID', 'party_id')],
    ]
    for (const [name, input, error] of cases) {
      it(`refuses ${name}`, async () => {
        const w = setup()
        expect(await createLoanApplication(w.deps)(caller, input)()).to.deep.equal(E.left(error))
        expect(w.applications.all()).to.deep.equal([])
      })
    }
  })
})

describe('getLoanApplication', () => {
  it("answers the caller's party's application", async () => {
    const w = setup()
    const draft = await w.create()
    expect(await getLoanApplication(w.deps)(caller, { applicationId: draft.id })()).to.deep.equal(E.right(draft))
    expect(await getLoanApplication(w.deps)(caller, { applicationId: draft.id.toUpperCase() })()).to.deep.equal(E.right(draft))
  })

  it("answers NotFound for another party's application and an unknown one alike", async () => {
    const w = setup()
    const theirs = await w.create(DRAFT_INPUT, otherCaller)
    expect(await getLoanApplication(w.deps)(caller, { applicationId: theirs.id })()).to.deep.equal(E.left(notFound('loan_application')))
    expect(await getLoanApplication(w.deps)(caller, { applicationId: UNKNOWN_ID })()).to.deep.equal(E.left(notFound('loan_application')))
  })

  it('refuses an id that is not a UUID', async () => {
    const w = setup()
    expect(await getLoanApplication(w.deps)(caller, { applicationId: '42' })()).to.deep.equal(E.left(invalidRequest('applicationId must be a UUID', 'applicationId')))
  })
})

describe('updateLoanApplication', () => {
  it('changes the given terms, re-validates them and bumps the version', async () => {
    const w = setup()
    const draft = await w.create()
    w.deps.clock.advance(60_000)
    const expected: LoanApplication = { ...draft, amount: 2_000_000, termMonths: 24, version: 1, updatedAt: new Date(T0.getTime() + 60_000) }
    expect(await updateLoanApplication(w.deps)(caller, { applicationId: draft.id, amount: 2_000_000, term_months: 24 })()).to.deep.equal(E.right(expected))
    expect(w.applications.all()).to.deep.equal([expected])
  })

  it("refreshes the pricing from the product's current terms, even when only the purpose changes", async () => {
    const w = setup()
    const draft = await w.create()
    await w.changeProduct(WORKING_CAPITAL, { interest_rate_bps: 1250, origination_fee_bps: 150 })
    const updated = await w.run(updateLoanApplication(w.deps)(caller, { applicationId: draft.id, purpose: 'Payroll' }))
    expect(updated).to.deep.equal({ ...draft, purpose: 'Payroll', interestRateBps: 1250, originationFeeBps: 150, version: 1 })
  })

  it('moves the draft to another product, validated and priced by that product', async () => {
    const w = setup()
    const draft = await w.create()
    const patch = { product_id: STARTER.id, amount: 800_000, term_months: 6 }
    expect(await w.run(updateLoanApplication(w.deps)(caller, { applicationId: draft.id, ...patch }))).to.deep.equal({
      ...draft,
      productId: STARTER.id,
      amount: 800_000,
      termMonths: 6,
      interestRateBps: 0,
      originationFeeBps: 300,
      version: 1,
    })
  })

  describe('when the patched terms do not fit', () => {
    const cases: readonly (readonly [string, object, ReturnType<typeof invalidRequest>])[] = [
      ['an amount the product does not lend', { amount: 25_000_001 }, invalidRequest('amount must be from 500000 to 25000000 (USD minor units) for this product.', 'amount')],
      ['a term the product does not offer', { term_months: 48 }, invalidRequest('term_months must be from 6 to 36 for this product.', 'term_months')],
      ['another currency', { currency: 'GBP' }, invalidRequest('currency must be USD, the currency of the product.', 'currency')],
      ['a new product the current amount does not fit', { product_id: STARTER.id }, invalidRequest('amount must be from 100000 to 1000000 (USD minor units) for this product.', 'amount')],
      ['an inactive product', { product_id: RETIRED.id }, invalidRequest(`product_id ${RETIRED.id} is not an active loan product.`, 'product_id')],
      ['an empty patch', {}, invalidRequest('Send at least one field to update.')],
      ['a field that is not editable', { party_id: OTHER_PARTY }, invalidRequest('party_id is not a known field', 'party_id')],
      ['a malformed amount', { amount: -1 }, invalidRequest('amount must be an integer from 1 to 9007199254740991', 'amount')],
    ]
    for (const [name, patch, error] of cases) {
      it(`refuses ${name} and changes nothing`, async () => {
        const w = setup()
        const draft = await w.create()
        expect(await updateLoanApplication(w.deps)(caller, { applicationId: draft.id, ...patch })()).to.deep.equal(E.left(error))
        expect(w.applications.all()).to.deep.equal([draft])
      })
    }
  })

  it("answers NotFound for another party's draft and changes nothing", async () => {
    const w = setup()
    const theirs = await w.create(DRAFT_INPUT, otherCaller)
    expect(await updateLoanApplication(w.deps)(caller, { applicationId: theirs.id, amount: 600_000 })()).to.deep.equal(E.left(notFound('loan_application')))
    expect(w.applications.all()).to.deep.equal([theirs])
  })
})

describe('submitLoanApplication', () => {
  it('moves a draft to SUBMITTED, stamping submitted_at', async () => {
    const w = setup()
    const draft = await w.create()
    w.deps.clock.advance(5_000)
    const at = new Date(T0.getTime() + 5_000)
    const expected: LoanApplication = { ...draft, status: 'SUBMITTED', submittedAt: at, updatedAt: at, version: 1 }
    expect(await submitLoanApplication(w.deps)(caller, { applicationId: draft.id })()).to.deep.equal(E.right(expected))
    expect(w.applications.all()).to.deep.equal([expected])
  })

  it('takes no body, or an empty object, but refuses any field', async () => {
    const w = setup()
    const [a, b, c] = [await w.create(), await w.create(), await w.create()]
    expect((await w.run(submitLoanApplication(w.deps)(caller, { applicationId: a!.id }))).status).to.equal('SUBMITTED')
    expect((await w.run(submitLoanApplication(w.deps)(caller, { applicationId: b!.id }))).status).to.equal('SUBMITTED')
    expect(await submitLoanApplication(w.deps)(caller, { applicationId: c!.id, amount: 600_000 })()).to.deep.equal(
      E.left(invalidRequest('amount is not a known field', 'amount')),
    )
    expect(w.applications.all().map((x) => x.status)).to.deep.equal(['SUBMITTED', 'SUBMITTED', 'DRAFT'])
  })

  it("prices the application by the product's terms at submission", async () => {
    const w = setup()
    const draft = await w.create()
    await w.changeProduct(WORKING_CAPITAL, { interest_rate_bps: 1299, origination_fee_bps: 250 })
    const submitted = await w.submit(draft)
    expect([submitted.interestRateBps, submitted.originationFeeBps]).to.deep.equal([1299, 250])
  })

  describe('when the product changed since the draft', () => {
    const cases: readonly (readonly [string, object, ReturnType<typeof invalidRequest>])[] = [
      ['was deactivated', { active: false }, invalidRequest(`product_id ${WORKING_CAPITAL.id} is not an active loan product.`, 'product_id')],
      ['now lends in another currency', { currency: 'EUR' }, invalidRequest('currency must be EUR, the currency of the product.', 'currency')],
      ['now lends at least more than the amount', { min_amount: 2_000_000 }, invalidRequest('amount must be from 2000000 to 25000000 (USD minor units) for this product.', 'amount')],
      ['now lends at most less than the amount', { max_amount: 1_000_000 }, invalidRequest('amount must be from 500000 to 1000000 (USD minor units) for this product.', 'amount')],
      ['no longer offers the term', { max_term_months: 9 }, invalidRequest('term_months must be from 6 to 9 for this product.', 'term_months')],
    ]
    for (const [name, change, error] of cases) {
      it(`refuses a draft whose product ${name}; it stays an unchanged draft`, async () => {
        const w = setup()
        const draft = await w.create()
        await w.changeProduct(WORKING_CAPITAL, change)
        expect(await submitLoanApplication(w.deps)(caller, { applicationId: draft.id })()).to.deep.equal(E.left(error))
        expect(w.applications.all()).to.deep.equal([draft])
      })
    }
  })

  it("answers NotFound for another party's draft and changes nothing", async () => {
    const w = setup()
    const theirs = await w.create(DRAFT_INPUT, otherCaller)
    expect(await submitLoanApplication(w.deps)(caller, { applicationId: theirs.id })()).to.deep.equal(E.left(notFound('loan_application')))
    expect(w.applications.all()).to.deep.equal([theirs])
  })
})

describe('withdrawLoanApplication', () => {
  for (const from of ['DRAFT', 'SUBMITTED'] as const) {
    it(`withdraws a ${from} application for good`, async () => {
      const w = setup()
      const a = await w.inStatus(from)
      w.deps.clock.advance(1_000)
      const expected: LoanApplication = { ...a, status: 'WITHDRAWN', updatedAt: new Date(T0.getTime() + 1_000), version: a.version + 1 }
      expect(await withdrawLoanApplication(w.deps)(caller, { applicationId: a.id })()).to.deep.equal(E.right(expected))
      expect(w.applications.all()).to.deep.equal([expected])
      expect(await submitLoanApplication(w.deps)(caller, { applicationId: a.id })()).to.deep.equal(E.left(invalidState('loan_application', 'WITHDRAWN', 'submit')))
    })
  }

  it("answers NotFound for another party's application and changes nothing", async () => {
    const w = setup()
    const theirs = await w.create(DRAFT_INPUT, otherCaller)
    expect(await withdrawLoanApplication(w.deps)(caller, { applicationId: theirs.id })()).to.deep.equal(E.left(notFound('loan_application')))
    expect(w.applications.all()).to.deep.equal([theirs])
  })
})

describe('previewLoanApplicationSchedule', () => {
  it("answers the schedule booked on today's UTC date by default", async () => {
    const w = setup()
    w.deps.clock.set(new Date('2026-01-31T23:59:59.999Z'))
    const draft = await w.create()
    const preview = await w.run(previewLoanApplicationSchedule(w.deps)(caller, { applicationId: draft.id }))
    expect(preview).to.deep.equal(schedulePreview(draft, '2026-01-31'))
    expect([preview.start_date, preview.installments[0]!.due_date, preview.origination_fee, preview.disbursed_amount]).to.deep.equal([
      '2026-01-31',
      '2026-02-28',
      24_000,
      1_176_000,
    ])
  })

  it('answers the schedule for a given start_date', async () => {
    const w = setup()
    const draft = await w.create()
    expect(await previewLoanApplicationSchedule(w.deps)(caller, { applicationId: draft.id, start_date: '2028-02-29' })()).to.deep.equal(
      E.right(schedulePreview(draft, '2028-02-29')),
    )
  })

  it('answers for an application in any status', async () => {
    for (const status of APPLICATION_STATUSES) {
      const w = setup()
      const a = await w.inStatus(status)
      expect(await previewLoanApplicationSchedule(w.deps)(caller, { applicationId: a.id })()).to.deep.equal(E.right(schedulePreview(a, '2026-01-15')))
    }
  })

  it('refuses an impossible start_date and an unknown query parameter', async () => {
    const w = setup()
    const draft = await w.create()
    const params = { applicationId: draft.id }
    expect(await previewLoanApplicationSchedule(w.deps)(caller, { ...params, start_date: '2026-02-30' })()).to.deep.equal(
      E.left(invalidRequest('start_date must be a real date in the form YYYY-MM-DD', 'start_date')),
    )
    expect(await previewLoanApplicationSchedule(w.deps)(caller, { ...params, start: '2026-02-01' })()).to.deep.equal(
      E.left(invalidRequest('start is not a known field', 'start')),
    )
  })

  it("answers NotFound for another party's application", async () => {
    const w = setup()
    const theirs = await w.create(DRAFT_INPUT, otherCaller)
    expect(await previewLoanApplicationSchedule(w.deps)(caller, { applicationId: theirs.id })()).to.deep.equal(E.left(notFound('loan_application')))
  })
})

describe('listPartyApplications', () => {
  it("is PartyMismatch for a command naming another party than the key's, before its filter is read", async () => {
    const w = setup()
    expect(await listPartyApplications(w.deps)(caller, { partyId: OTHER_PARTY, status: 'OPEN' })()).to.deep.equal(E.left(partyMismatch))
  })

  const threeOfMineAndOneOfTheirs = async (w: ReturnType<typeof setup>) => {
    const first = await w.create()
    w.deps.clock.advance(1_000)
    await w.create(DRAFT_INPUT, otherCaller)
    w.deps.clock.advance(1_000)
    const second = await w.submit(await w.create())
    w.deps.clock.advance(1_000)
    const third = await w.create()
    return [first, second, third] as const
  }

  it("lists only the caller's party's applications, oldest first", async () => {
    const w = setup()
    const mine = await threeOfMineAndOneOfTheirs(w)
    expect(await listPartyApplications(w.deps)(caller, { partyId: caller.partyId })()).to.deep.equal(E.right({ items: [...mine], nextCursor: null }))
  })

  it('filters by status', async () => {
    const w = setup()
    const [, second] = await threeOfMineAndOneOfTheirs(w)
    expect(await listPartyApplications(w.deps)(caller, { partyId: caller.partyId, status: 'SUBMITTED' })()).to.deep.equal(E.right({ items: [second], nextCursor: null }))
    expect(await listPartyApplications(w.deps)(caller, { partyId: caller.partyId, status: 'APPROVED' })()).to.deep.equal(E.right({ items: [], nextCursor: null }))
  })

  it('pages with limit and cursor', async () => {
    const w = setup()
    const [first, second, third] = await threeOfMineAndOneOfTheirs(w)
    const cursor = encodeCursor(second)
    expect(await listPartyApplications(w.deps)(caller, { partyId: caller.partyId, limit: '2' })()).to.deep.equal(E.right({ items: [first, second], nextCursor: cursor }))
    expect(await listPartyApplications(w.deps)(caller, { partyId: caller.partyId, limit: '2', cursor })()).to.deep.equal(E.right({ items: [third], nextCursor: null }))
  })

  it('refuses an unknown status and an unknown parameter', async () => {
    const w = setup()
    expect(await listPartyApplications(w.deps)(caller, { partyId: caller.partyId, status: 'OPEN' })()).to.deep.equal(
      E.left(invalidRequest('status must be one of: DRAFT, SUBMITTED, APPROVED, DECLINED, WITHDRAWN', 'status')),
    )
    expect(await listPartyApplications(w.deps)(caller, { partyId: caller.partyId, party_id: OTHER_PARTY })()).to.deep.equal(E.left(invalidRequest('party_id is not a known field', 'party_id')))
  })
})

describe('approveLoanApplication', () => {
  it('approves a submitted application and books exactly what bookLoan books', async () => {
    const w = setup()
    const submitted = await w.submit(await w.create())
    w.deps.clock.set(new Date('2026-02-27T18:30:00.000Z'))
    const now = w.deps.clock.now()
    // Ids for the booking come from their own generator, so the expected booking can replay them.
    const result = await approveLoanApplication({ ...w.deps, ids: sequentialIds() })({ applicationId: submitted.id })()
    const replay = sequentialIds()
    const expectedBooking = bookLoan(submitted, replay, now)
    const expectedApplication: LoanApplication = {
      ...submitted,
      status: 'APPROVED',
      loanId: expectedBooking.loan.id,
      decision: { decision: 'APPROVED', reason: null, decidedBy: 'internal', decidedAt: now },
      updatedAt: now,
      version: submitted.version + 1,
    }
    expect(result).to.deep.equal(E.right({ application: expectedApplication, loan: expectedBooking.loan }))
    expect(w.applications.all()).to.deep.equal([expectedApplication])
    expect(w.applications.loans.all()).to.deep.equal([expectedBooking])
  })

  it('books a schedule equal to the preview for the approval date', async () => {
    const w = setup()
    const submitted = await w.submit(await w.create())
    w.deps.clock.set(new Date('2026-03-31T23:00:00.000Z'))
    const { loan } = await w.run(approveLoanApplication(w.deps)({ applicationId: submitted.id }))
    const preview = await w.run(previewLoanApplicationSchedule(w.deps)(caller, { applicationId: submitted.id, start_date: '2026-03-31' }))
    const booked = w.applications.loans.all()[0]!
    expect(preview.installments.map((i) => [i.number, i.due_date, i.principal, i.interest])).to.deep.equal(
      booked.installments.map((i) => [i.number, i.dueDate, i.principalDue, i.interestDue]),
    )
    expect([preview.start_date, preview.principal, preview.payment_amount, preview.origination_fee, preview.disbursed_amount]).to.deep.equal([
      loan.startDate,
      loan.principal,
      loan.paymentAmount,
      loan.originationFee,
      loan.disbursedAmount,
    ])
  })

  it('books at the terms frozen at submission, whatever happened to the product since', async () => {
    const w = setup()
    const draft = await w.create()
    await w.changeProduct(WORKING_CAPITAL, { interest_rate_bps: 1299, origination_fee_bps: 250 })
    const submitted = await w.submit(draft)
    await w.changeProduct(WORKING_CAPITAL, { interest_rate_bps: 1500, origination_fee_bps: 500, max_amount: 1_000_000, active: false })
    const { application, loan } = await w.run(approveLoanApplication(w.deps)({ applicationId: submitted.id }))
    expect([application.interestRateBps, application.originationFeeBps]).to.deep.equal([1299, 250])
    // 250 bps of 1,200,000 is 30,000.
    expect([loan.principal, loan.interestRateBps, loan.originationFee, loan.disbursedAmount]).to.deep.equal([1_200_000, 1299, 30_000, 1_170_000])
    expect(w.applications.loans.all()[0]!.loan).to.deep.equal(loan)
  })

  it('records who decided, trimmed', async () => {
    const w = setup()
    const submitted = await w.submit(await w.create())
    const { application } = await w.run(approveLoanApplication(w.deps)({ applicationId: submitted.id, decided_by: '  alice@lendgate  ' }))
    expect(application.decision).to.deep.equal({ decision: 'APPROVED', reason: null, decidedBy: 'alice@lendgate', decidedAt: T0 })
  })

  it('refuses an unknown field, an unknown application and a malformed id, booking nothing', async () => {
    const w = setup()
    const submitted = await w.submit(await w.create())
    const before = w.snapshot()
    expect(await approveLoanApplication(w.deps)({ applicationId: submitted.id, reason: 'ok' })()).to.deep.equal(
      E.left(invalidRequest('reason is not a known field', 'reason')),
    )
    expect(await approveLoanApplication(w.deps)({ applicationId: UNKNOWN_ID })()).to.deep.equal(E.left(notFound('loan_application')))
    expect(await approveLoanApplication(w.deps)({ applicationId: 'x' })()).to.deep.equal(E.left(invalidRequest('applicationId must be a UUID', 'applicationId')))
    expect(w.snapshot()).to.deep.equal(before)
  })

  it('approves any party’s application (internal route)', async () => {
    const w = setup()
    const theirs = await w.submit(await w.create(DRAFT_INPUT, otherCaller), otherCaller)
    const { loan } = await w.run(approveLoanApplication(w.deps)({ applicationId: theirs.id }))
    expect(loan.partyId).to.equal(OTHER_PARTY)
  })

  it('books one loan when two approvals race; the loser answers ConcurrentUpdate', async () => {
    const w = setup()
    const submitted = await w.submit(await w.create())
    const approve = approveLoanApplication(w.deps)({ applicationId: submitted.id })
    const results = await Promise.all([approve(), approve()])
    expect(results.filter(E.isRight).length).to.equal(1)
    expect(results.filter(E.isLeft).map((r) => r.left)).to.deep.equal([concurrentUpdate('loan_application')])
    expect(w.applications.loans.all().length).to.equal(1)
  })
})

describe('declineLoanApplication', () => {
  it('declines a submitted application with a reason, booking nothing', async () => {
    const w = setup()
    const submitted = await w.submit(await w.create())
    w.deps.clock.advance(3_000)
    const now = w.deps.clock.now()
    const expected: LoanApplication = {
      ...submitted,
      status: 'DECLINED',
      decision: { decision: 'DECLINED', reason: 'Insufficient trading history', decidedBy: 'bob', decidedAt: now },
      updatedAt: now,
      version: submitted.version + 1,
    }
    expect(await declineLoanApplication(w.deps)({ applicationId: submitted.id, reason: ' Insufficient trading history ', decided_by: 'bob' })()).to.deep.equal(
      E.right(expected),
    )
    expect(w.snapshot()).to.deep.equal({ applications: [expected], loans: [] })
  })

  it('defaults decided_by to internal', async () => {
    const w = setup()
    const submitted = await w.submit(await w.create())
    const declined = await w.run(declineLoanApplication(w.deps)({ applicationId: submitted.id, reason: 'No' }))
    expect(declined.decision).to.deep.equal({ decision: 'DECLINED', reason: 'No', decidedBy: 'internal', decidedAt: T0 })
  })

  it('requires a reason and changes nothing without one', async () => {
    const w = setup()
    const submitted = await w.submit(await w.create())
    const params = { applicationId: submitted.id }
    expect(await declineLoanApplication(w.deps)(params)()).to.deep.equal(E.left(invalidRequest('reason is required', 'reason')))
    expect(await declineLoanApplication(w.deps)({ ...params, reason: '' })()).to.deep.equal(E.left(invalidRequest('reason must be between 1 and 500 characters', 'reason')))
    expect(await declineLoanApplication(w.deps)([params])()).to.deep.equal(E.left(invalidRequest('The request body must be a JSON object')))
    expect(w.applications.all()).to.deep.equal([submitted])
  })

  it('answers NotFound for an unknown application', async () => {
    const w = setup()
    expect(await declineLoanApplication(w.deps)({ applicationId: UNKNOWN_ID, reason: 'No' })()).to.deep.equal(E.left(notFound('loan_application')))
  })
})

describe('listLoanApplicationsForReview', () => {
  it("lists every party's applications, oldest first, optionally of one status, in pages", async () => {
    const w = setup()
    const mine = await w.create()
    w.deps.clock.advance(1_000)
    const theirs = await w.submit(await w.create(DRAFT_INPUT, otherCaller), otherCaller)
    w.deps.clock.advance(1_000)
    const mineSubmitted = await w.submit(await w.create())
    const list = listLoanApplicationsForReview(w.deps)
    expect(await list({})()).to.deep.equal(E.right({ items: [mine, theirs, mineSubmitted], nextCursor: null }))
    expect(await list({ status: 'SUBMITTED' })()).to.deep.equal(E.right({ items: [theirs, mineSubmitted], nextCursor: null }))
    expect(await list({ status: 'SUBMITTED', limit: '1' })()).to.deep.equal(E.right({ items: [theirs], nextCursor: encodeCursor(theirs) }))
    expect(await list({ status: 'SUBMITTED', limit: '1', cursor: encodeCursor(theirs) })()).to.deep.equal(E.right({ items: [mineSubmitted], nextCursor: null }))
  })

  it('refuses an unknown status, a bad limit and an unknown parameter', async () => {
    const w = setup()
    const list = listLoanApplicationsForReview(w.deps)
    expect(await list({ status: 'draft' })()).to.deep.equal(E.left(invalidRequest('status must be one of: DRAFT, SUBMITTED, APPROVED, DECLINED, WITHDRAWN', 'status')))
    expect(await list({ limit: '101' })()).to.deep.equal(E.left(invalidRequest('limit must be an integer from 1 to 100', 'limit')))
    expect(await list({ party_id: PARTY })()).to.deep.equal(E.left(invalidRequest('party_id is not a known field', 'party_id')))
  })
})
