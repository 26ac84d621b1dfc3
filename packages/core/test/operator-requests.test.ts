import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { TestClock } from '../src/domain/testing/test-clock.js'
import * as E from 'fp-ts/lib/Either.js'
import { alreadyExists, invalidRequest, invalidState, notFound } from '../src/domain/foundations/errors.js'
import { namedOperatorActor, OPERATOR_CONTEXT } from '../src/domain/audit/audit-event.js'
import { checkerRequired, operatorRequired, previewOutdated, sameOperator } from '../src/domain/operators/operator-request.js'
import { insufficientRole } from '../src/domain/operators/operator.js'
import { chargeOffLoan } from '../src/use-cases/servicing/charge-off-loan.js'
import {
  approveOperatorRequest,
  askOperatorRequest,
  listOperatorRequests,
  previewOperatorAction,
  previewOperatorRequest,
  rejectOperatorRequest,
  type ActingOperator,
} from '../src/use-cases/servicing/operator-requests.js'
import { reverseLoanPayment } from '../src/use-cases/servicing/reverse-payment.js'
import { testId } from '../src/testing/test-ids.js'
import { right, run, setup } from './fixtures/servicing.js'

/**
 * Maker-checker (decision 152): asked by one named operator, carried out only when another holding
 * `service_loans` approves, in the transaction of the action; a person never acts alone.
 */

const operator = (id: string, role: 'servicing' | 'reviewer' | 'admin' = 'servicing'): ActingOperator => ({ operator: { id: testId(id), role }, requestId: `req-${id}` })
const MAKER = operator('aaaaaaaa-0000-4000-8000-000000000001')
const CHECKER = operator('aaaaaaaa-0000-4000-8000-000000000002')

/** The approval of request `id` a checker sends: with the version of the preview they just read. */
const previewed = async (deps: Parameters<typeof previewOperatorRequest>[0], id: string) => ({
  operatorRequestId: id,
  preview_version: (await run(previewOperatorRequest(deps)({ operatorRequestId: id }))).version,
})
/** A well-formed version of no preview: for approvals refused before the versions are compared. */
const ANY_VERSION = 'none.2026-01-01'

/** The servicing fixture in the live world: no party is on a test clock. */
const liveSetup = () => {
  const s = setup()
  return { ...s, deps: { ...s.deps, world: 'live' as const, testClocks: { findForParty: () => TE.right(O.none) } } }
}

/** A booked loan with one payment of 500.00 taken. */
const paidLoan = async () => {
  const s = liveSetup()
  const { loan } = s.book()
  const method = await s.addMethod(loan.id)
  const payment = right(await s.pay(loan.id, method, 50_000, 'k1'))
  return { ...s, loan, payment }
}

describe('maker-checker requests', () => {
  it('previews a reversal without writing anything, then carries it out only on a second operator\'s approval', async () => {
    const { deps, loan, payment, stored, applications } = await paidLoan()
    const ask = { kind: 'payment_reversal', payment_id: payment.id, reason: 'ACH return R01' }
    const ledger = (await stored(loan.id)).transactions

    const preview = await run(previewOperatorAction(deps)(ask))
    const entry = preview.change.posting.transactions.find((t) => t.type === 'REVERSAL')!
    expect(entry).to.include({ paymentId: payment.id, amount: 50_000 })
    expect(preview.after.principalOutstanding - preview.before.principalOutstanding).to.equal(entry.principal)
    expect((await stored(loan.id)).transactions).to.deep.equal(ledger)

    const request = await run(askOperatorRequest(deps)(ask, MAKER))
    expect(request).to.include({ kind: 'payment_reversal', paymentId: payment.id, loanId: loan.id, state: 'PENDING', requestedBy: MAKER.operator.id, decidedBy: null })
    expect((await stored(loan.id)).transactions).to.deep.equal(ledger)
    expect(applications.audit.all().at(-1)).to.include({ action: 'operator_request.created' })
    expect(await askOperatorRequest(deps)(ask, CHECKER)()).to.deep.equal(E.left(alreadyExists('pending payment_reversal request of this payment')))
    // The checker's preview: the same figures, planned afresh (new ids).
    const owed = ({ id: _i, transactionId: _t, ...figures }: typeof preview.after) => figures
    expect(owed((await run(previewOperatorRequest(deps)({ operatorRequestId: request.id }))).after)).to.deep.equal(owed(preview.after))

    expect(await approveOperatorRequest(deps)({ operatorRequestId: request.id, preview_version: ANY_VERSION }, MAKER)()).to.deep.equal(E.left(sameOperator))
    const approved = await run(approveOperatorRequest(deps)(await previewed(deps, request.id), CHECKER))
    expect(approved.request).to.include({ state: 'APPROVED', decidedBy: CHECKER.operator.id })
    expect(approved.outcome.kind === 'payment_reversal' && approved.outcome.payment.status).to.equal('REVERSED')
    const reversed = applications.audit.all().find((e) => e.action === 'payment.reversed')!
    expect(reversed.actor).to.deep.equal(namedOperatorActor(CHECKER.operator))
    expect(reversed.details).to.include({ operator_request_id: request.id, requested_by: MAKER.operator.id, reason: 'ACH return R01' })
    expect(await approveOperatorRequest(deps)({ operatorRequestId: request.id, preview_version: ANY_VERSION }, CHECKER)()).to.deep.equal(E.left(invalidState('operator_request', 'APPROVED', 'approve')))
    expect((await run(listOperatorRequests(deps)({ state: 'APPROVED' }))).items.map((r) => r.id)).to.deep.equal([request.id])
  })

  it('charges off on approval; a rejection does nothing and ends the request', async () => {
    const { deps, book, stored } = liveSetup()
    const { loan } = book()
    const ask = { kind: 'loan_charge_off', loan_id: loan.id, reason: 'Ceased trading' }
    const first = await run(askOperatorRequest(deps)(ask, MAKER))
    const rejected = await run(rejectOperatorRequest(deps)({ operatorRequestId: first.id, reason: 'Wrong loan' }, MAKER))
    expect(rejected).to.include({ state: 'REJECTED', decidedBy: MAKER.operator.id, rejectionReason: 'Wrong loan' })
    expect(await approveOperatorRequest(deps)({ operatorRequestId: first.id, preview_version: ANY_VERSION }, CHECKER)()).to.deep.equal(E.left(invalidState('operator_request', 'REJECTED', 'approve')))
    expect((await stored(loan.id)).loan.status).to.equal('ACTIVE')

    const second = await run(askOperatorRequest(deps)(ask, MAKER))
    const preview = await run(previewOperatorRequest(deps)({ operatorRequestId: second.id }))
    expect(preview.change.posting.loanStatus).to.equal('CHARGED_OFF')
    const approved = await run(approveOperatorRequest(deps)(await previewed(deps, second.id), CHECKER))
    expect(approved.outcome.kind === 'loan_charge_off' && approved.outcome.loan.status).to.equal('CHARGED_OFF')
    expect((await stored(loan.id)).loan.status).to.equal('CHARGED_OFF')
  })

  it("plans a test-world action on its party's test clock: the charge-off is dated the clock's day", async () => {
    const s = setup()
    const { loan } = s.book()
    const frozenTime = new Date('2026-03-01T10:00:00.000Z')
    const deps = { ...s.deps, world: 'test' as const, testClocks: { findForParty: () => TE.right(O.some({ frozenTime } as TestClock)) } }
    const request = await run(askOperatorRequest(deps)({ kind: 'loan_charge_off', loan_id: loan.id, reason: 'Sandbox' }, MAKER))
    expect((await run(previewOperatorRequest(deps)({ operatorRequestId: request.id }))).after.asOf).to.equal('2026-03-01')
    const approved = await run(approveOperatorRequest(deps)(await previewed(deps, request.id), CHECKER))
    expect(approved.outcome.kind === 'loan_charge_off' && approved.outcome.loan.chargedOffOn).to.equal('2026-03-01')
    // The people acted at the real time of the service's clock.
    expect(approved.request.decidedAt).to.deep.equal(s.clock.now())
  })

  it('refuses at once what could not be done now, and at approval what no longer can, leaving the request pending', async () => {
    const { deps, payment } = await paidLoan()
    const ask = { kind: 'payment_reversal', payment_id: payment.id, reason: 'Returned' }
    const request = await run(askOperatorRequest(deps)(ask, MAKER))
    // Automation reverses it meanwhile.
    right(await reverseLoanPayment(deps)({ paymentId: payment.id, reason: 'ACH file' }, OPERATOR_CONTEXT)())
    expect(await approveOperatorRequest(deps)({ operatorRequestId: request.id, preview_version: ANY_VERSION }, CHECKER)()).to.deep.equal(E.left(invalidState('payment', 'REVERSED', 'reverse')))
    expect((await run(listOperatorRequests(deps)({ state: 'PENDING' }))).items.map((r) => r.id)).to.deep.equal([request.id])
    expect(await askOperatorRequest(deps)({ ...ask, reason: 'Again' }, CHECKER)()).to.deep.equal(E.left(invalidState('payment', 'REVERSED', 'reverse')))
  })

  it('refuses an approval of a preview the loan has moved past, naming the version a preview shows now; the request stays pending', async () => {
    const { deps, loan, payment, addMethod, pay } = await paidLoan()
    const request = await run(askOperatorRequest(deps)({ kind: 'payment_reversal', payment_id: payment.id, reason: 'Returned' }, MAKER))
    const seen = await previewed(deps, request.id)
    // The borrower pays between the checker's preview and their approval.
    right(await pay(loan.id, await addMethod(loan.id), 10_000, 'k2'))
    const now = await previewed(deps, request.id)
    expect(now.preview_version).to.not.equal(seen.preview_version)
    expect(await approveOperatorRequest(deps)(seen, CHECKER)()).to.deep.equal(E.left(previewOutdated(now.preview_version)))
    expect((await run(listOperatorRequests(deps)({ state: 'PENDING' }))).items.map((r) => r.id)).to.deep.equal([request.id])
    const unversioned = await approveOperatorRequest(deps)({ operatorRequestId: request.id }, CHECKER)()
    expect(E.isLeft(unversioned) && unversioned.left).to.include({ _tag: 'InvalidRequest', param: 'preview_version' })
    const approved = await run(approveOperatorRequest(deps)(now, CHECKER))
    expect(approved.request.state).to.equal('APPROVED')
  })

  it('refuses a person acting alone, the token asking or deciding, a role without service_loans, and inputs naming the wrong thing', async () => {
    const { deps, loan, payment } = await paidLoan()
    const person = { actor: namedOperatorActor(MAKER.operator), requestId: null }
    expect(await reverseLoanPayment(deps)({ paymentId: payment.id }, person)()).to.deep.equal(E.left(checkerRequired('payment_reversal')))
    expect(await chargeOffLoan(deps)({ loanId: loan.id }, person)()).to.deep.equal(E.left(checkerRequired('loan_charge_off')))
    const ask = { kind: 'payment_reversal', payment_id: payment.id, reason: 'Returned' }
    expect(await askOperatorRequest(deps)(ask, null)()).to.deep.equal(E.left(operatorRequired))
    expect(await askOperatorRequest(deps)(ask, operator('aaaaaaaa-0000-4000-8000-000000000009', 'reviewer'))()).to.deep.equal(E.left(insufficientRole('reviewer', 'service_loans')))
    const request = await run(askOperatorRequest(deps)(ask, MAKER))
    expect(await approveOperatorRequest(deps)({ operatorRequestId: request.id, preview_version: ANY_VERSION }, null)()).to.deep.equal(E.left(operatorRequired))
    expect(await rejectOperatorRequest(deps)({ operatorRequestId: request.id, reason: 'x' }, null)()).to.deep.equal(E.left(operatorRequired))
    expect(await askOperatorRequest(deps)({ kind: 'payment_reversal', loan_id: loan.id, reason: 'x' }, MAKER)()).to.deep.equal(
      E.left(invalidRequest('loan_id is not a field of a payment_reversal: the payment names its loan.', 'loan_id')),
    )
    expect(await askOperatorRequest(deps)({ kind: 'loan_charge_off', reason: 'x' }, MAKER)()).to.deep.equal(E.left(invalidRequest('loan_id is required for a loan_charge_off.', 'loan_id')))
    expect(await askOperatorRequest(deps)({ kind: 'payment_reversal', payment_id: testId('99999999-9999-4999-8999-999999999999'), reason: 'x' }, MAKER)()).to.deep.equal(E.left(notFound('payment')))
  })
})
