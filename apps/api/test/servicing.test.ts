import { randomUUID } from 'node:crypto'
import { testDatabases } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import {
  allPages,
  bookLoan,
  DOCUMENTED_FIELDS,
  documented,
  expectLedgerMatchesLatestBalance,
  loanPaths,
  type BookedLoan,
  type LoanPaths,
} from './support/booked-loan.js'
import { onboardBorrower, type Borrower } from './support/borrower.js'
import { bearer, request, type MintedKey, type Reply } from './support/client.js'
import { expectInvalid, expectInvalidState } from './support/expectations.js'
import { startCodeReceiver } from './support/code-receiver.js'
import { INTERNAL_TOKEN, startTestServer, type TestServer } from './support/test-server.js'

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const PARTY_MISMATCH = { error: 'party_mismatch', detail: 'The party in the path is not the party of this API key.' }
const NO_SUCH_LOAN = { error: 'not_found', detail: 'No such loan.' }
const INTERNAL_REFUSAL = {
  error: 'invalid_internal_token',
  detail: 'Internal routes require "Authorization: Bearer <INTERNAL_API_TOKEN>" or a console session; partner keys are not accepted.',
}
const KEY_REQUIRED = { error: 'idempotency_key_required', detail: 'This request moves money: send an Idempotency-Key header so a retry cannot pay twice.' }

/** A checking account with a valid ABA routing number (Federal Reserve Bank of Boston). */
const ROUTING = '011000015'
const ACCOUNT_NUMBER = '000123456789'
const BANK_ACCOUNT = {
  type: 'bank_account',
  account_holder_name: 'Acme Widgets LLC',
  routing_number: ROUTING,
  account_number: ACCOUNT_NUMBER,
  nickname: 'Operating',
}

/** The sandbox's test methods (docs/testing.md "Magic values"): their charges fail at any amount that triggers nothing. */
const INSUFFICIENT_FUNDS_ACCOUNT = { ...BANK_ACCOUNT, account_number: '000222222227', nickname: 'Empty account' }
const DECLINED_CARD = { type: 'card', card_token: 'tok_card_declined_1', last4: '0002', exp_month: 12, exp_year: 2099 }

const NO_PAST_DUE = { fees: 0, interest: 0, principal: 0 }

const utcToday = (): string => new Date().toISOString().slice(0, 10)
const utcDayOffset = (days: number): string => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)

for (const database of testDatabases()) {
  describe(`loan servicing over HTTP on ${database.name}`, () => {
    let server: TestServer
    let receiver: Awaited<ReturnType<typeof startCodeReceiver>>
    let borrower: Borrower
    /** Another borrower, whose loan must stay out of reach of `borrower`'s key. */
    let other: Borrower
    /** Every loan of `borrower`, in booking order. */
    const booked: BookedLoan[] = []
    let theirs: BookedLoan

    const call = (method: string, path: string, json?: unknown, headers: Record<string, string> = {}, k: MintedKey = borrower.key): Promise<Reply> =>
      request(server.url, path, { method, headers: { ...bearer(k.api_key), ...headers }, ...(json === undefined ? {} : { json }) })
    const get = (path: string, k: MintedKey = borrower.key): Promise<Reply> => call('GET', path, undefined, {}, k)
    const internal = (method: string, path: string, json?: unknown): Promise<Reply> =>
      request(server.url, path, { method, headers: bearer(INTERNAL_TOKEN), ...(json === undefined ? {} : { json }) })
    const ok = async (path: string, k: MintedKey = borrower.key): Promise<any> => {
      const reply = await get(path, k)
      expect(reply.status, `GET ${path}: ${reply.text}`).to.equal(200)
      return reply.body
    }
    const pay = (paths: LoanPaths, json: Record<string, unknown>, key: string | null = `pay-${randomUUID()}`): Promise<Reply> =>
      call('POST', paths.payments, json, key === null ? {} : { 'Idempotency-Key': key })
    const addMethod = async (paths: LoanPaths, json: Record<string, unknown> = BANK_ACCOUNT, k: MintedKey = borrower.key): Promise<Record<string, any>> => {
      const reply = await call('POST', paths.paymentMethods, json, {}, k)
      expect(reply.status, reply.text).to.equal(201)
      return reply.body
    }
    const latestOf = (paths: LoanPaths) => ok(paths.latestBalance)
    const ledgerOf = (paths: LoanPaths) => allPages(server, borrower.key.api_key, paths.transactions)
    const scheduleOf = (paths: LoanPaths) => allPages(server, borrower.key.api_key, paths.schedule)
    const balancesOf = (paths: LoanPaths) => allPages(server, borrower.key.api_key, paths.balances)
    const invariant = (paths: LoanPaths, label = '') => expectLedgerMatchesLatestBalance(server, borrower.key.api_key, paths, label)
    const book = async (): Promise<BookedLoan> => {
      const loan = await bookLoan(server, borrower)
      booked.push(loan)
      return loan
    }

    before(async () => {
      receiver = await startCodeReceiver()
      server = await startTestServer(database, { verificationDeliveryUrl: receiver.url })
      borrower = await onboardBorrower(server, receiver)
      other = await onboardBorrower(server, receiver)
      await book()
      theirs = await bookLoan(server, other)
    })
    after(async () => {
      await server.stop()
      await receiver.close()
    })

    describe('reading a booked loan', () => {
      let loan: BookedLoan
      before(() => {
        loan = booked[0]!
      })

      it('getLoanForParty answers the loan as booked (200)', async () => {
        const reply = await get(loan.paths.loan)
        expect(reply.status).to.equal(200)
        expect(reply.headers.get('content-type')).to.match(/^application\/json/)
        expect(reply.body).to.deep.equal(loan.loan)
        expect(loan.loan).to.deep.include({ party_id: borrower.partyId, status: 'ACTIVE', currency: 'USD', principal: 1_200_000, origination_fee: 24_000, disbursed_amount: 1_176_000 })
      })

      it("listLoansForParty lists the party's loans oldest first (200), and only theirs", async () => {
        const reply = await get(`${loan.paths.loans}?limit=100`)
        expect(reply.status).to.equal(200)
        expect(reply.body).to.deep.equal({ data: booked.map((b) => b.loan), next_cursor: null })
        expect(await ok(`${theirs.paths.loans}?limit=100`, other.key)).to.deep.equal({ data: [theirs.loan], next_cursor: null })
      })

      it('listLoanBalancesForParty and getLatestLoanBalanceForParty answer the opening snapshot (200)', async () => {
        const ledger = await ledgerOf(loan.paths)
        const opening = {
          balance_id: (await latestOf(loan.paths)).balance_id,
          loan_id: loan.loanId,
          as_of: loan.loan.start_date,
          currency: 'USD',
          principal_outstanding: 1_200_000,
          interest_outstanding: 0,
          fees_outstanding: 0,
          payoff_amount: 1_200_000,
          past_due_amount: 0,
          next_due_date: loan.loan.first_due_date,
          next_due_amount: loan.loan.payment_amount,
          transaction_id: ledger[ledger.length - 1]!['transaction_id'],
          created_at: loan.loan.created_at,
        }
        expect(opening.balance_id).to.match(UUID)
        const list = await get(loan.paths.balances)
        expect(list.status).to.equal(200)
        expect(list.body.next_cursor).to.equal(null)
        expect(list.body.data.map((b: Record<string, unknown>) => documented('balance', b))).to.deep.equal([opening])
        const latest = await get(loan.paths.latestBalance)
        expect(latest.status).to.equal(200)
        expect(documented('balance', latest.body)).to.deep.equal(opening)
        expect(latest.body).to.deep.equal(list.body.data[0])
      })

      it('listLoanScheduleForParty answers every installment by due date, UPCOMING, as previewed (200)', async () => {
        const preview = await ok(`/public/applications/${loan.applicationId}/schedule-preview?start_date=${loan.loan.start_date}`)
        const reply = await get(`${loan.paths.schedule}?limit=100`)
        expect(reply.status).to.equal(200)
        expect(reply.body.next_cursor).to.equal(null)
        expect(reply.body.data.map((i: Record<string, unknown>) => documented('installment', i))).to.deep.equal(
          preview.installments.map((i: Record<string, number>) => ({
            installment_number: i['number'],
            due_date: i['due_date'],
            currency: 'USD',
            principal_due: i['principal'],
            interest_due: i['interest'],
            fees_due: 0,
            total_due: i['payment'],
            principal_paid: 0,
            interest_paid: 0,
            fees_paid: 0,
            total_paid: 0,
            interest_accrued: false,
            status: 'UPCOMING',
          })),
        )
        expect(reply.body.data).to.have.length(12)
      })

      it('listTransactionsForPartyLoan answers the opening entries in ledger order (200)', async () => {
        const reply = await get(loan.paths.transactions)
        expect(reply.status).to.equal(200)
        expect(reply.body.next_cursor).to.equal(null)
        const entries = reply.body.data.map((t: Record<string, unknown>) => documented('transaction', t))
        const entry = (type: string, amount: number, principal: number, fees: number) => ({
          loan_id: loan.loanId,
          type,
          effective_date: loan.loan.start_date,
          amount,
          currency: 'USD',
          principal,
          interest: 0,
          fees,
          payment_id: null,
          reverses_transaction_id: null,
          created_at: loan.loan.created_at,
        })
        expect(entries.map(({ transaction_id: _id, ...rest }: Record<string, unknown>) => rest)).to.deep.equal([
          entry('DISBURSEMENT', 1_200_000, 1_200_000, 0),
          entry('ORIGINATION_FEE', 24_000, 0, 24_000),
          entry('FEE_WITHHELD', 24_000, 0, -24_000),
        ])
        for (const t of entries) expect(t.transaction_id).to.match(UUID)
        await invariant(loan.paths, 'booked')
      })

      it('listDocumentsForPartyLoan answers the opening statement generated at booking (200)', async () => {
        const reply = await get(loan.paths.documents)
        expect(reply.status).to.equal(200)
        expect(reply.body.next_cursor).to.equal(null)
        expect(reply.body.data).to.have.length(1)
        const statement = reply.body.data[0]
        expect(statement.document_id).to.match(UUID)
        expect(documented('document', statement)).to.deep.equal({
          document_id: statement.document_id,
          loan_id: loan.loanId,
          type: 'statement',
          period_start: loan.loan.start_date,
          period_end: loan.loan.start_date,
          storage_ref: `lendgate://loans/${loan.loanId}/statements/${loan.loan.start_date}.pdf`,
          file_name: `statement-${loan.loan.start_date}.pdf`,
          content_type: 'application/pdf',
          created_at: loan.loan.created_at,
        })
      })

      it('listCollateralForPartyLoan and listPaymentMethodsForPartyLoan answer empty lists (200)', async () => {
        const fresh = await book()
        for (const path of [fresh.paths.collateral, fresh.paths.paymentMethods]) {
          const reply = await get(path)
          expect(reply.status, path).to.equal(200)
          expect(reply.body, path).to.deep.equal({ data: [], next_cursor: null })
        }
      })
    })

    describe('collateral and documents (operators add, partners list)', () => {
      let loan: BookedLoan
      before(async () => {
        loan = await book()
      })

      it('addLoanCollateral records an item (201) that listCollateralForPartyLoan lists oldest first', async () => {
        const lathe = await internal('POST', loan.paths.internalCollateral, {
          type: 'equipment',
          description: 'CNC lathe, serial 4471-B',
          valuation: 850_000,
          currency: 'USD',
          lien_position: 1,
        })
        expect(lathe.status, lathe.text).to.equal(201)
        expect(lathe.body.collateral_id).to.match(UUID)
        expect(lathe.body.created_at).to.match(ISO_MS)
        expect(documented('collateral', lathe.body)).to.deep.equal({
          collateral_id: lathe.body.collateral_id,
          loan_id: loan.loanId,
          type: 'equipment',
          description: 'CNC lathe, serial 4471-B',
          valuation: 850_000,
          currency: 'USD',
          lien_position: 1,
          created_at: lathe.body.created_at,
        })
        const warehouse = await internal('POST', loan.paths.internalCollateral, {
          type: 'real_estate',
          description: 'Warehouse, 12 Dock Rd',
          valuation: 30_000_000,
          currency: 'USD',
          lien_position: 2,
        })
        expect(warehouse.status, warehouse.text).to.equal(201)
        const list = await get(loan.paths.collateral)
        expect(list.status).to.equal(200)
        expect(list.body).to.deep.equal({ data: [lathe.body, warehouse.body], next_cursor: null })
        const paged = await get(`${loan.paths.collateral}?limit=1`)
        expect(paged.body.data).to.deep.equal([lathe.body])
        const rest = await get(`${loan.paths.collateral}?limit=1&cursor=${encodeURIComponent(paged.body.next_cursor)}`)
        expect(rest.body).to.deep.equal({ data: [warehouse.body], next_cursor: null })
      })

      it('refuses bad collateral with 400 naming the field, and an unknown loan with 404', async () => {
        const valid = { type: 'vehicle', description: 'Box truck', valuation: 4_000_000, currency: 'USD' }
        for (const [json, param] of [
          [{ ...valid, type: 'boat' }, 'type'],
          [{ ...valid, valuation: 0 }, 'valuation'],
          [{ ...valid, valuation: 12.5 }, 'valuation'],
          [{ ...valid, currency: 'usd' }, 'currency'],
          [{ ...valid, description: '' }, 'description'],
          [{ ...valid, colour: 'white' }, 'colour'],
        ] as const) {
          expectInvalid(await internal('POST', loan.paths.internalCollateral, json), param, JSON.stringify(json))
        }
        const unknown = await internal('POST', `/internal/loans/${randomUUID()}/collateral`, valid)
        expect(unknown.status).to.equal(404)
        expect(unknown.body).to.deep.equal(NO_SUCH_LOAN)
        expectInvalid(await internal('POST', '/internal/loans/nope/collateral', valid), 'loanId')
        expect((await get(loan.paths.collateral)).body.data).to.have.length(2)
      })

      it('attachLoanDocument attaches a document (201) listed after the opening statement', async () => {
        const input = {
          type: 'notice',
          storage_ref: 's3://lendgate-docs/notices/rate-notice.pdf',
          file_name: 'rate-notice.pdf',
          content_type: 'application/pdf',
          period_start: loan.loan.start_date,
          period_end: loan.loan.first_due_date,
        }
        const reply = await internal('POST', loan.paths.internalDocuments, input)
        expect(reply.status, reply.text).to.equal(201)
        expect(reply.body.document_id).to.match(UUID)
        expect(reply.body.created_at).to.match(ISO_MS)
        const { type, storage_ref, file_name, content_type, period_start, period_end } = input
        expect(documented('document', reply.body)).to.deep.equal({
          document_id: reply.body.document_id,
          loan_id: loan.loanId,
          type,
          period_start,
          period_end,
          storage_ref,
          file_name,
          content_type,
          created_at: reply.body.created_at,
        })
        const list = await get(loan.paths.documents)
        expect(list.status).to.equal(200)
        expect(list.body.data.map((d: Record<string, unknown>) => d['type'])).to.deep.equal(['statement', 'notice'])
        expect(list.body.data[1]).to.deep.equal(reply.body)

        const bare = await internal('POST', loan.paths.internalDocuments, { type: 'other', storage_ref: 'docs/other-1' })
        expect(bare.status, bare.text).to.equal(201)
        expect(bare.body).to.deep.include({ type: 'other', storage_ref: 'docs/other-1', period_start: null, period_end: null, file_name: null, content_type: null })
      })

      it('refuses a bad document with 400 naming the field, and an unknown loan with 404', async () => {
        const valid = { type: 'statement', storage_ref: 's3://bucket/key.pdf' }
        for (const [json, param] of [
          [{ ...valid, type: 'invoice' }, 'type'],
          [{ ...valid, storage_ref: 'has space' }, 'storage_ref'],
          [{ ...valid, period_start: '2026-02-30' }, 'period_start'],
          [{ ...valid, period_start: '2026-05-01', period_end: '2026-04-30' }, 'period_start'],
          [{ ...valid, content_type: 'pdf' }, 'content_type'],
          [{ ...valid, title: 'x' }, 'title'],
        ] as const) {
          expectInvalid(await internal('POST', loan.paths.internalDocuments, json), param, JSON.stringify(json))
        }
        const unknown = await internal('POST', `/internal/loans/${randomUUID()}/documents`, valid)
        expect(unknown.status).to.equal(404)
        expect(unknown.body).to.deep.equal(NO_SUCH_LOAN)
      })
    })

    describe('payment methods', () => {
      let loan: BookedLoan
      let first: Record<string, any>
      before(async () => {
        loan = await book()
      })

      it('registers a bank account (201): last4 only, never the account number, routing number or token; the first is the default', async () => {
        const reply = await call('POST', loan.paths.paymentMethods, BANK_ACCOUNT)
        expect(reply.status, reply.text).to.equal(201)
        first = reply.body
        expect(first.payment_method_id).to.match(UUID)
        expect(first.created_at).to.match(ISO_MS)
        expect(documented('paymentMethod', first)).to.deep.equal({
          payment_method_id: first.payment_method_id,
          loan_id: loan.loanId,
          type: 'bank_account',
          nickname: 'Operating',
          is_default: true,
          status: 'active',
          last4: '6789',
          account_holder_name: 'Acme Widgets LLC',
          account_type: 'checking',
          brand: null,
          exp_month: null,
          exp_year: null,
          created_at: first.created_at,
          updated_at: first.created_at,
        })
        const list = await get(loan.paths.paymentMethods)
        expect(list.status).to.equal(200)
        expect(list.body).to.deep.equal({ data: [first], next_cursor: null })
        for (const text of [reply.text, list.text]) {
          expect(text).not.to.include(ACCOUNT_NUMBER)
          expect(text).not.to.include(ROUTING)
          expect(text).not.to.match(/token|btok_/i)
        }
      })

      it('refuses a routing number that fails the ABA checksum, and bad account details, with 400 naming the field', async () => {
        const before = (await get(loan.paths.paymentMethods)).body
        for (const [json, param] of [
          [{ ...BANK_ACCOUNT, routing_number: '011000016' }, 'routing_number'],
          [{ ...BANK_ACCOUNT, routing_number: '123456789' }, 'routing_number'],
          [{ ...BANK_ACCOUNT, routing_number: '01100001' }, 'routing_number'],
          [{ ...BANK_ACCOUNT, account_number: '123' }, 'account_number'],
          [{ ...BANK_ACCOUNT, account_number: '123456789012345678' }, 'account_number'],
          [{ ...BANK_ACCOUNT, account_number: '12-34-56' }, 'account_number'],
          [{ ...BANK_ACCOUNT, account_type: 'brokerage' }, 'account_type'],
          [{ ...BANK_ACCOUNT, account_holder_name: '' }, 'account_holder_name'],
          [{ ...BANK_ACCOUNT, type: 'crypto' }, 'type'],
          [{ ...BANK_ACCOUNT, iban: 'DE89370400440532013000' }, 'iban'],
        ] as const) {
          const reply = await call('POST', loan.paths.paymentMethods, json)
          expectInvalid(reply, param, JSON.stringify(json))
          expect(reply.text).not.to.include(ACCOUNT_NUMBER)
        }
        expect((await get(loan.paths.paymentMethods)).body).to.deep.equal(before)
      })

      it('registers a card token (201), not the default, never echoing the token', async () => {
        const expYear = new Date().getUTCFullYear() + 2
        const cardToken = 'tok_visa_4242_secret_abc'
        const reply = await call('POST', loan.paths.paymentMethods, { type: 'card', card_token: cardToken, last4: '4242', brand: 'visa', exp_month: 11, exp_year: expYear })
        expect(reply.status, reply.text).to.equal(201)
        expect(documented('paymentMethod', reply.body)).to.deep.equal({
          payment_method_id: reply.body.payment_method_id,
          loan_id: loan.loanId,
          type: 'card',
          nickname: null,
          is_default: false,
          status: 'active',
          last4: '4242',
          account_holder_name: null,
          account_type: null,
          brand: 'visa',
          exp_month: 11,
          exp_year: expYear,
          created_at: reply.body.created_at,
          updated_at: reply.body.created_at,
        })
        expect(reply.text).not.to.include(cardToken)
        expect((await get(loan.paths.paymentMethods)).text).not.to.include(cardToken)
      })

      it('refuses an expired card with 400', async () => {
        const now = new Date()
        const lastYear = await call('POST', loan.paths.paymentMethods, { type: 'card', card_token: 'tok_expired_1', last4: '0005', exp_month: 12, exp_year: now.getUTCFullYear() - 1 })
        expect(lastYear.status, lastYear.text).to.equal(400)
        expect(lastYear.body.error).to.equal('invalid_request')
        expect(lastYear.body.param).to.be.oneOf(['exp_year', 'exp_month'])
        if (now.getUTCMonth() > 0) {
          const lastMonth = await call('POST', loan.paths.paymentMethods, { type: 'card', card_token: 'tok_expired_2', last4: '0005', exp_month: now.getUTCMonth(), exp_year: now.getUTCFullYear() })
          expect(lastMonth.status, lastMonth.text).to.equal(400)
          expect(lastMonth.body.error).to.equal('invalid_request')
        }
        const thisMonth = await call('POST', loan.paths.paymentMethods, { type: 'card', card_token: 'tok_current_3', last4: '0006', exp_month: now.getUTCMonth() + 1, exp_year: now.getUTCFullYear() })
        expect(thisMonth.status, thisMonth.text).to.equal(201)
      })

      it('makes another method the default (201 with is_default), unmarking the first', async () => {
        const second = await addMethod(loan.paths, { ...BANK_ACCOUNT, routing_number: '021000021', account_number: '55501234', nickname: 'Payroll', account_type: 'savings', is_default: true })
        expect(second).to.deep.include({ is_default: true, last4: '1234', account_type: 'savings', nickname: 'Payroll' })
        const list = (await get(`${loan.paths.paymentMethods}?limit=100`)).body.data as Record<string, unknown>[]
        expect(list.filter((m) => m['is_default'] === true).map((m) => m['payment_method_id'])).to.deep.equal([second['payment_method_id']])
        expect(list.find((m) => m['payment_method_id'] === first['payment_method_id'])).to.deep.include({ is_default: false })
        expect(list.map((m) => m['payment_method_id'])[0]).to.equal(first['payment_method_id'])
      })

      it('updatePaymentMethodForPartyLoan changes the nickname and makes a method the default (200), unmarking the others', async () => {
        const renamed = await call('PATCH', loan.paths.paymentMethod(first['payment_method_id']), { nickname: 'Main operating' })
        expect(renamed.status, renamed.text).to.equal(200)
        const { nickname: _n, updated_at, ...unchanged } = documented('paymentMethod', renamed.body)
        const { nickname: _o, updated_at: _u, ...was } = documented('paymentMethod', first)
        expect(unchanged).to.deep.equal({ ...was, is_default: false })
        expect(renamed.body.nickname).to.equal('Main operating')
        expect(updated_at).to.match(ISO_MS)

        const promoted = await call('PATCH', loan.paths.paymentMethod(first['payment_method_id']), { is_default: true })
        expect(promoted.status, promoted.text).to.equal(200)
        expect(promoted.body).to.deep.include({ payment_method_id: first['payment_method_id'], is_default: true, nickname: 'Main operating' })
        const list = (await get(`${loan.paths.paymentMethods}?limit=100`)).body.data as Record<string, unknown>[]
        expect(list.filter((m) => m['is_default'] === true)).to.deep.equal([promoted.body])

        const unnamed = await call('PATCH', loan.paths.paymentMethod(first['payment_method_id']), { nickname: null })
        expect(unnamed.status, 'null clears the nickname (JSON Merge Patch)').to.equal(200)
        expect(unnamed.body).to.deep.include({ payment_method_id: first['payment_method_id'], is_default: true, nickname: null })
        const stored = (await get(`${loan.paths.paymentMethods}?limit=100`)).body.data as Record<string, unknown>[]
        expect(stored.find((m) => m['payment_method_id'] === first['payment_method_id'])).to.deep.equal(unnamed.body)
      })

      it('refuses to unmark the default (400 naming is_default), and refuses an empty or unknown patch', async () => {
        const before = (await get(`${loan.paths.paymentMethods}?limit=100`)).body
        expectInvalid(await call('PATCH', loan.paths.paymentMethod(first['payment_method_id']), { is_default: false }), 'is_default')
        expectInvalid(await call('PATCH', loan.paths.paymentMethod(first['payment_method_id']), { last4: '0000' }), 'last4')
        expectInvalid(await call('PATCH', loan.paths.paymentMethod(first['payment_method_id']), { nickname: '' }), 'nickname')
        expectInvalid(await call('PATCH', loan.paths.paymentMethod(first['payment_method_id']), { is_default: null }), 'is_default')
        const empty = await call('PATCH', loan.paths.paymentMethod(first['payment_method_id']), {})
        expect(empty.status, empty.text).to.equal(400)
        expect(empty.body.error).to.equal('invalid_request')
        expect((await get(`${loan.paths.paymentMethods}?limit=100`)).body).to.deep.equal(before)
        expect(before.data.filter((m: Record<string, unknown>) => m['is_default'] === true)).to.have.length(1)
      })

      it('answers 404 for an unknown payment method or one of another loan, 400 for a malformed id', async () => {
        const unknown = await call('PATCH', loan.paths.paymentMethod(randomUUID()), { nickname: 'x' })
        expect(unknown.status).to.equal(404)
        expect(unknown.body).to.deep.equal({ error: 'not_found', detail: 'No such payment method.' })
        const sibling = await book()
        const elsewhere = await addMethod(sibling.paths)
        const crossed = await call('PATCH', loan.paths.paymentMethod(elsewhere['payment_method_id']), { nickname: 'x' })
        expect(crossed.status).to.equal(404)
        expect(crossed.body).to.deep.equal({ error: 'not_found', detail: 'No such payment method.' })
        expectInvalid(await call('PATCH', loan.paths.paymentMethod('pm_1'), { nickname: 'x' }), 'paymentMethodId')
      })
    })

    describe('payments', () => {
      let loan: BookedLoan
      let method: Record<string, any>
      /** A method of another loan of the same party. */
      let foreignMethod: Record<string, any>
      let first: Reply
      let firstKey: string
      before(async () => {
        loan = await book()
        method = await addMethod(loan.paths)
        foreignMethod = await addMethod(booked[0]!.paths)
      })

      it('refuses a payment without Idempotency-Key with 400 idempotency_key_required, recording nothing', async () => {
        const reply = await pay(loan.paths, { amount: 100_000, currency: 'USD', payment_method_id: method['payment_method_id'] }, null)
        expect(reply.status).to.equal(400)
        expect(reply.body).to.deep.equal(KEY_REQUIRED)
        expect(await ledgerOf(loan.paths)).to.have.length(3)
      })

      it('takes a payment (201 SUCCEEDED) allocated to principal, with a PAYMENT entry and a new snapshot', async () => {
        const scheduleBefore = await scheduleOf(loan.paths)
        firstKey = `pay-${randomUUID()}`
        first = await pay(loan.paths, { amount: 100_000, currency: 'USD', payment_method_id: method['payment_method_id'] }, firstKey)
        expect(first.status, first.text).to.equal(201)
        expect(first.headers.get('idempotent-replayed')).to.equal(null)
        expect(first.body.payment_id).to.match(UUID)
        expect(first.body.created_at).to.match(ISO_MS)
        expect(documented('payment', first.body)).to.deep.equal({
          payment_id: first.body.payment_id,
          loan_id: loan.loanId,
          status: 'SUCCEEDED',
          amount: 100_000,
          currency: 'USD',
          payment_method_id: method['payment_method_id'],
          allocation: { past_due: NO_PAST_DUE, fees: 0, interest: 0, principal: 100_000 },
          failure_code: null,
          return_code: null,
          created_at: first.body.created_at,
        })

        const ledger = await ledgerOf(loan.paths)
        expect(ledger).to.have.length(4)
        const entry = ledger[3]!
        expect(documented('transaction', entry)).to.deep.equal({
          transaction_id: entry['transaction_id'],
          loan_id: loan.loanId,
          type: 'PAYMENT',
          effective_date: utcToday(),
          amount: 100_000,
          currency: 'USD',
          principal: -100_000,
          interest: 0,
          fees: 0,
          payment_id: first.body.payment_id,
          reverses_transaction_id: null,
          created_at: first.body.created_at,
        })

        // On the booking day no interest has accrued: the payment pays installment 1's principal, which
        // closes it (PAID, no interest), and the rest is a prepayment recorded on it; the month's interest
        // now accrues to installment 2 (docs/servicing.md "Payments").
        const schedule = await scheduleOf(loan.paths)
        expect(scheduleBefore[0]!['principal_due']).to.be.below(100_000)
        expect(schedule[0]).to.deep.include({ principal_due: 100_000, principal_paid: 100_000, interest_due: 0, interest_paid: 0, total_paid: 100_000, interest_accrued: true, status: 'PAID' })
        expect(schedule.slice(1).every((i) => i['status'] === 'UPCOMING' && i['total_paid'] === 0)).to.equal(true)
        expect(schedule.reduce((sum, i) => sum + (i['principal_due'] as number), 0)).to.equal(1_200_000)

        const latest = await latestOf(loan.paths)
        expect(documented('balance', latest)).to.deep.equal({
          balance_id: latest.balance_id,
          loan_id: loan.loanId,
          as_of: utcToday(),
          currency: 'USD',
          principal_outstanding: 1_100_000,
          interest_outstanding: 0,
          fees_outstanding: 0,
          payoff_amount: 1_100_000,
          past_due_amount: 0,
          next_due_date: schedule[1]!['due_date'],
          next_due_amount: schedule[1]!['total_due'],
          transaction_id: entry['transaction_id'],
          created_at: first.body.created_at,
        })
        expect(await balancesOf(loan.paths)).to.have.length(2)
        await invariant(loan.paths, 'after a payment')
      })

      it('replays the same Idempotency-Key with the first body and Idempotent-Replayed: true, paying once', async () => {
        const replay = await pay(loan.paths, { amount: 100_000, currency: 'USD', payment_method_id: method['payment_method_id'] }, firstKey)
        expect(replay.status).to.equal(201)
        expect(replay.headers.get('idempotent-replayed')).to.equal('true')
        expect(replay.body).to.deep.equal(first.body)
        const reused = await pay(loan.paths, { amount: 100_001, currency: 'USD', payment_method_id: method['payment_method_id'] }, firstKey)
        expect(reused.status).to.equal(422)
        expect(reused.body.error).to.equal('idempotency_key_reused')
        const payments = (await ledgerOf(loan.paths)).filter((t) => t['type'] === 'PAYMENT')
        expect(payments.map((t) => t['payment_id'])).to.deep.equal([first.body.payment_id])
      })

      it('records a failed charge (the sandbox account that fails) as 201 FAILED insufficient_funds, changing no balance', async () => {
        const empty = await addMethod(loan.paths, INSUFFICIENT_FUNDS_ACCOUNT)
        const declining = await addMethod(loan.paths, DECLINED_CARD)
        const latest = await latestOf(loan.paths)
        const ledger = await ledgerOf(loan.paths)
        const schedule = await scheduleOf(loan.paths)
        const reply = await pay(loan.paths, { amount: 50_000, currency: 'USD', payment_method_id: empty['payment_method_id'] })
        expect(reply.status, reply.text).to.equal(201)
        expect(documented('payment', reply.body)).to.deep.equal({
          payment_id: reply.body.payment_id,
          loan_id: loan.loanId,
          status: 'FAILED',
          amount: 50_000,
          currency: 'USD',
          payment_method_id: empty['payment_method_id'],
          allocation: null,
          failure_code: 'insufficient_funds',
          return_code: null,
          created_at: reply.body.created_at,
        })
        const declined = await pay(loan.paths, { amount: 50_000, currency: 'USD', payment_method_id: declining['payment_method_id'] })
        expect(declined.status, declined.text).to.equal(201)
        expect(declined.body).to.deep.include({ status: 'FAILED', failure_code: 'card_declined', allocation: null })
        expect(await latestOf(loan.paths)).to.deep.equal(latest)
        expect(await ledgerOf(loan.paths)).to.deep.equal(ledger)
        expect(await scheduleOf(loan.paths)).to.deep.equal(schedule)
      })

      it('refuses an amount above the payoff with 422 overpayment naming payoff_amount', async () => {
        const latest = await latestOf(loan.paths)
        const reply = await pay(loan.paths, { amount: latest.payoff_amount + 1, currency: 'USD', payment_method_id: method['payment_method_id'] })
        expect(reply.status, reply.text).to.equal(422)
        expect(Object.keys(reply.body).sort()).to.deep.equal(['detail', 'error', 'payoff_amount'])
        expect(reply.body).to.deep.include({ error: 'overpayment', payoff_amount: 1_100_000 })
        expect(await latestOf(loan.paths)).to.deep.equal(latest)
      })

      it('refuses another currency, another loan’s payment method, an unknown method and a bad amount with 400 naming the field', async () => {
        const ledger = await ledgerOf(loan.paths)
        const valid = { amount: 10_000, currency: 'USD', payment_method_id: method['payment_method_id'] }
        for (const [json, param] of [
          [{ ...valid, currency: 'EUR' }, 'currency'],
          [{ ...valid, currency: 'usd' }, 'currency'],
          [{ ...valid, payment_method_id: foreignMethod['payment_method_id'] }, 'payment_method_id'],
          [{ ...valid, payment_method_id: randomUUID() }, 'payment_method_id'],
          [{ ...valid, payment_method_id: 'pm_1' }, 'payment_method_id'],
          [{ ...valid, amount: 0 }, 'amount'],
          [{ ...valid, amount: -100 }, 'amount'],
          [{ ...valid, amount: 100.5 }, 'amount'],
          [{ ...valid, amount: '10000' }, 'amount'],
          [{ currency: 'USD', payment_method_id: method['payment_method_id'] }, 'amount'],
          [{ ...valid, memo: 'June' }, 'memo'],
        ] as const) {
          expectInvalid(await pay(loan.paths, json), param, JSON.stringify(json))
        }
        expect(await ledgerOf(loan.paths)).to.deep.equal(ledger)
        await invariant(loan.paths, 'after refused payments')
      })

      it('takes an amount only as a JSON integer literal: 1.0, 1e4 and 100.0000000000000001 are 400 naming amount (issue 35)', async () => {
        const ledger = await ledgerOf(loan.paths)
        for (const literal of ['10000.0', '1e4', '1E4', '10000.0000000000000001', '-0.0']) {
          const reply = await request(server.url, loan.paths.payments, {
            method: 'POST',
            headers: { ...bearer(borrower.key.api_key), 'Content-Type': 'application/json', 'Idempotency-Key': `literal-${randomUUID()}` },
            rawBody: `{"amount":${literal},"currency":"USD","payment_method_id":"${method['payment_method_id']}"}`,
          })
          expectInvalid(reply, 'amount', literal)
          expect(reply.body.detail, literal).to.equal(`amount must be an integer literal, amounts in minor units (no fraction or exponent): found ${literal}.`)
        }
        expect(await ledgerOf(loan.paths)).to.deep.equal(ledger)
      })

      it('refuses the key of a payment for a different payment after its 24 h replay record is gone: 422, never the old payment (issue 35)', async () => {
        const other = await book()
        const otherMethod = await addMethod(other.paths)
        const key = `kept-${randomUUID()}`
        const body = { amount: 20_000, currency: 'USD', payment_method_id: method['payment_method_id'] }
        const paid = await pay(loan.paths, body, key)
        expect(paid.status, paid.text).to.equal(201)
        // What the hourly purge does a day later: the HTTP layer no longer remembers the key, so
        // the payment's own record of it is what answers (purged before each request, since the
        // HTTP layer remembers each new use for another day).
        const dayLater = async (): Promise<void> => {
          expect(E.isRight(await server.deps.idempotency.purgeExpired(new Date(Date.now() + 25 * 60 * 60 * 1000))())).to.equal(true)
        }
        await dayLater()
        const elsewhere = await pay(other.paths, { ...body, payment_method_id: otherMethod['payment_method_id'] }, key)
        expect(elsewhere.status, elsewhere.text).to.equal(422)
        expect(elsewhere.body.error).to.equal('idempotency_key_reused')
        expect(elsewhere.text).not.to.contain(paid.body.payment_id)
        await dayLater()
        const otherAmount = await pay(loan.paths, { ...body, amount: 20_001 }, key)
        expect(otherAmount.status, otherAmount.text).to.equal(422)
        await dayLater()
        const same = await pay(loan.paths, body, key)
        expect(same.status, same.text).to.equal(201)
        expect(same.body.payment_id).to.equal(paid.body.payment_id)
        expect((await ledgerOf(other.paths)).filter((t) => t['type'] === 'PAYMENT')).to.deep.equal([])
      })

      it('keeps no 422 idempotency_key_reused under the key: the genuine retry of the payment that owns it gets its payment at once (issue 53)', async () => {
        const other = await book()
        const otherMethod = await addMethod(other.paths)
        const key = `owned-${randomUUID()}`
        const body = { amount: 20_000, currency: 'USD', payment_method_id: method['payment_method_id'] }
        const paid = await pay(loan.paths, body, key)
        expect(paid.status, paid.text).to.equal(201)
        // A day later the HTTP layer no longer remembers the key; a different payment takes it up
        // and is refused by the payment's own record of the key.
        expect(E.isRight(await server.deps.idempotency.purgeExpired(new Date(Date.now() + 25 * 60 * 60 * 1000))())).to.equal(true)
        const elsewhere = await pay(other.paths, { ...body, payment_method_id: otherMethod['payment_method_id'] }, key)
        expect([elsewhere.status, elsewhere.body.error]).to.deep.equal([422, 'idempotency_key_reused'])
        // That refusal came of the first payment, not of this request: the first payment's retry,
        // right after it, still gets its payment rather than the refusal kept under the key…
        const retried = await pay(loan.paths, body, key)
        expect(retried.status, retried.text).to.equal(201)
        expect(retried.body).to.deep.equal(paid.body)
        // …and the different payment is still refused, never given the first one.
        const again = await pay(other.paths, { ...body, payment_method_id: otherMethod['payment_method_id'] }, key)
        expect([again.status, again.body.error]).to.deep.equal([422, 'idempotency_key_reused'])
        expect((await ledgerOf(other.paths)).filter((t) => t['type'] === 'PAYMENT')).to.deep.equal([])
        expect((await ledgerOf(loan.paths)).filter((t) => t['payment_id'] === paid.body.payment_id)).to.have.length(1)
      })

      it('answers a retry of a final bill settled at the payoff with that payment even after it is reversed (decision 125)', async () => {
        const settling = await book()
        const paymentMethodId = (await addMethod(settling.paths))['payment_method_id']
        const down = await pay(settling.paths, { amount: (await latestOf(settling.paths)).payoff_amount - 100_000, currency: 'USD', payment_method_id: paymentMethodId })
        expect(down.status, down.text).to.equal(201)
        const before = await latestOf(settling.paths)
        expect(before.next_due_amount, 'the final bill is above the payoff').to.be.greaterThan(before.payoff_amount)
        const key = `bill-${randomUUID()}`
        const body = { amount: before.next_due_amount, currency: 'USD', payment_method_id: paymentMethodId }
        const paid = await pay(settling.paths, body, key)
        expect([paid.status, paid.body.status, paid.body.amount], paid.text).to.deep.equal([201, 'SUCCEEDED', before.payoff_amount])
        const reversed = await internal('POST', `/internal/payments/${paid.body.payment_id}/reverse`, {})
        expect(reversed.status, reversed.text).to.equal(200)
        // A day later the HTTP layer no longer remembers the key: the payment's own record answers.
        expect(E.isRight(await server.deps.idempotency.purgeExpired(new Date(Date.now() + 25 * 60 * 60 * 1000))())).to.equal(true)
        const retried = await pay(settling.paths, body, key)
        expect(retried.status, retried.text).to.equal(201)
        expect(retried.body).to.deep.equal(reversed.body)
        const capped = await pay(settling.paths, { ...body, amount: before.payoff_amount }, key)
        expect([capped.status, capped.body.error]).to.deep.equal([422, 'idempotency_key_reused'])
        expect((await ledgerOf(settling.paths)).filter((t) => t['payment_id'] === paid.body.payment_id)).to.have.length(2)
      })
    })

    describe('concurrent payments', () => {
      let loan: BookedLoan
      let method: Record<string, any>
      before(async () => {
        loan = await book()
        method = await addMethod(loan.paths)
      })

      it('serialises 30 payments with distinct keys on one loan: all 201, 30 PAYMENT entries, principal reduced by their sum', async function () {
        this.timeout(120_000)
        const amounts = Array.from({ length: 30 }, (_, n) => 1_000 + n * 100)
        const replies = await Promise.all(amounts.map((amount) => pay(loan.paths, { amount, currency: 'USD', payment_method_id: method['payment_method_id'] })))
        for (const reply of replies) {
          expect(reply.status, reply.text).to.equal(201)
          expect(reply.body.status).to.equal('SUCCEEDED')
        }
        expect(new Set(replies.map((r) => r.body.payment_id)).size).to.equal(30)
        const sum = amounts.reduce((a, b) => a + b, 0)
        const latest = await latestOf(loan.paths)
        expect(latest).to.deep.include({ principal_outstanding: 1_200_000 - sum, interest_outstanding: 0, fees_outstanding: 0, payoff_amount: 1_200_000 - sum })
        const payments = (await ledgerOf(loan.paths)).filter((t) => t['type'] === 'PAYMENT')
        expect(payments).to.have.length(30)
        expect(payments.map((t) => t['payment_id']).sort()).to.deep.equal(replies.map((r) => r.body.payment_id).sort())
        expect(await balancesOf(loan.paths)).to.have.length(31)
        await invariant(loan.paths, 'after 30 concurrent payments')
      })

      it('pays once for 20 concurrent identical requests with one key', async function () {
        this.timeout(120_000)
        const before = (await ledgerOf(loan.paths)).filter((t) => t['type'] === 'PAYMENT').length
        const key = `same-${randomUUID()}`
        const replies = await Promise.all(
          Array.from({ length: 20 }, () => pay(loan.paths, { amount: 2_500, currency: 'USD', payment_method_id: method['payment_method_id'] }, key)),
        )
        for (const reply of replies) {
          expect(reply.status, reply.text).to.be.oneOf([201, 409])
          if (reply.status === 409) expect(reply.body.error).to.equal('idempotency_key_in_use')
        }
        const created = replies.filter((r) => r.status === 201)
        expect(created.length).to.be.greaterThan(0)
        expect(new Set(created.map((r) => r.body.payment_id)).size).to.equal(1)
        const replay = await pay(loan.paths, { amount: 2_500, currency: 'USD', payment_method_id: method['payment_method_id'] }, key)
        expect(replay.status).to.equal(201)
        expect(replay.headers.get('idempotent-replayed')).to.equal('true')
        expect(replay.body).to.deep.equal(created[0]!.body)
        const payments = (await ledgerOf(loan.paths)).filter((t) => t['type'] === 'PAYMENT')
        expect(payments).to.have.length(before + 1)
        expect(payments.filter((t) => t['payment_id'] === replay.body.payment_id)).to.have.length(1)
        await invariant(loan.paths, 'after 20 identical requests')
      })
    })

    describe('listPaymentsForPartyLoan (issue 37)', () => {
      it('lists every payment of the loan oldest first, whatever its status, a page at a time (200)', async () => {
        const loan = await book()
        const method = await addMethod(loan.paths)
        const paid = await pay(loan.paths, { amount: 150_000, currency: 'USD', payment_method_id: method['payment_method_id'] })
        const failed = await pay(loan.paths, { amount: 50_000, currency: 'USD', payment_method_id: (await addMethod(loan.paths, DECLINED_CARD))['payment_method_id'] })
        const later = await pay(loan.paths, { amount: 20_000, currency: 'USD', payment_method_id: method['payment_method_id'] })
        const reversed = await internal('POST', `/internal/payments/${paid.body.payment_id}/reverse`, {})
        expect([paid.status, failed.status, later.status, reversed.status]).to.deep.equal([201, 201, 201, 200])

        const all = await ok(loan.paths.payments)
        expect(all).to.deep.equal({ data: [reversed.body, failed.body, later.body], next_cursor: null })
        expect(all.data.map((p: Record<string, unknown>) => p['status'])).to.deep.equal(['REVERSED', 'FAILED', 'SUCCEEDED'])
        expect(await allPages(server, borrower.key.api_key, loan.paths.payments, 1)).to.deep.equal(all.data)

        const unknown = await get(loanPaths(borrower.partyId, randomUUID()).payments)
        expect(unknown.status).to.equal(404)
        expect((await ok(booked[0]!.paths.payments)).data.every((p: Record<string, unknown>) => p['loan_id'] === booked[0]!.loanId)).to.equal(true)
      })
    })

    describe('reverseLoanPayment', () => {
      let loan: BookedLoan
      let method: Record<string, any>
      before(async () => {
        loan = await book()
        method = await addMethod(loan.paths)
      })

      it('reverses a payment (200 REVERSED): a REVERSAL entry, the balance and schedule as before the payment', async () => {
        const balanceBefore = await latestOf(loan.paths)
        const scheduleBefore = await scheduleOf(loan.paths)
        const paid = await pay(loan.paths, { amount: 150_000, currency: 'USD', payment_method_id: method['payment_method_id'] })
        expect(paid.status, paid.text).to.equal(201)
        const paymentEntry = (await ledgerOf(loan.paths)).find((t) => t['payment_id'] === paid.body.payment_id && t['type'] === 'PAYMENT')!

        const reply = await internal('POST', `/internal/payments/${paid.body.payment_id}/reverse`, { reason: 'Returned by the bank (R01)' })
        expect(reply.status, reply.text).to.equal(200)
        expect(documented('payment', reply.body)).to.deep.equal({ ...documented('payment', paid.body), status: 'REVERSED' })

        const ledger = await ledgerOf(loan.paths)
        expect(ledger).to.have.length(5)
        const reversal = ledger[4]!
        expect(documented('transaction', reversal)).to.deep.equal({
          transaction_id: reversal['transaction_id'],
          loan_id: loan.loanId,
          type: 'REVERSAL',
          effective_date: utcToday(),
          amount: 150_000,
          currency: 'USD',
          principal: 150_000,
          interest: 0,
          fees: 0,
          payment_id: paid.body.payment_id,
          reverses_transaction_id: paymentEntry['transaction_id'],
          created_at: reversal['created_at'],
        })
        expect(reversal['created_at']).to.match(ISO_MS)

        const figures = (b: Record<string, unknown>) => {
          const { balance_id: _b, transaction_id: _t, created_at: _c, as_of: _a, ...rest } = documented('balance', b)
          return rest
        }
        const latest = await latestOf(loan.paths)
        expect(figures(latest)).to.deep.equal(figures(balanceBefore))
        expect(latest.transaction_id).to.equal(reversal['transaction_id'])
        expect(await scheduleOf(loan.paths)).to.deep.equal(scheduleBefore)
        expect(await balancesOf(loan.paths)).to.have.length(3)
        await invariant(loan.paths, 'after a reversal')

        expectInvalidState(await internal('POST', `/internal/payments/${paid.body.payment_id}/reverse`, {}), 'REVERSED', 'reverse twice')
        expect(await ledgerOf(loan.paths)).to.have.length(5)
      })

      it('reverses only SUCCEEDED payments: a FAILED one is 409 invalid_state; an unknown one 404; a malformed id 400', async () => {
        const failed = await pay(loan.paths, { amount: 10_000, currency: 'USD', payment_method_id: (await addMethod(loan.paths, INSUFFICIENT_FUNDS_ACCOUNT))['payment_method_id'] })
        expect(failed.body.status).to.equal('FAILED')
        expectInvalidState(await internal('POST', `/internal/payments/${failed.body.payment_id}/reverse`, {}), 'FAILED', 'reverse a failed payment')
        const unknown = await internal('POST', `/internal/payments/${randomUUID()}/reverse`, {})
        expect(unknown.status).to.equal(404)
        expect(unknown.body).to.deep.equal({ error: 'not_found', detail: 'No such payment.' })
        expectInvalid(await internal('POST', '/internal/payments/nope/reverse', {}), 'paymentId')
        const paid = await pay(loan.paths, { amount: 20_000, currency: 'USD', payment_method_id: method['payment_method_id'] })
        expectInvalid(await internal('POST', `/internal/payments/${paid.body.payment_id}/reverse`, { reason: '' }), 'reason')
        expectInvalid(await internal('POST', `/internal/payments/${paid.body.payment_id}/reverse`, { why: 'x' }), 'why')
        const bare = await request(server.url, `/internal/payments/${paid.body.payment_id}/reverse`, { method: 'POST', headers: bearer(INTERNAL_TOKEN) })
        expect(bare.status, bare.text).to.equal(200)
        expect(bare.body.status).to.equal('REVERSED')
        await invariant(loan.paths, 'after refused reversals')
      })
    })

    describe('accrueInterest (the internal job)', () => {
      let loan: BookedLoan
      before(async () => {
        loan = await book()
      })

      it('refuses a future as_of, an impossible date or an unknown parameter with 400 naming it', async () => {
        expectInvalid(await internal('POST', `/internal/jobs/accrue-interest?as_of=${utcDayOffset(2)}`), 'as_of', 'the day after tomorrow (UTC): after today everywhere')
        expectInvalid(await internal('POST', '/internal/jobs/accrue-interest?as_of=2026-02-30'), 'as_of', 'February 30')
        expectInvalid(await internal('POST', '/internal/jobs/accrue-interest?as_of=today'), 'as_of', 'today')
        expectInvalid(await internal('POST', '/internal/jobs/accrue-interest?date=2026-01-01'), 'date', 'date')
      })

      it('runs for today by default (200 with counts); a second run changes nothing', async () => {
        const balances = await balancesOf(loan.paths)
        const ledger = await ledgerOf(loan.paths)
        const reply = await internal('POST', '/internal/jobs/accrue-interest')
        expect(reply.status, reply.text).to.equal(200)
        expect(Object.keys(reply.body).sort()).to.deep.equal(['accruals', 'as_of', 'livemode', 'loans_changed', 'loans_examined', 'loans_failed'])
        expect(reply.body.as_of).to.equal(utcToday())
        for (const count of ['loans_examined', 'loans_changed', 'accruals', 'loans_failed']) expect(reply.body[count], count).to.be.a('number').and.at.least(0)
        expect(reply.body.loans_examined).to.be.at.least(booked.length + 1)
        // Every loan was booked today: nothing is due yet, so nothing accrues for this one.
        expect(await balancesOf(loan.paths)).to.deep.equal(balances)
        expect(await ledgerOf(loan.paths)).to.deep.equal(ledger)

        const again = await internal('POST', `/internal/jobs/accrue-interest?as_of=${utcToday()}`)
        expect(again.status, again.text).to.equal(200)
        expect(again.body).to.deep.equal({ as_of: utcToday(), loans_examined: again.body.loans_examined, loans_changed: 0, accruals: 0, loans_failed: 0, livemode: true })
        expect(await balancesOf(loan.paths)).to.deep.equal(balances)
        await invariant(loan.paths, 'after the job')
      })

      it('accepts an as_of in the past and changes nothing that is not due', async () => {
        const balances = await balancesOf(loan.paths)
        const reply = await internal('POST', '/internal/jobs/accrue-interest?as_of=2025-01-01')
        expect(reply.status, reply.text).to.equal(200)
        expect(reply.body).to.deep.include({ as_of: '2025-01-01', accruals: 0 })
        expect(await balancesOf(loan.paths)).to.deep.equal(balances)
      })
    })

    describe('lists', () => {
      let loan: BookedLoan
      before(async () => {
        loan = await book()
        const method = await addMethod(loan.paths)
        for (const amount of [10_000, 20_000]) {
          const reply = await pay(loan.paths, { amount, currency: 'USD', payment_method_id: method['payment_method_id'] })
          expect(reply.status, reply.text).to.equal(201)
        }
      })

      for (const [name, pick] of [
        ['transactions', (p: LoanPaths) => p.transactions],
        ['balances', (p: LoanPaths) => p.balances],
        ['schedule', (p: LoanPaths) => p.schedule],
      ] as const) {
        it(`pages ${name} with limit=1 and the cursor, in the order of the whole list`, async () => {
          const whole = await get(`${pick(loan.paths)}?limit=100`)
          expect(whole.status).to.equal(200)
          expect(whole.body.next_cursor).to.equal(null)
          const pages: Record<string, unknown>[] = []
          let cursor: string | null = null
          do {
            const page: Reply = await get(`${pick(loan.paths)}?limit=1${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`)
            expect(page.status, page.text).to.equal(200)
            expect(page.body.data).to.have.length(1)
            pages.push(page.body.data[0])
            cursor = page.body.next_cursor
            if (pages.length < whole.body.data.length) expect(cursor).to.be.a('string')
          } while (cursor !== null)
          expect(pages).to.deep.equal(whole.body.data)
        })
      }

      it('orders the whole lists: ledger as written, balances oldest first, schedule by due date', async () => {
        const ledger = await ledgerOf(loan.paths)
        expect(ledger.map((t) => t['type'])).to.deep.equal(['DISBURSEMENT', 'ORIGINATION_FEE', 'FEE_WITHHELD', 'PAYMENT', 'PAYMENT'])
        expect(ledger.slice(3).map((t) => t['amount'])).to.deep.equal([10_000, 20_000])
        const balances = await balancesOf(loan.paths)
        expect(balances.map((b) => b['principal_outstanding'])).to.deep.equal([1_200_000, 1_190_000, 1_170_000])
        const schedule = await scheduleOf(loan.paths)
        expect(schedule.map((i) => i['installment_number'])).to.deep.equal(Array.from({ length: 12 }, (_, n) => n + 1))
        const dates = schedule.map((i) => i['due_date'] as string)
        expect(dates).to.deep.equal([...dates].sort())
      })

      it('filters transactions by ?type and by inclusive effective dates ?from / ?to', async () => {
        const ledger = await ledgerOf(loan.paths)
        const today = utcToday()
        expect(await allPages(server, borrower.key.api_key, `${loan.paths.transactions}?type=PAYMENT`)).to.deep.equal(ledger.filter((t) => t['type'] === 'PAYMENT'))
        expect(await allPages(server, borrower.key.api_key, `${loan.paths.transactions}?type=DISBURSEMENT`)).to.deep.equal([ledger[0]])
        expect(await allPages(server, borrower.key.api_key, `${loan.paths.transactions}?type=INTEREST_ACCRUAL`)).to.deep.equal([])
        expect(await allPages(server, borrower.key.api_key, `${loan.paths.transactions}?from=${today}&to=${today}`)).to.deep.equal(ledger)
        expect(await allPages(server, borrower.key.api_key, `${loan.paths.transactions}?from=${today}`)).to.deep.equal(ledger)
        expect(await allPages(server, borrower.key.api_key, `${loan.paths.transactions}?to=${today}&type=PAYMENT`)).to.deep.equal(ledger.slice(3))
        expect(await allPages(server, borrower.key.api_key, `${loan.paths.transactions}?from=${utcDayOffset(1)}`)).to.deep.equal([])
        expect(await allPages(server, borrower.key.api_key, `${loan.paths.transactions}?to=${utcDayOffset(-1)}`)).to.deep.equal([])
        const filteredPage = await get(`${loan.paths.transactions}?type=PAYMENT&limit=1`)
        expect(filteredPage.body.data).to.deep.equal([ledger[3]])
        const nextFiltered = await get(`${loan.paths.transactions}?type=PAYMENT&limit=1&cursor=${encodeURIComponent(filteredPage.body.next_cursor)}`)
        expect(nextFiltered.body).to.deep.equal({ data: [ledger[4]], next_cursor: null })
      })

      it('refuses a bad ?type, an impossible date, from after to and bad paging with 400 naming the parameter', async () => {
        for (const [query, param] of [
          ['?type=payment', 'type'],
          ['?type=REFUND', 'type'],
          ['?from=2026-02-30', 'from'],
          ['?to=2026-13-01', 'to'],
          ['?from=yesterday', 'from'],
          ['?limit=0', 'limit'],
          ['?limit=101', 'limit'],
          ['?cursor=bm90LWEtY3Vyc29y', 'cursor'],
          ['?status=POSTED', 'status'],
        ] as const) {
          expectInvalid(await get(`${loan.paths.transactions}${query}`), param, query)
        }
        const reversed = await get(`${loan.paths.transactions}?from=2026-05-02&to=2026-05-01`)
        expect(reversed.status, reversed.text).to.equal(400)
        expect(reversed.body.error).to.equal('invalid_request')
        expect(reversed.body.param).to.be.oneOf(['from', 'to'])
        for (const path of [loan.paths.balances, loan.paths.schedule, loan.paths.loans, loan.paths.collateral, loan.paths.documents, loan.paths.paymentMethods]) {
          expectInvalid(await get(`${path}?limit=0`), 'limit', `${path}?limit=0`)
          expectInvalid(await get(`${path}?cursor=%3F%3F`), 'cursor', `${path}?cursor=??`)
          expectInvalid(await get(`${path}?type=PAYMENT`), 'type', `${path}?type=PAYMENT`)
        }
      })
    })

    describe('response shapes', () => {
      /** Exactly the fields docs/servicing.md gives: no more, no fewer. */
      /** The documented fields, and the `livemode` every resource carries (docs/api.md "Live and test mode"). */
      const expectFields = (resource: keyof typeof DOCUMENTED_FIELDS, body: Record<string, unknown>): void => {
        expect(Object.keys(body).sort(), `${resource} fields`).to.deep.equal([...DOCUMENTED_FIELDS[resource], 'livemode'].sort())
        expect(body['livemode'], `${resource} livemode`).to.equal(true)
      }
      let loan: BookedLoan
      let payment: Reply
      before(async () => {
        loan = await book()
        const method = await addMethod(loan.paths)
        payment = await pay(loan.paths, { amount: 5_000, currency: 'USD', payment_method_id: method['payment_method_id'] })
        expect(payment.status, payment.text).to.equal(201)
        expect((await internal('POST', loan.paths.internalCollateral, { type: 'cash', description: 'Deposit', valuation: 100_000, currency: 'USD' })).status).to.equal(201)
      })

      it('a ledger transaction has exactly the documented fields; sequence numbers the ledger in order', async () => {
        const ledger = await ledgerOf(loan.paths)
        for (const t of ledger) expectFields('transaction', t)
        const sequences = ledger.map((t) => t['sequence'] as number)
        expect(sequences.every(Number.isSafeInteger)).to.equal(true)
        expect(sequences).to.deep.equal([...sequences].sort((a, b) => a - b))
        expect(new Set(sequences).size).to.equal(sequences.length)
      })
      it('a balance snapshot has exactly the documented fields', async () => {
        expectFields('balance', await latestOf(loan.paths))
        for (const b of await balancesOf(loan.paths)) expectFields('balance', b)
      })
      it('an installment has exactly the documented fields', async () => {
        for (const i of await scheduleOf(loan.paths)) expectFields('installment', i)
      })
      it('a payment has exactly the documented fields', async () => {
        expectFields('payment', payment.body)
        expect(Object.keys(payment.body.allocation).sort()).to.deep.equal(['fees', 'interest', 'past_due', 'principal'])
        expect(Object.keys(payment.body.allocation.past_due).sort()).to.deep.equal(['fees', 'interest', 'principal'])
      })
      it('a payment method, a collateral item and a document have exactly the documented fields', async () => {
        for (const m of await allPages(server, borrower.key.api_key, loan.paths.paymentMethods)) expectFields('paymentMethod', m)
        for (const c of await allPages(server, borrower.key.api_key, loan.paths.collateral)) expectFields('collateral', c)
        for (const d of await allPages(server, borrower.key.api_key, loan.paths.documents)) expectFields('document', d)
      })
    })

    describe('access', () => {
      let mine: BookedLoan
      let myMethod: Record<string, any>
      let theirMethod: Record<string, any>
      before(async () => {
        mine = await book()
        myMethod = await addMethod(mine.paths)
        theirMethod = await addMethod(theirs.paths, BANK_ACCOUNT, other.key)
      })

      /** Every partner servicing route of `paths`, with a body that would otherwise be accepted. */
      const routes = (paths: LoanPaths, methodId: string): [string, string, unknown][] => [
        ['GET', paths.loans, undefined],
        ['GET', paths.loan, undefined],
        ['GET', paths.balances, undefined],
        ['GET', paths.latestBalance, undefined],
        ['GET', paths.schedule, undefined],
        ['GET', paths.transactions, undefined],
        ['GET', paths.collateral, undefined],
        ['GET', paths.documents, undefined],
        ['GET', paths.paymentMethods, undefined],
        ['POST', paths.paymentMethods, BANK_ACCOUNT],
        ['PATCH', paths.paymentMethod(methodId), { nickname: 'Mine now' }],
        ['POST', paths.payments, { amount: 1_000, currency: 'USD', payment_method_id: methodId }],
      ]

      it("answers 403 party_mismatch on another party's paths, before anything is looked up, changing nothing", async () => {
        const before = { methods: await ok(theirs.paths.paymentMethods, other.key), ledger: await ok(theirs.paths.transactions, other.key) }
        for (const [method, path, json] of routes(theirs.paths, theirMethod['payment_method_id'])) {
          const reply = await call(method, path, json, { 'Idempotency-Key': `x-${randomUUID()}` })
          expect(reply.status, `${method} ${path}: ${reply.text}`).to.equal(403)
          expect(reply.body, `${method} ${path}`).to.deep.equal(PARTY_MISMATCH)
        }
        const unknownLoan = await get(`${theirs.paths.loans}/${randomUUID()}`)
        expect(unknownLoan.status).to.equal(403)
        expect(await ok(theirs.paths.paymentMethods, other.key)).to.deep.equal(before.methods)
        expect(await ok(theirs.paths.transactions, other.key)).to.deep.equal(before.ledger)
      })

      it("answers 404 not_found for another party's loan id under the key's own party, on every loan route, changing nothing", async () => {
        const before = { methods: await ok(theirs.paths.paymentMethods, other.key), ledger: await ok(theirs.paths.transactions, other.key) }
        const crossed = routes(loanPaths(borrower.partyId, theirs.loanId), myMethod['payment_method_id']).slice(1)
        for (const [method, path, json] of crossed) {
          const reply = await call(method, path, json, { 'Idempotency-Key': `x-${randomUUID()}` })
          expect(reply.status, `${method} ${path}: ${reply.text}`).to.equal(404)
          expect(reply.body, `${method} ${path}`).to.deep.equal(NO_SUCH_LOAN)
        }
        const patchTheirs = await call('PATCH', mine.paths.paymentMethod(theirMethod['payment_method_id']), { nickname: 'Mine now' })
        expect(patchTheirs.status).to.equal(404)
        expect(await ok(theirs.paths.paymentMethods, other.key)).to.deep.equal(before.methods)
        expect(await ok(theirs.paths.transactions, other.key)).to.deep.equal(before.ledger)
      })

      it('answers 404 for an unknown loan id and 400 for a malformed one', async () => {
        const unknown = loanPaths(borrower.partyId, randomUUID())
        for (const [method, path, json] of routes(unknown, myMethod['payment_method_id']).slice(1)) {
          const reply = await call(method, path, json, { 'Idempotency-Key': `x-${randomUUID()}` })
          expect(reply.status, `${method} ${path}: ${reply.text}`).to.equal(404)
          expect(reply.body).to.deep.equal(NO_SUCH_LOAN)
        }
        expectInvalid(await get(`${mine.paths.loans}/loan-1`), 'loanId')
        expectInvalid(await get(`${mine.paths.loans}/loan-1/balances/latest`), 'loanId')
      })

      it('answers 401 invalid_internal_token to partner keys and to no credential on every internal servicing route, changing nothing', async () => {
        const paid = await pay(mine.paths, { amount: 3_000, currency: 'USD', payment_method_id: myMethod['payment_method_id'] })
        expect(paid.status, paid.text).to.equal(201)
        const balances = await balancesOf(mine.paths)
        for (const headers of [bearer(borrower.key.api_key), { 'X-Api-Key': borrower.key.api_key }, bearer(borrower.partnerKey.api_key), {} as Record<string, string>]) {
          for (const [method, path, json] of [
            ['POST', '/internal/jobs/accrue-interest', undefined],
            ['POST', mine.paths.internalCollateral, { type: 'cash', description: 'x', valuation: 1, currency: 'USD' }],
            ['POST', mine.paths.internalDocuments, { type: 'other', storage_ref: 'x' }],
            ['POST', `/internal/payments/${paid.body.payment_id}/reverse`, {}],
          ] as const) {
            const reply = await request(server.url, path, { method, headers, ...(json === undefined ? {} : { json }) })
            expect(reply.status, `${method} ${path} ${JSON.stringify(headers)}`).to.equal(401)
            expect(reply.body).to.deep.equal(INTERNAL_REFUSAL)
          }
        }
        expect(await balancesOf(mine.paths)).to.deep.equal(balances)
        expect((await get(mine.paths.collateral)).body.data).to.deep.equal([])
        expect((await get(mine.paths.documents)).body.data).to.have.length(1)
      })

      it('refuses partner routes without a key (401 missing_api_key)', async () => {
        const reply = await request(server.url, mine.paths.loan)
        expect(reply.status).to.equal(401)
        expect(reply.body.error).to.equal('missing_api_key')
      })
    })
  })
}
