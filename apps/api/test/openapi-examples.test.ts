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
import { Webhook } from 'standardwebhooks'
import { CARD_PAYMENT_METHOD_EXAMPLE, EVENT_EXAMPLES, PARAMETER_EXAMPLES, REQUEST_EXAMPLES, SUCCESS_EXAMPLES } from '../src/openapi/examples.js'
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
        // The example's payment succeeded at once: no bank debit is pending.
        pending_amount: 0,
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

describe('the webhooks of the partner document', () => {
  type WebhookOperation = {
    readonly operationId: string
    readonly summary: string
    readonly description: string
    readonly parameters: readonly (ParameterObject & { readonly required: boolean; readonly example: string; readonly description: string })[]
    readonly requestBody: { readonly content: { readonly 'application/json': { readonly schema: { readonly $ref: string }; readonly example: core.EventView } } }
    readonly responses: Record<string, { readonly description: string }>
  }
  const [partner, operator] = documents as [Json, Json]
  const webhooks = partner['webhooks'] as Record<string, { readonly post: WebhookOperation }>
  const secretOf = (id: 'createWebhookEndpoint' | 'rotateWebhookEndpointSecret'): string => (SUCCESS_EXAMPLES[id] as { secret: string }).secret
  const rotated = SUCCESS_EXAMPLES.rotateWebhookEndpointSecret as { updated_at: string; previous_secret_expires_at: string }

  it('lists every event type of the catalogue, each a POST of its own schema; the operator document has none', () => {
    expect(Object.keys(webhooks)).to.deep.equal([...core.EVENT_TYPES])
    expect(operator['webhooks']).to.equal(undefined)
    const schemas = (partner['components'] as { schemas: Record<string, unknown> }).schemas
    const ids = new Set<string>()
    for (const type of core.EVENT_TYPES) {
      expect(Object.keys(webhooks[type]!), type).to.deep.equal(['post'])
      const { post } = webhooks[type]!
      ids.add(post.operationId)
      const { schema, example } = post.requestBody.content['application/json']
      const name = /^#\/components\/schemas\/(\w+Event)$/.exec(schema.$ref)?.[1]
      expect(name, type).to.be.a('string')
      expect(schemas[name!], type).to.be.an('object')
      expect(((schemas['Event'] as { discriminator: { mapping: Record<string, string> } }).discriminator.mapping)[type], type).to.equal(schema.$ref)
      expect(example, type).to.deep.equal(EVENT_EXAMPLES[type])
      expect(post.summary.length, type).to.be.greaterThan(10)
      expect(Object.keys(post.responses).sort(), type).to.deep.equal(['200', '410', 'default'])
    }
    const operationIds = new Set(OPERATIONS.map((op) => op.operationId as string))
    expect(ids.size).to.equal(core.EVENT_TYPES.length)
    expect([...ids].filter((id) => operationIds.has(id))).to.deep.equal([])
  })

  it('each carries the three Standard Webhooks headers, their examples those of the example event', () => {
    for (const type of core.EVENT_TYPES) {
      const { post } = webhooks[type]!
      const example = post.requestBody.content['application/json'].example
      const headers = Object.fromEntries(post.parameters.map((p) => [p.name, p]))
      expect(post.parameters.map((p) => [p.in, p.required]), type).to.deep.equal([['header', true], ['header', true], ['header', true]])
      expect(headers['webhook-id']?.example, type).to.equal(example.id)
      expect(headers['webhook-timestamp']?.example, type).to.equal(String(Math.floor(Date.parse(example.timestamp) / 1000)))
      expect(headers['webhook-signature']?.description, type).to.match(/two during an endpoint secret rotation's grace period, and either verifying/)
    }
  })

  it("an endpoint's signature examples are the HMACs of the endpoint's secrets of the moment, both during the rotation's grace period", () => {
    const [before, after] = [secretOf('createWebhookEndpoint'), secretOf('rotateWebhookEndpointSecret')]
    let doubled = 0
    for (const type of core.EVENT_TYPES.filter((type) => type !== 'party.ready')) {
      const { post } = webhooks[type]!
      const event = post.requestBody.content['application/json'].example
      const at = new Date(Number(post.parameters.find((p) => p.name === 'webhook-timestamp')!.example) * 1000)
      const signatures = post.parameters.find((p) => p.name === 'webhook-signature')!.example.split(' ')
      const instant = Date.parse(event.timestamp)
      const secrets = instant < Date.parse(rotated.updated_at) ? [before] : instant < Date.parse(rotated.previous_secret_expires_at) ? [after, before] : [after]
      if (secrets.length === 2) doubled += 1
      expect(signatures, type).to.deep.equal(secrets.map((secret) => new Webhook(secret).sign(event.id, at, JSON.stringify(event))))
    }
    expect(doubled, 'an example signed during the grace period').to.be.greaterThan(0)
  })

  it('each says when it is sent, what `data` is, how to verify it and what an answer does, naming no operator setting', () => {
    for (const type of core.EVENT_TYPES) {
      const { post } = webhooks[type]!
      const text = [post.summary, post.description, ...post.parameters.map((p) => p.description), ...Object.values(post.responses).map((r) => r.description)].join('\n')
      expect(post.description, type).to.match(/^Sent when /)
      expect(post.description, type).to.include('`data`')
      expect(post.description, type).to.include('createWebhookEndpoint')
      expect(post.description, type).to.include('`whsec_` is the base64-decoded bytes after the prefix; the key of any other secret is its UTF-8 bytes')
      expect(post.description, type).to.include('two space-separated signatures')
      expect(post.description, type).to.include('eight attempts in all: after 0 s, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, each delay plus up to 10% jitter')
      expect(post.description, type).to.match(/2xx/)
      expect(post.description, type).to.match(/410 stops/)
      expect(post.description, type).to.include(EVENT_EXAMPLES[type].sequence === undefined ? 'has no `sequence`' : 'Keep the highest `sequence` applied per loan')
      expect(text, type).not.to.match(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b(?<!LATE_FEE|PAID_OFF|CHARGED_OFF|HMAC_SHA256)/)
    }
    expect(webhooks['party.ready']!.post.description).to.include('registerOnboardingSessionWebhook')
    expect(webhooks['party.ready']!.post.description).to.include('the same `webhook-id` and body')
  })

  describe('the example events tell the story', () => {
    const loanId = PARAMETER_EXAMPLES['loanId']
    const loan = SUCCESS_EXAMPLES.getLoanForParty as LoanView

    it('one per type, each of its type, in the live world, with a distinct id; the listed ones are those of listEvents', () => {
      const listed = (SUCCESS_EXAMPLES.listEvents as { data: readonly core.EventView[] }).data
      for (const event of listed) expect(EVENT_EXAMPLES[event.type]).to.deep.equal(event)
      expect(EVENT_EXAMPLES['party.ready'].id).to.equal(PARAMETER_EXAMPLES['eventId'])
      const all = core.EVENT_TYPES.map((type) => EVENT_EXAMPLES[type])
      expect(all.map((e) => e.type)).to.deep.equal([...core.EVENT_TYPES])
      expect(new Set(all.map((e) => e.id)).size).to.equal(all.length)
      for (const event of all) {
        expect([event.livemode, (event.data as { livemode: boolean }).livemode], event.type).to.deep.equal([true, true])
        expect(event.occurred_at, event.type).to.equal(event.timestamp)
      }
    })

    it("a loan's events carry `sequence` and are about the story's loan; the others carry none", () => {
      for (const type of core.EVENT_TYPES) {
        const event = EVENT_EXAMPLES[type]
        const data = event.data as { loan_id?: string }
        if (type.startsWith('loan.') || type.startsWith('payment.')) {
          expect(event.sequence, type).to.be.a('number')
          expect(data.loan_id, type).to.equal(loanId)
        } else expect(event, type).not.to.have.property('sequence')
      }
      expect(EVENT_EXAMPLES['loan.booked'].sequence).to.equal(1)
      expect(EVENT_EXAMPLES['payment.succeeded'].sequence).to.equal(2)
      // Each ending follows the loan's first two events: returned (3, 4, 5), late (3, 4), paid off (4, after its payment's 3).
      expect(['payment.reversed', 'payment.failed', 'loan.charged_off'].map((type) => EVENT_EXAMPLES[type as core.EventType].sequence)).to.deep.equal([3, 4, 5])
      expect(['loan.delinquency_changed', 'loan.late_fee_assessed'].map((type) => EVENT_EXAMPLES[type as core.EventType].sequence)).to.deep.equal([3, 4])
      expect(EVENT_EXAMPLES['loan.paid_off'].sequence).to.equal(4)
    })

    it('the delinquency and the late fee are those of installment 1 left unpaid', () => {
      const installment = (SUCCESS_EXAMPLES.listLoanScheduleForParty as { data: readonly ReturnType<typeof installmentView>[] }).data[0]!
      const moved = EVENT_EXAMPLES['loan.delinquency_changed']
      const days = (Date.parse(moved.occurred_at.slice(0, 10)) - Date.parse(installment.due_date)) / 86_400_000
      expect(moved.data).to.include({ days_past_due: days, delinquency_bucket: 'DPD_1_30' })
      expect(moved.previous_attributes).to.deep.equal({ days_past_due: 0, delinquency_bucket: 'CURRENT' })
      const fee = EVENT_EXAMPLES['loan.late_fee_assessed'].data as ReturnType<typeof core.transactionView>
      const unpaid = installment.total_due - installment.total_paid
      expect(fee.amount).to.equal(loan.late_fee_flat + Math.round((unpaid * loan.late_fee_bps) / 10_000))
      expect(fee).to.include({ type: 'LATE_FEE', fees: fee.amount, principal: 0, interest: 0, effective_date: new Date(Date.parse(installment.due_date) + (loan.late_fee_grace_days + 1) * 86_400_000).toISOString().slice(0, 10) })
      expect(fee).not.to.have.property('sequence')
    })
  })
})
