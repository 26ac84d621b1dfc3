import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { Caller } from '../src/domain/keys/api-key.js'
import { NOT_AUDITED, OPERATOR, OPERATOR_CONTEXT, SYSTEM, sessionRejectedEvent, type AuditContext, type AuditEvent } from '../src/domain/audit/audit-event.js'
import { concurrentUpdate, invalidState, notFound } from '../src/domain/foundations/errors.js'
import type { CollateralItem } from '../src/domain/loans/collateral.js'
import type { LoanApplication } from '../src/domain/loans/loan-application.js'
import { newOnboardingSession, type OnboardingSession } from '../src/domain/onboarding/onboarding-session.js'
import { encodeCursor } from '../src/domain/foundations/pagination.js'
import type { PaymentProcessor } from '../src/ports/payment-processor.js'
import type { PaymentTokenizer } from '../src/ports/payment-tokenizer.js'
import {
  fakeKeyMaterial,
  inMemoryApiKeyRepository,
  inMemoryAuditLog,
  inMemoryLoanApplicationRepository,
  inMemoryLoanProductRepository,
  inMemoryOnboardingSessionRepository,
  inMemoryPaymentMethodRepository,
  sequentialIds,
  testClock,
} from '../src/testing/index.js'
import { mintApiKey } from '../src/use-cases/api-keys/mint-api-key.js'
import { revokeApiKey } from '../src/use-cases/api-keys/revoke-api-key.js'
import { approveLoanApplication, declineLoanApplication } from '../src/use-cases/applications/decisioning.js'
import { listAuditEvents } from '../src/use-cases/audit/list-audit-events.js'
import { createLoanProduct, updateLoanProduct } from '../src/use-cases/loan-products/loan-products.js'
import { approveOnboardingSession, rejectOnboardingSession } from '../src/use-cases/onboarding/review.js'
import { addLoanCollateral, attachLoanDocument } from '../src/use-cases/servicing/loan-records.js'
import { runInterestAccrual } from '../src/use-cases/servicing/accrue-loans.js'
import { createPaymentMethodForPartyLoan } from '../src/use-cases/servicing/create-payment-method.js'
import { createPaymentIntentForPartyLoan } from '../src/use-cases/servicing/take-payment.js'
import { reverseLoanPayment } from '../src/use-cases/servicing/reverse-payment.js'
import { testId } from '../src/testing/test-ids.js'

/**
 * The audit log (issue 9) against the in-memory adapters, which share one log as the database
 * shares one table: each key mint, revocation and internal decision records exactly one event,
 * with its actor, subject and the client and party it concerns; refused or conflicting
 * changes record nothing; no event carries a secret; the listing is newest first, paged and
 * filtered.
 */

const NOW = new Date('2026-01-15T10:00:00.000Z')
const PARTY = testId('9d7c7a4e-0d6b-4c1e-9b8a-3f2e1d0c9b8a')
const UNKNOWN_ID = '99999999-9999-4999-8999-999999999999'
const REQUEST: AuditContext = { actor: OPERATOR, requestId: 'req-1' }

const succeeding: PaymentProcessor = { charge: () => TE.right({ status: 'SUCCEEDED' }) }
const tokenizer: PaymentTokenizer = { tokenizeBankAccount: (account) => TE.right({ token: 'btok_secret_token', last4: account.accountNumber.slice(-4) }) }

const run = async <A>(te: TE.TaskEither<unknown, A>): Promise<A> => {
  const r = await te()
  if (E.isLeft(r)) throw new Error(`expected Right, got ${JSON.stringify(r.left)}`)
  return r.right
}

const setup = () => {
  const audit = inMemoryAuditLog()
  const applications = inMemoryLoanApplicationRepository(audit)
  const sessions = inMemoryOnboardingSessionRepository(new Map(), audit)
  const clock = testClock(NOW)
  const deps = {
    world: 'live' as const,
    audit,
    apiKeys: inMemoryApiKeyRepository(audit),
    keyMaterial: fakeKeyMaterial(),
    sessions,
    parties: sessions.parties,
    applications,
    loans: applications.loans,
    products: inMemoryLoanProductRepository([], audit),
    paymentMethods: inMemoryPaymentMethodRepository(applications.loans),
    processor: succeeding,
    tokenizer,
    ids: sequentialIds(),
    clock,
  }
  /** Events written by `act`, in order. */
  const recordedBy = async <A>(act: () => Promise<A>): Promise<{ readonly result: A; readonly events: readonly AuditEvent[] }> => {
    const before = audit.all().length
    const result = await act()
    return { result, events: audit.all().slice(before) }
  }
  const submittedSession = async (clientId: string): Promise<OnboardingSession> => {
    const now = clock.now()
    const opened = newOnboardingSession({ country_of_incorporation: 'US', locale: 'en-US' }, testId(clientId), testId(deps.ids.next()), now)
    const submitted: OnboardingSession = {
      ...opened,
      status: 'SUBMITTED',
      currentStep: 'REVIEW',
      phone: { value: '+14155550123', verifiedAt: now },
      email: { value: 'owner@acme.example', verifiedAt: now },
      profile: {
        legalName: 'Acme Widgets LLC',
        tradingName: null,
        legalForm: 'llc',
        registrationNumber: null,
        incorporationDate: null,
        industryCode: null,
        website: null,
        taxId: '12-3456789',
        updatedAt: now,
      },
      submittedAt: now,
    }
    await run(sessions.insert(submitted))
    return submitted
  }
  const submittedApplication = async (partyId: string, clientId: string): Promise<LoanApplication> => {
    const now = clock.now()
    const application: LoanApplication = {
      id: testId(deps.ids.next()),
      partyId: testId(partyId),
      clientId: testId(clientId),
      productId: testId(deps.ids.next()),
      amount: 1_200_000,
      currency: 'USD',
      termMonths: 12,
      purpose: null,
      interestRateBps: 1_200,
      originationFeeBps: 200,
      status: 'SUBMITTED',
      submittedAt: now,
      decision: null,
      loanId: null,
      version: 1,
      createdAt: now,
      updatedAt: now,
    }
    await run(applications.insert(application))
    return application
  }
  return { deps, audit, clock, recordedBy, submittedSession, submittedApplication }
}

/** The caller a minted key stands for. */
const callerOf = (minted: { readonly client: { readonly id: string }; readonly key: { readonly id: string; readonly partyId: string } }): Caller => ({
  keyId: testId(minted.key.id),
  clientId: testId(minted.client.id),
  partyId: testId(minted.key.partyId),
  environment: 'live',
  scopes: ['keys:manage'],
})

describe('the audit log (use cases)', () => {
  describe('mintApiKey', () => {
    it('records one api_key.minted event by the operator: key prefix, scopes and client, never the key or its hash', async () => {
      const { deps, recordedBy } = setup()
      const { result: minted, events } = await recordedBy(() => run(mintApiKey(deps)({ party_id: PARTY, client_name: 'backend' })))
      expect(events).to.deep.equal([
        {
          id: events[0]?.id,
          occurredAt: NOW,
          actor: { type: 'operator' },
          action: 'api_key.minted',
          subject: { type: 'api_key', id: minted.key.id },
          apiClientId: minted.client.id,
          partyId: PARTY,
          requestId: null,
          details: { key_prefix: minted.key.prefix, environment: 'live', scopes: ['partner:api', 'keys:manage'], client_name: 'backend' },
        },
      ])
      expect(events[0]?.id).to.not.be.oneOf([minted.key.id, minted.client.id])
      const written = JSON.stringify(events)
      expect(written).to.not.include(minted.plaintext)
      expect(written).to.not.include(minted.key.hash)
    })

    it("names the client a rotation mints into, and the request's context when given", async () => {
      const { deps, recordedBy } = setup()
      const first = await run(mintApiKey(deps)({ party_id: PARTY }))
      const { result: second, events } = await recordedBy(() => run(mintApiKey(deps)({ party_id: PARTY }, REQUEST)))
      expect(second.client.id).to.equal(first.client.id)
      expect(events.map((e) => ({ apiClientId: e.apiClientId, subject: e.subject, actor: e.actor, requestId: e.requestId }))).to.deep.equal([
        { apiClientId: first.client.id, subject: { type: 'api_key', id: second.key.id }, actor: { type: 'operator' }, requestId: 'req-1' },
      ])
    })

    it('records nothing when the mint is refused', async () => {
      const { deps, recordedBy } = setup()
      const { result, events } = await recordedBy(() => mintApiKey(deps)({ party_id: PARTY, scopes: ['nope'] })())
      expect(E.isLeft(result)).to.equal(true)
      expect(events).to.deep.equal([])
    })
  })

  describe('revokeApiKey', () => {
    it('records one api_key.revoked event by the calling key, with the request id', async () => {
      const { deps, clock, recordedBy } = setup()
      const minted = await run(mintApiKey(deps)({ party_id: PARTY }))
      clock.advance(5_000)
      const context: AuditContext = { actor: { type: 'api_key', id: minted.key.id }, requestId: 'req-revoke' }
      const { events } = await recordedBy(() => run(revokeApiKey(deps)(callerOf(minted), { apiKeyId: minted.key.id }, context)))
      expect(events).to.deep.equal([
        {
          id: events[0]?.id,
          occurredAt: new Date(NOW.getTime() + 5_000),
          actor: { type: 'api_key', id: minted.key.id },
          action: 'api_key.revoked',
          subject: { type: 'api_key', id: minted.key.id },
          apiClientId: minted.client.id,
          partyId: PARTY,
          requestId: 'req-revoke',
          details: { key_prefix: minted.key.prefix },
        },
      ])
    })

    it("records nothing for a key revoked already, another client's key or a malformed id", async () => {
      const { deps, recordedBy } = setup()
      const mine = await run(mintApiKey(deps)({ party_id: PARTY, client_name: 'mine' }))
      const theirs = await run(mintApiKey(deps)({ party_id: PARTY, client_name: 'theirs' }))
      await run(revokeApiKey(deps)(callerOf(mine), { apiKeyId: mine.key.id }))
      const { result, events } = await recordedBy(async () => [
        await revokeApiKey(deps)(callerOf(mine), { apiKeyId: mine.key.id })(),
        await revokeApiKey(deps)(callerOf(mine), { apiKeyId: theirs.key.id })(),
        await revokeApiKey(deps)(callerOf(mine), { apiKeyId: 'nope' })(),
      ])
      expect(result.map((r) => (E.isRight(r) ? r.right.status : r.left._tag === 'InvalidRequest' ? ['InvalidRequest', r.left.param] : r.left))).to.deep.equal([
        'revoked',
        notFound('api_key'),
        ['InvalidRequest', 'apiKeyId'],
      ])
      expect(events).to.deep.equal([])
    })

    it('is the operator acting without a context (the operator CLI)', async () => {
      const { deps, audit } = setup()
      const minted = await run(mintApiKey(deps)({ party_id: PARTY }))
      await run(revokeApiKey(deps)(callerOf(minted), { apiKeyId: minted.key.id }))
      expect(audit.all().map((e) => [e.action, e.actor])).to.deep.equal([
        ['api_key.minted', OPERATOR],
        ['api_key.revoked', OPERATOR],
      ])
    })
  })

  describe('internal review of onboarding sessions', () => {
    it('approval records onboarding_session.approved with the new party, the reviewer and the queued webhook event', async () => {
      const { deps, recordedBy, submittedSession } = setup()
      const session = await submittedSession('11111111-1111-4111-8111-111111111111')
      const { result, events } = await recordedBy(() => run(approveOnboardingSession(deps)({ sessionId: session.id, reviewed_by: 'ops@lendgate' }, REQUEST)))
      expect(events).to.deep.equal([
        {
          id: events[0]?.id,
          occurredAt: NOW,
          actor: { type: 'operator' },
          action: 'onboarding_session.approved',
          subject: { type: 'onboarding_session', id: session.id },
          apiClientId: session.clientId,
          partyId: result.party.id,
          requestId: 'req-1',
          details: { reviewed_by: 'ops@lendgate', webhook_event_id: deps.sessions.events.all()[0]?.id ?? 'missing' },
        },
      ])
    })

    it('rejection records onboarding_session.rejected with the reason', async () => {
      const { deps, recordedBy, submittedSession } = setup()
      const session = await submittedSession('11111111-1111-4111-8111-111111111111')
      const { events } = await recordedBy(() => run(rejectOnboardingSession(deps)({ sessionId: session.id, reason: 'Sanctions hit' })))
      expect(events.map(({ id: _id, ...rest }) => rest)).to.deep.equal([
        {
          occurredAt: NOW,
          actor: { type: 'operator' },
          action: 'onboarding_session.rejected',
          subject: { type: 'onboarding_session', id: session.id },
          apiClientId: session.clientId,
          partyId: null,
          requestId: null,
          details: { reviewed_by: 'internal', reason: 'Sanctions hit' },
        },
      ])
    })

    it('records nothing for a decision the state refuses, an unknown session, or a save that lost a race', async () => {
      const { deps, recordedBy, submittedSession } = setup()
      const session = await submittedSession('11111111-1111-4111-8111-111111111111')
      await run(approveOnboardingSession(deps)({ sessionId: session.id }))
      const { result, events } = await recordedBy(async () => [
        await approveOnboardingSession(deps)({ sessionId: session.id })(),
        await rejectOnboardingSession(deps)({ sessionId: session.id, reason: 'late' })(),
        await rejectOnboardingSession(deps)({ sessionId: UNKNOWN_ID, reason: 'x' })(),
        // A stale version: the repository refuses the save and its event together.
        await deps.sessions.save(session, { ...(deps.audit.all()[0] as AuditEvent), id: UNKNOWN_ID })(),
      ])
      expect(result).to.deep.equal([
        E.left(invalidState('onboarding_session', 'APPROVED', 'approve')),
        E.left(invalidState('onboarding_session', 'APPROVED', 'reject')),
        E.left(notFound('onboarding_session')),
        E.left(concurrentUpdate('onboarding_session')),
      ])
      expect(events).to.deep.equal([])
    })
  })

  describe('credit decisions', () => {
    it('approval records loan_application.approved with the booked loan and the terms', async () => {
      const { deps, recordedBy, submittedApplication } = setup()
      const application = await submittedApplication(PARTY, '22222222-2222-4222-8222-222222222222')
      const { result, events } = await recordedBy(() => run(approveLoanApplication(deps)({ applicationId: application.id, decided_by: 'credit@lendgate' })))
      expect(events.map(({ id: _id, ...rest }) => rest)).to.deep.equal([
        {
          occurredAt: NOW,
          actor: { type: 'operator' },
          action: 'loan_application.approved',
          subject: { type: 'loan_application', id: application.id },
          apiClientId: application.clientId,
          partyId: PARTY,
          requestId: null,
          details: {
            decided_by: 'credit@lendgate',
            loan_id: result.loan.id,
            amount: 1_200_000,
            currency: 'USD',
            term_months: 12,
            interest_rate_bps: 1_200,
            origination_fee_bps: 200,
          },
        },
      ])
    })

    it('decline records loan_application.declined with the reason; a second decision records nothing', async () => {
      const { deps, recordedBy, submittedApplication } = setup()
      const application = await submittedApplication(PARTY, '22222222-2222-4222-8222-222222222222')
      const { events } = await recordedBy(() => run(declineLoanApplication(deps)({ applicationId: application.id, reason: 'Thin file' }, REQUEST)))
      expect(events.map((e) => [e.action, e.subject, e.apiClientId, e.partyId, e.requestId, e.details])).to.deep.equal([
        ['loan_application.declined', { type: 'loan_application', id: application.id }, application.clientId, PARTY, 'req-1', { decided_by: 'internal', reason: 'Thin file' }],
      ])
      const again = await recordedBy(() => approveLoanApplication(deps)({ applicationId: application.id })())
      expect(again.result).to.deep.equal(E.left(invalidState('loan_application', 'DECLINED', 'approve')))
      expect(again.events).to.deep.equal([])
    })
  })

  describe('the loan product catalogue', () => {
    const INPUT = { name: 'Term', currency: 'USD', min_amount: 100, max_amount: 1_000, min_term_months: 1, max_term_months: 12, interest_rate_bps: 900 }

    it('creation records loan_product.created with the terms; an update records each changed field, before and after', async () => {
      const { deps, clock, recordedBy } = setup()
      const created = await recordedBy(() => run(createLoanProduct(deps)(INPUT)))
      expect(created.events.map(({ id: _id, ...rest }) => rest)).to.deep.equal([
        {
          occurredAt: NOW,
          actor: { type: 'operator' },
          action: 'loan_product.created',
          subject: { type: 'loan_product', id: created.result.id },
          apiClientId: null,
          partyId: null,
          requestId: null,
          details: {
            name: 'Term',
            description: null,
            currency: 'USD',
            min_amount: 100,
            max_amount: 1_000,
            min_term_months: 1,
            max_term_months: 12,
            interest_rate_bps: 900,
            origination_fee_bps: 0,
            repayment_frequency: 'MONTHLY',
            day_count: 'THIRTY_360',
            prepayment: 'REDUCE_TERM',
            late_fee_flat: 0,
            late_fee_bps: 0,
            late_fee_grace_days: 0,
            returned_payment_fee: 0,
            time_zone: 'UTC',
            active: true,
          },
        },
      ])
      clock.advance(60_000)
      const updated = await recordedBy(() => run(updateLoanProduct(deps)({ productId: created.result.id, interest_rate_bps: 950, active: false, name: 'Term' }, REQUEST)))
      expect(updated.events.map((e) => [e.action, e.occurredAt, e.requestId, e.details])).to.deep.equal([
        ['loan_product.updated', new Date(NOW.getTime() + 60_000), 'req-1', { changes: { interest_rate_bps: { from: 900, to: 950 }, active: { from: true, to: false } } }],
      ])
    })

    it('records nothing for a refused creation or update', async () => {
      const { deps, recordedBy } = setup()
      const product = await run(createLoanProduct(deps)(INPUT))
      const { events } = await recordedBy(async () => [
        await createLoanProduct(deps)({ ...INPUT, min_amount: 2_000 })(),
        await updateLoanProduct(deps)({ productId: product.id })(),
        await updateLoanProduct(deps)({ productId: UNKNOWN_ID, active: false })(),
      ])
      expect(events).to.deep.equal([])
    })
  })

  describe('servicing operations', () => {
    const booked = async (world: ReturnType<typeof setup>) => {
      const application = await world.submittedApplication(PARTY, '22222222-2222-4222-8222-222222222222')
      return (await run(approveLoanApplication(world.deps)({ applicationId: application.id }))).loan
    }

    it('collateral and documents record loan_collateral.added and loan_document.attached, never the storage reference', async () => {
      const world = setup()
      const loan = await booked(world)
      const { result, events } = await world.recordedBy(async () => ({
        item: await run(addLoanCollateral(world.deps)({ loanId: loan.id, type: 'vehicle', description: 'Van', valuation: 3_500_000, currency: 'USD' }, REQUEST)),
        document: await run(
          attachLoanDocument(world.deps)({ loanId: loan.id, type: 'notice', storage_ref: 's3://docs/notice.pdf?X-Amz-Signature=secret', period_start: '2026-01-01', period_end: '2026-01-31' }),
        ),
      }))
      expect(events.map(({ id: _id, ...rest }) => rest)).to.deep.equal([
        {
          occurredAt: NOW,
          actor: { type: 'operator' },
          action: 'loan_collateral.added',
          subject: { type: 'collateral_item', id: result.item.id },
          apiClientId: null,
          partyId: PARTY,
          requestId: 'req-1',
          details: { loan_id: loan.id, type: 'vehicle', valuation: 3_500_000, currency: 'USD', lien_position: 1 },
        },
        {
          occurredAt: NOW,
          actor: { type: 'operator' },
          action: 'loan_document.attached',
          subject: { type: 'loan_document', id: result.document.id },
          apiClientId: null,
          partyId: PARTY,
          requestId: null,
          details: { loan_id: loan.id, type: 'notice', period_start: '2026-01-01', period_end: '2026-01-31' },
        },
      ])
      expect(JSON.stringify(events)).to.not.include('s3://')
      const refused = await world.recordedBy(() => addLoanCollateral(world.deps)({ loanId: UNKNOWN_ID, type: 'cash', description: 'x', valuation: 1, currency: 'USD' })())
      expect(refused.result).to.deep.equal(E.left(notFound('loan')))
      expect(refused.events).to.deep.equal([])
    })

    it('a reversal records payment.reversed with the reason and the reversing entry; reversing again records nothing', async () => {
      const world = setup()
      const loan = await booked(world)
      const borrower: Caller = { keyId: testId(world.deps.ids.next()), clientId: testId('22222222-2222-4222-8222-222222222222'), partyId: PARTY, environment: 'live', scopes: ['partner:api'] }
      const method = await run(
        createPaymentMethodForPartyLoan(world.deps)(borrower, { partyId: PARTY, loanId: loan.id, type: 'bank_account', account_holder_name: 'Acme', routing_number: '021000021', account_number: '000123456789' }),
      )
      const payment = await run(createPaymentIntentForPartyLoan(world.deps)(borrower, { partyId: PARTY, loanId: loan.id, amount: 50_000, currency: 'USD', payment_method_id: method.id, idempotency_key: 'pay-1' }))
      const { result, events } = await world.recordedBy(() => run(reverseLoanPayment(world.deps)({ paymentId: payment.id, reason: 'Returned by the bank' }, REQUEST)))
      const ledger = O.toNullable(await run(world.deps.loans.findById(loan.id)))?.transactions ?? []
      expect(events.map(({ id: _id, ...rest }) => rest)).to.deep.equal([
        {
          occurredAt: NOW,
          actor: { type: 'operator' },
          action: 'payment.reversed',
          subject: { type: 'payment', id: payment.id },
          apiClientId: borrower.clientId,
          partyId: PARTY,
          requestId: 'req-1',
          details: { loan_id: loan.id, amount: 50_000, currency: 'USD', reversal_transaction_id: ledger[ledger.length - 1]?.id ?? 'missing', reason: 'Returned by the bank' },
        },
      ])
      expect(result.status).to.equal('REVERSED')
      expect(JSON.stringify(events)).to.not.include('btok_')
      const again = await world.recordedBy(() => reverseLoanPayment(world.deps)({ paymentId: payment.id })())
      expect(again.result).to.deep.equal(E.left(invalidState('payment', 'REVERSED', 'reverse')))
      expect(again.events).to.deep.equal([])
    })
  })

  describe('runInterestAccrual', () => {
    it("records one interest_accrual.completed event per run with its figures, the system's when no context is given", async () => {
      const world = setup()
      const application = await world.submittedApplication(PARTY, '22222222-2222-4222-8222-222222222222')
      await run(approveLoanApplication(world.deps)({ applicationId: application.id }))
      world.clock.set(new Date('2026-02-20T10:00:00.000Z'))
      const first = await world.recordedBy(() => run(runInterestAccrual(world.deps)({})))
      const second = await world.recordedBy(() => run(runInterestAccrual(world.deps)({ as_of: '2026-02-20' }, REQUEST)))
      expect([...first.events, ...second.events].map(({ id, ...rest }) => ({ ...rest, subject: { ...rest.subject, id: rest.subject.id === id } }))).to.deep.equal([
        {
          occurredAt: new Date('2026-02-20T10:00:00.000Z'),
          actor: SYSTEM,
          action: 'interest_accrual.completed',
          subject: { type: 'interest_accrual_run', id: true },
          apiClientId: null,
          partyId: null,
          requestId: null,
          details: { as_of: '2026-02-20', loans_examined: 1, loans_changed: 1, accruals: 1, loans_failed: 0 },
        },
        {
          occurredAt: new Date('2026-02-20T10:00:00.000Z'),
          actor: OPERATOR,
          action: 'interest_accrual.completed',
          subject: { type: 'interest_accrual_run', id: true },
          apiClientId: null,
          partyId: null,
          requestId: 'req-1',
          details: { as_of: '2026-02-20', loans_examined: 1, loans_changed: 0, accruals: 0, loans_failed: 0 },
        },
      ])
      const refused = await world.recordedBy(() => runInterestAccrual(world.deps)({ as_of: '2026-02-22' })())
      expect(E.isLeft(refused.result)).to.equal(true)
      expect(refused.events).to.deep.equal([])
    })
  })

  it('makes every repository write name its audit event: NOT_AUDITED records nothing, an event exactly itself', async () => {
    const { audit, deps, submittedSession } = setup()
    const session = await submittedSession('11111111-1111-4111-8111-111111111111')
    const before = audit.all().length
    const edited = await run(deps.sessions.save({ ...session, locale: 'fr-FR' }, NOT_AUDITED))
    expect(audit.all()).to.have.length(before)
    const event = sessionRejectedEvent('22222222-2222-4222-8222-222222222222', OPERATOR_CONTEXT, edited, NOW)
    await run(deps.sessions.save(edited, event))
    expect(audit.all().slice(before)).to.deep.equal([event])
    // Leaving the event out does not compile (`tsc -b`, part of the test command, checks each of
    // these): a new write path cannot skip the audit log by omission (decision 45).
    const omitted = (): unknown[] => [
      // @ts-expect-error: the audit event is required
      deps.sessions.save(edited),
      // @ts-expect-error: the audit event is required
      deps.applications.save({} as LoanApplication),
      // @ts-expect-error: the audit event is required
      deps.apiKeys.revoke('client', 'key', NOW),
      // @ts-expect-error: the audit event is required
      deps.loans.addCollateral({} as CollateralItem),
    ]
    void omitted
  })

  it('gives every event an id of its own', async () => {
    const world = setup()
    const minted = await run(mintApiKey(world.deps)({ party_id: PARTY }))
    await run(revokeApiKey(world.deps)(callerOf(minted), { apiKeyId: minted.key.id }))
    const session = await world.submittedSession('11111111-1111-4111-8111-111111111111')
    await run(approveOnboardingSession(world.deps)({ sessionId: session.id }))
    const ids = world.audit.all().map((e) => e.id)
    expect(ids).to.have.length(3)
    expect(new Set(ids).size).to.equal(3)
  })
})

describe('listAuditEvents', () => {
  /** Four events; two share a millisecond (ordered by id, descending). */
  const populated = async () => {
    const world = setup()
    const a = await run(mintApiKey(world.deps)({ party_id: PARTY, client_name: 'a' }))
    world.clock.advance(1_000)
    const b = await run(mintApiKey(world.deps)({ party_id: PARTY, client_name: 'b' }))
    await run(revokeApiKey(world.deps)(callerOf(a), { apiKeyId: a.key.id }))
    world.clock.advance(1_000)
    const other = '5f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9'
    const c = await run(mintApiKey(world.deps)({ party_id: other }))
    const list = (query: Record<string, string>) => listAuditEvents(world.deps)(query)()
    return { world, a, b, c, other, list, all: world.audit.all() }
  }

  it('lists every event newest first (ties by id, descending) in pages that follow the cursor', async () => {
    const { all, list } = await populated()
    const [mintA, mintB, revokeA, mintC] = all as [AuditEvent, AuditEvent, AuditEvent, AuditEvent]
    const tied = [mintB, revokeA].sort((x, y) => (x.id < y.id ? 1 : -1))
    const first = await list({ limit: '2' })
    expect(first).to.deep.equal(E.right({ items: [mintC, tied[0]], nextCursor: encodeCursor({ createdAt: tied[0]!.occurredAt, id: tied[0]!.id }) }))
    const cursor = E.isRight(first) ? (first.right.nextCursor ?? '') : ''
    expect(await list({ limit: '2', cursor })).to.deep.equal(E.right({ items: [tied[1], mintA], nextCursor: null }))
    expect(await list({})).to.deep.equal(E.right({ items: [mintC, tied[0], tied[1], mintA], nextCursor: null }))
  })

  it('narrows to an action, a subject, an API client and a party, together', async () => {
    const { a, b, c, other, list, all } = await populated()
    const items = async (query: Record<string, string>) => {
      const page = await list(query)
      return E.isRight(page) ? page.right.items.map((e) => [e.action, e.subject.id]) : page
    }
    expect(await items({ action: 'api_key.revoked' })).to.deep.equal([['api_key.revoked', a.key.id]])
    expect(await items({ subject_id: a.key.id })).to.deep.equal([
      ['api_key.revoked', a.key.id],
      ['api_key.minted', a.key.id],
    ])
    expect(await items({ api_client_id: b.client.id })).to.deep.equal([['api_key.minted', b.key.id]])
    expect(await items({ party_id: other })).to.deep.equal([['api_key.minted', c.key.id]])
    expect(await items({ party_id: PARTY, action: 'api_key.minted', subject_id: a.key.id.toUpperCase() })).to.deep.equal([['api_key.minted', a.key.id]])
    expect(await items({ party_id: other, action: 'api_key.revoked' })).to.deep.equal([])
    expect(all).to.have.length(4)
  })

  it('refuses a filter, a parameter or a cursor it does not know, naming it', async () => {
    const { list } = await populated()
    const refused = async (query: Record<string, unknown>) => {
      const r = await listAuditEvents(setup().deps)(query)()
      return E.isLeft(r) ? [r.left._tag, r.left._tag === 'InvalidRequest' ? r.left.param : undefined] : r
    }
    expect(await refused({ action: 'api_key.deleted' })).to.deep.equal(['InvalidRequest', 'action'])
    expect(await refused({ action: ['api_key.minted', 'api_key.revoked'] })).to.deep.equal(['InvalidRequest', 'action'])
    expect(await refused({ subject_id: 'nope' })).to.deep.equal(['InvalidRequest', 'subject_id'])
    expect(await refused({ api_client_id: '1' })).to.deep.equal(['InvalidRequest', 'api_client_id'])
    expect(await refused({ party_id: '' })).to.deep.equal(['InvalidRequest', 'party_id'])
    expect(await refused({ actor: 'operator' })).to.deep.equal(['InvalidRequest', 'actor'])
    expect(await refused({ limit: '0' })).to.deep.equal(['InvalidRequest', 'limit'])
    expect(await refused({ cursor: encodeCursor({ createdAt: NOW, id: 'not-a-uuid' }) })).to.deep.equal(['InvalidRequest', 'cursor'])
    expect(E.isRight(await list({ limit: '100' }))).to.equal(true)
  })
})
