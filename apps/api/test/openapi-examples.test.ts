import { randomUUID } from 'node:crypto'
import * as core from '@lendgate/core'
import {
  balanceView,
  bookLoan,
  decode,
  deriveLoan,
  installmentView,
  jsonSchemaOf,
  ledgerSums,
  loanView,
  PATH_PARAMETERS,
  type LoanApplication,
  type LoanApplicationView,
  type LoanProductView,
  type LoanView,
  type PaymentId,
  type SchedulePreview,
} from '@lendgate/core'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import type * as t from 'io-ts'
import { CARD_PAYMENT_METHOD_EXAMPLE, PARAMETER_EXAMPLES, REQUEST_EXAMPLES, SUCCESS_EXAMPLES } from '../src/openapi/examples.js'
import { OPERATION_DOCS, REQUEST_BODIES } from '../src/openapi/operation-docs.js'
import { OPERATIONS } from '../src/routes/operations.js'
import { bothDocuments } from './support/openapi-documents.js'

/**
 * The examples of the OpenAPI documents (src/openapi/examples.ts and the error examples of
 * errors.ts) are what the documents say: every example of every request, response and the
 * webhook matches the schema it illustrates, every request example
 * decodes with its codec and matches the codec's JSON Schema, every parameter example decodes
 * and matches the parameter's schema; and the servicing examples are the figures the core
 * computes for the example loan and payment.
 */

type Json = Record<string, unknown>
type ParameterObject = { readonly name: string; readonly in: string; readonly schema: Json }
type OperationObject = { readonly operationId: string; readonly parameters?: readonly ParameterObject[] }

const { documents, combined: document, resolved } = bothDocuments()

const ajv = new Ajv2020({ strict: false, allErrors: true })
addFormats.default(ajv)

/** What is wrong with `value` by `schema` (refs resolved against the document), or undefined. */
const schemaProblem = (schema: unknown, value: unknown): string | undefined => {
  const validate: ValidateFunction = ajv.compile(resolved(schema) as object)
  return validate(value) ? undefined : ajv.errorsText(validate.errors)
}

/** Fails with `problem`, in full, unless there is none. */
const expectNone = (problem: string | undefined): void => {
  if (problem !== undefined) expect.fail(problem)
}

/** What decoding `value` with `codec` refused, or undefined. */
const decodeProblem = (codec: t.Mixed, value: unknown): string | undefined => {
  const decoded = decode(codec)(value)
  return E.isRight(decoded) ? undefined : decoded.left.detail
}

const operations = Object.values((resolved(document['paths']) as Record<string, Record<string, OperationObject>>)).flatMap((item) => Object.values(item))

/** Every request body codec the documents describe, by the name of its schema. */
const bodyCodecs = new Map<string, t.Mixed>(
  [...new Set(Object.values(OPERATION_DOCS).flatMap((d) => (d.body === undefined ? [] : [d.body])))].map((name) => [name, REQUEST_BODIES[name]]),
)

type Media = { readonly schema: unknown; readonly example?: unknown; readonly examples?: Record<string, { readonly value: unknown }> }

/** Every media type of the documents (request and response bodies, the webhook's), where it is. */
const mediaTypes = (): readonly { readonly where: string; readonly media: Media }[] =>
  documents.flatMap((d) =>
    [...Object.entries(d['paths'] as Json), ...Object.entries((d['webhooks'] as Json | undefined) ?? {})].flatMap(([path, item]) =>
      Object.entries(item as Record<string, { requestBody?: { content: Record<string, Media> }; responses: Record<string, { content?: Record<string, Media> }> }>).flatMap(
        ([method, operation]) => [
          ...Object.entries(operation.requestBody?.content ?? {}).map(([type, media]) => ({ where: `${method} ${path} request ${type}`, media })),
          ...Object.entries(operation.responses).flatMap(([status, response]) =>
            Object.entries(response.content ?? {}).map(([type, media]) => ({ where: `${method} ${path} ${status} ${type}`, media })),
          ),
        ],
      ),
    ),
  )

describe('OpenAPI examples', () => {
  it('every request, response and webhook body of both documents has an example, and its schema takes each', () => {
    const media = mediaTypes()
    const problems = media.flatMap(({ where, media: { schema, example, examples } }) => {
      const values = example === undefined ? Object.entries(examples ?? {}).map(([name, { value }]) => [name, value] as const) : [['example', example] as const]
      if (values.length === 0) return [`${where}: no example`]
      return values.flatMap(([name, value]) => {
        const problem = schemaProblem(schema, value)
        return problem === undefined ? [] : [`${where} ${name}: ${problem}`]
      })
    })
    expect(problems).to.deep.equal([])
    expect(media.length).to.be.greaterThan(OPERATIONS.length * 4)
  })

  it('has a success example for every operation of the route table and none for another', () => {
    expect(Object.keys(SUCCESS_EXAMPLES).sort()).to.deep.equal(OPERATIONS.map((op) => op.operationId).sort())
  })

  describe('request bodies', () => {
    it('has one for every request body codec of the document and none for another', () => {
      expect(Object.keys(REQUEST_EXAMPLES).sort()).to.deep.equal([...bodyCodecs.keys()].sort())
    })

    for (const [name, example] of Object.entries(REQUEST_EXAMPLES)) {
      it(`${name} decodes with its codec and matches the codec's JSON Schema`, () => {
        const codec = bodyCodecs.get(name)
        if (codec === undefined) throw new Error(`${name} is not a request body codec of the document`)
        expectNone(decodeProblem(codec, example))
        expectNone(schemaProblem(jsonSchemaOf(codec), example))
      })
    }

    it('PaymentMethodInput takes the card example too, and the bank account example is the bank account branch', () => {
      expectNone(decodeProblem(core.PaymentMethodInput, CARD_PAYMENT_METHOD_EXAMPLE))
      expectNone(schemaProblem(jsonSchemaOf(core.PaymentMethodInput), CARD_PAYMENT_METHOD_EXAMPLE))
      expect((REQUEST_EXAMPLES.PaymentMethodInput as { type: string }).type).to.equal('bank_account')
    })
  })

  describe('path parameters', () => {
    it('has one for every path parameter of the route table and none for another', () => {
      const names = new Set(OPERATIONS.flatMap((op) => [...op.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!)))
      expect(Object.keys(PARAMETER_EXAMPLES).sort()).to.deep.equal([...names].sort())
    })

    for (const [name, example] of Object.entries(PARAMETER_EXAMPLES)) {
      it(`${name} decodes with its PATH_PARAMETERS codec and matches the declared schema`, () => {
        const codec = (PATH_PARAMETERS as Readonly<Record<string, t.Mixed>>)[name]
        if (codec === undefined) throw new Error(`${name} has no codec in PATH_PARAMETERS`)
        expectNone(decodeProblem(codec, example))
        const declaredAs = operations.flatMap((o) => o.parameters ?? []).filter((p) => p.in === 'path' && p.name === name)
        expect(declaredAs, name).to.not.be.empty
        for (const declared of declaredAs) {
          expectNone(schemaProblem(declared.schema, example))
        }
      })
    }
  })

  describe('the servicing examples', () => {
    const application = SUCCESS_EXAMPLES.getLoanApplication as LoanApplicationView
    const product = SUCCESS_EXAMPLES.updateLoanProduct as LoanProductView
    const loan = SUCCESS_EXAMPLES.getLoanForParty as LoanView
    const preview = SUCCESS_EXAMPLES.previewLoanApplicationSchedule as SchedulePreview
    const payment = SUCCESS_EXAMPLES.createPaymentIntentForPartyLoan as ReturnType<typeof core.paymentView>
    const readOn = '2026-11-30'

    /** The example application booked as approval books it, at the example loan's created_at. */
    const booked = () =>
      bookLoan(
        {
          id: application.application_id,
          partyId: application.party_id,
          clientId: randomUUID(),
          productId: application.product_id,
          amount: application.amount,
          currency: application.currency,
          termMonths: application.term_months,
          purpose: application.purpose,
          interestRateBps: application.interest_rate_bps,
          originationFeeBps: application.origination_fee_bps,
          status: 'APPROVED',
          submittedAt: null,
          decision: null,
          loanId: null,
          version: 1,
          createdAt: new Date(application.created_at),
          updatedAt: new Date(application.updated_at),
        } as LoanApplication,
        { next: () => randomUUID() },
        new Date(loan.created_at),
        {
          dayCount: product.day_count,
          prepayment: product.prepayment,
          lateFee: { flat: product.late_fee_flat, bps: product.late_fee_bps, graceDays: product.late_fee_grace_days },
          timeZone: product.time_zone,
        },
      )
    const settled = [{ id: payment.payment_id as PaymentId, amount: payment.amount, effectiveDate: payment.effective_date, createdAt: new Date(payment.created_at) }]

    it('the loan is the application as approval books it, with the disclosure and installment of the schedule preview', () => {
      const { loan: bookedLoan } = booked()
      expect({ ...loanView(bookedLoan, new Date(loan.created_at)), loan_id: loan.loan_id, livemode: true }).to.deep.equal(loan)
      expect(preview.disclosure).to.deep.equal(loan.disclosure)
      expect(preview.payment_amount).to.equal(loan.payment_amount)
    })

    it('the schedule preview is the booked schedule, and its totals add up', () => {
      const atBooking = deriveLoan(booked().loan, [], loan.start_date)
      expect(preview.installments.map((i) => ({ number: i.number, due_date: i.due_date, principal: i.principal, interest: i.interest }))).to.deep.equal(
        atBooking.installments.map((i) => ({ number: i.number, due_date: i.dueDate, principal: i.principalDue, interest: i.interestDue })),
      )
      const sum = (pick: (i: SchedulePreview['installments'][number]) => number): number => preview.installments.reduce((total, i) => total + pick(i), 0)
      expect(sum((i) => i.principal)).to.equal(preview.principal)
      expect(sum((i) => i.interest)).to.equal(preview.total_interest)
      expect(sum((i) => i.payment)).to.equal(preview.total_of_payments)
      expect(preview.disbursed_amount).to.equal(preview.principal - preview.origination_fee)
    })

    it('the payment, schedule, latest balance and payoff are what the loan and its payment give on the day they are read', () => {
      const derived = deriveLoan(booked().loan, settled, readOn)
      const { allocation } = derived.allocations.get(payment.payment_id as PaymentId)!
      expect(payment.allocation).to.deep.equal({ past_due: allocation.pastDue, ...allocation.current })
      expect((SUCCESS_EXAMPLES.listLoanScheduleForParty as { data: unknown }).data).to.deep.equal(
        derived.installments.map((i) => ({ ...installmentView({ ...i, currency: loan.currency }), livemode: true })),
      )
      const latest = SUCCESS_EXAMPLES.getLatestLoanBalanceForParty as ReturnType<typeof balanceView>
      expect(latest).to.include({
        as_of: readOn,
        principal_outstanding: derived.outstanding.principal,
        interest_outstanding: derived.outstanding.interest,
        fees_outstanding: derived.outstanding.fees,
        payoff_amount: derived.payoff,
        past_due_amount: derived.pastDueAmount,
        next_due_date: derived.nextDueDate,
        next_due_amount: derived.nextDueAmount,
      })
      expect(SUCCESS_EXAMPLES.getLoanPayoffForParty).to.deep.equal({
        loan_id: loan.loan_id,
        as_of: readOn,
        currency: loan.currency,
        principal: derived.outstanding.principal,
        interest: derived.outstanding.interest,
        fees: derived.outstanding.fees,
        payoff_amount: derived.payoff,
        livemode: true,
      })
    })

    it('every balance snapshot is what the ledger up to its entry sums to', () => {
      const transactions = (SUCCESS_EXAMPLES.listTransactionsForPartyLoan as { data: readonly ReturnType<typeof core.transactionView>[] }).data
      const balances = (SUCCESS_EXAMPLES.listLoanBalancesForParty as { data: readonly ReturnType<typeof balanceView>[] }).data
      expect(balances).to.have.length.greaterThan(1)
      for (const balance of balances) {
        const upTo = transactions.filter((entry) => entry.sequence < balance.sequence)
        expect(upTo.at(-1)?.transaction_id, `balance ${balance.sequence}`).to.equal(balance.transaction_id)
        const sums = ledgerSums(upTo)
        expect([balance.principal_outstanding, balance.interest_outstanding, balance.fees_outstanding], `balance ${balance.sequence}`).to.deep.equal([sums.principal, sums.interest, sums.fees])
        expect(balance.payoff_amount).to.equal(sums.principal + sums.interest + sums.fees)
      }
    })
  })
})
