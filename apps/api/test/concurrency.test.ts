import { randomUUID } from 'node:crypto'
import { testDatabases } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { Webhook } from 'standardwebhooks'
import { allPages, bookLoan, expectLedgerMatchesLatestBalance, type BookedLoan } from './support/booked-loan.js'
import { onboardBorrower, submittedSession, type Borrower, type CodeReceiver } from './support/borrower.js'
import { bearer, mintKey, request, type Reply } from './support/client.js'
import { startCodeReceiver } from './support/code-receiver.js'
import { INTERNAL_TOKEN, startTestServer, type TestServer } from './support/test-server.js'
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js'

const BANK_ACCOUNT = { type: 'bank_account', account_holder_name: 'Acme Widgets LLC', routing_number: '011000015', account_number: '000123456789' }
const IN_USE = { error: 'idempotency_key_in_use', detail: 'A request with this Idempotency-Key is still being processed; retry shortly.' }
const PARALLEL = 50
const APPROVALS = 20

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** What each payment paid, bucket by bucket (docs/servicing.md "Payments"). */
const allocated = (payment: Record<string, any>): number => {
  const { past_due: pastDue, fees, interest, principal } = payment['allocation']
  return pastDue.fees + pastDue.interest + pastDue.principal + fees + interest + principal
}

/**
 * Two instances of the API on one database (the way it is deployed), both running the webhook
 * worker, with requests spread over both. That a key revoked on one is refused on the other
 * within a second is proven by key-cache.test.ts.
 */
for (const database of testDatabases()) {
  describe(`Concurrency: two API instances on ${database.name}`, function () {
    this.timeout(60_000)
    let a: TestServer
    let b: TestServer
    let codes: CodeReceiver
    let borrower: Borrower
    /** The instance for the `n`-th of a batch of requests: every other one. */
    const instance = (n: number): TestServer => (n % 2 === 0 ? a : b)

    before(async () => {
      codes = await startCodeReceiver()
      const config = { verificationDeliveryUrl: codes.url, runJobs: true, webhookAllowHttp: true, webhookAllowPrivateNetworks: true }
      a = await startTestServer(database, config)
      b = await startTestServer(database, config)
      borrower = await onboardBorrower(a, codes)
    })
    after(async () => {
      await a?.stop()
      await b?.stop()
      await codes?.close()
    })

    const asBorrower = (): Record<string, string> => bearer(borrower.key.api_key)
    const loanWithMethod = async (): Promise<{ readonly loan: BookedLoan; readonly methodId: string; readonly payoff: number }> => {
      const loan = await bookLoan(a, borrower)
      const method = await request(a.url, loan.paths.paymentMethods, { method: 'POST', headers: asBorrower(), json: BANK_ACCOUNT })
      expect(method.status, method.text).to.equal(201)
      const latest = await request(a.url, loan.paths.latestBalance, { headers: asBorrower() })
      return { loan, methodId: method.body.payment_method_id as string, payoff: latest.body.payoff_amount as number }
    }
    const pay = (server: TestServer, loan: BookedLoan, key: string, json: Record<string, unknown>): Promise<Reply> =>
      request(server.url, loan.paths.payments, { method: 'POST', headers: { ...asBorrower(), 'Idempotency-Key': key }, json })
    const paymentEntries = async (loan: BookedLoan): Promise<string[]> =>
      (await allPages(a, borrower.key.api_key, loan.paths.transactions)).filter((t) => t['type'] === 'PAYMENT').map((t) => t['payment_id'] as string)

    it(`creates one payment for ${PARALLEL} parallel identical requests with one Idempotency-Key; the others replay it or answer 409 idempotency_key_in_use`, async () => {
      const { loan, methodId, payoff } = await loanWithMethod()
      const key = `same-${randomUUID()}`
      const body = { amount: 25_000, currency: 'USD', payment_method_id: methodId }

      const replies = await Promise.all(Array.from({ length: PARALLEL }, (_, n) => pay(instance(n), loan, key, body)))

      const created = replies.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null)
      expect(created, 'exactly one request ran').to.have.length(1)
      const payment = created[0]!.body
      expect({ status: payment.status, amount: payment.amount }).to.deep.equal({ status: 'SUCCEEDED', amount: 25_000 })
      for (const reply of replies) {
        if (reply === created[0]) continue
        if (reply.status === 201) {
          expect(reply.headers.get('idempotent-replayed')).to.equal('true')
          expect(reply.body).to.deep.equal(payment)
        } else expect({ status: reply.status, body: reply.body }).to.deep.equal({ status: 409, body: IN_USE })
      }
      const replay = await pay(b, loan, key, body)
      expect({ status: replay.status, replayed: replay.headers.get('idempotent-replayed'), body: replay.body }).to.deep.equal({
        status: 201,
        replayed: 'true',
        body: payment,
      })

      expect(await paymentEntries(loan)).to.deep.equal([payment.payment_id])
      const latest = await expectLedgerMatchesLatestBalance(a, borrower.key.api_key, loan.paths, 'after one key sent 50 times')
      expect(latest['payoff_amount']).to.equal(payoff - 25_000)
    })

    it('answers 200 to each of ten identical applicant-profile PUTs racing on two instances, and keeps one profile (issue 35)', async () => {
      const partner = await mintKey(a.url)
      const created = await request(a.url, '/public/onboarding-sessions', { method: 'POST', headers: bearer(partner.api_key), json: { country_of_incorporation: 'US', locale: 'en-US' } })
      const path = `/public/onboarding-sessions/${created.body.session_id as string}/applicant-profile`
      const profile = { legal_name: 'Acme Widgets LLC', trading_name: 'Acme', tax_id: '12-3456789' }
      const puts = await Promise.all(Array.from({ length: 10 }, (_, n) => request(instance(n).url, path, { method: 'PUT', headers: bearer(partner.api_key), json: profile })))
      expect(puts.map((r) => r.status), puts.map((r) => r.text).join('\n')).to.deep.equal(Array.from({ length: 10 }, () => 200))
      expect(new Set(puts.map((r) => JSON.stringify(r.body))).size).to.equal(1)
      // Sent again later, the same content changes nothing, not even updated_at.
      const again = await request(b.url, path, { method: 'PUT', headers: bearer(partner.api_key), json: profile })
      expect(again.status).to.equal(200)
      expect(again.body).to.deep.equal(puts[0]!.body)
    })

    it('approves a session once when six approvals race on two instances: one 200, the others 409, one party (issue 35)', async () => {
      const sessionId = await submittedSession(a, codes, await mintKey(a.url))
      const approvals = await Promise.all(
        Array.from({ length: 6 }, (_, n) =>
          request(instance(n).url, `/internal/onboarding-sessions/${sessionId}/approve`, { method: 'POST', headers: bearer(INTERNAL_TOKEN), json: {} }),
        ),
      )
      const statuses = approvals.map((r) => r.status).sort()
      expect(statuses, approvals.map((r) => r.text).join('\n')).to.deep.equal([200, 409, 409, 409, 409, 409])
      for (const refused of approvals.filter((r) => r.status === 409)) expect(refused.body.error).to.be.oneOf(['conflict', 'invalid_state'])
      const partyId = approvals.find((r) => r.status === 200)!.body.party.party_id as string
      // Every approved session of the shared database, however many other suites approved.
      const approved = await allPages(a, INTERNAL_TOKEN, '/internal/onboarding-sessions?status=APPROVED')
      expect(approved.filter((s) => s.session_id === sessionId).map((s) => s.party_id)).to.deep.equal([partyId])
    })

    it(`serialises ${PARALLEL} parallel distinct payments on one loan: each paid once, the ledger, balance and schedule agree`, async () => {
      const { loan, methodId, payoff } = await loanWithMethod()
      // Amounts ending in 00: the sandbox settles every one (…13 and …14 fail).
      const amounts = Array.from({ length: PARALLEL }, (_, n) => 1_000 + n * 100)
      const total = amounts.reduce((sum, amount) => sum + amount, 0)

      const replies = await Promise.all(
        amounts.map((amount, n) => pay(instance(n), loan, `distinct-${n}-${randomUUID()}`, { amount, currency: 'USD', payment_method_id: methodId })),
      )

      for (const [n, reply] of replies.entries()) {
        expect(reply.status, reply.text).to.equal(201)
        expect({ status: reply.body.status, amount: reply.body.amount, allocated: allocated(reply.body) }).to.deep.equal({
          status: 'SUCCEEDED',
          amount: amounts[n],
          allocated: amounts[n],
        })
      }
      const ids = replies.map((r) => r.body.payment_id as string)
      expect(new Set(ids).size).to.equal(PARALLEL)
      expect((await paymentEntries(loan)).sort(), 'one PAYMENT entry per payment').to.deep.equal([...ids].sort())
      // A snapshot per change, none lost: booking plus one per payment.
      expect(await allPages(a, borrower.key.api_key, loan.paths.balances)).to.have.length(1 + PARALLEL)

      const latest = await expectLedgerMatchesLatestBalance(a, borrower.key.api_key, loan.paths, `after ${PARALLEL} parallel payments`)
      expect(latest['payoff_amount']).to.equal(payoff - total)
      const schedule = await allPages(a, borrower.key.api_key, loan.paths.schedule)
      expect(schedule.reduce((sum, i) => sum + (i['total_paid'] as number), 0), 'the schedule holds every payment').to.equal(total)
      for (const installment of schedule) {
        for (const bucket of ['principal', 'interest', 'fees']) {
          expect(installment[`${bucket}_paid`] as number, `installment ${installment['installment_number']} ${bucket}`).to.be.within(0, installment[`${bucket}_due`] as number)
        }
      }
    })

    describe('with the webhook worker on both instances', () => {
      let hooks: WebhookReceiver
      before(async () => {
        hooks = await startWebhookReceiver()
      })
      after(async () => {
        await hooks?.close()
      })

      it(`delivers each of ${APPROVALS} party.ready events exactly once`, async () => {
        // Sessions are created and approved on either instance; party.ready waits for a webhook.
        const borrowers = await Promise.all(Array.from({ length: APPROVALS }, (_, n) => onboardBorrower(instance(n), codes)))
        const registrations = await Promise.all(
          borrowers.map((owner, n) =>
            request(instance(n + 1).url, `/public/onboarding-sessions/${owner.sessionId}/webhook`, {
              method: 'PUT',
              headers: bearer(owner.partnerKey.api_key),
              json: { webhook_url: hooks.url },
            }),
          ),
        )
        for (const r of registrations) expect(r.status, r.text).to.equal(200)

        await hooks.arrival(APPROVALS)
        // Every event delivered and recorded: a duplicate claim would have sent by now, and records
        // a second attempt.
        const logs = await Promise.all(
          borrowers.map(async (owner) => {
            const path = `/public/onboarding-sessions/${owner.sessionId}/webhook/deliveries`
            const until = Date.now() + 10_000
            for (;;) {
              const log = await request(a.url, path, { headers: bearer(owner.partnerKey.api_key) })
              expect(log.status, log.text).to.equal(200)
              if (log.body.data[0]?.status === 'delivered' || Date.now() > until) return log.body.data
              await sleep(50)
            }
          }),
        )
        await sleep(500)

        const byId = new Map<string, number>()
        for (const delivery of hooks.received) {
          const id = delivery.headers['webhook-id'] as string
          byId.set(id, (byId.get(id) ?? 0) + 1)
        }
        expect([...byId.values()], 'deliveries per webhook-id').to.deep.equal(Array.from({ length: APPROVALS }, () => 1))
        for (const [n, owner] of borrowers.entries()) {
          const log = logs[n] as { event_id: string; status: string; attempt_log: { status_code: number }[] }[]
          expect(log.map((d) => [d.status, d.attempt_log.map((attempt) => attempt.status_code)]), `deliveries of session ${n}`).to.deep.equal([['delivered', [204]]])
          const delivery = hooks.received.find((d) => d.headers['webhook-id'] === log[0]!.event_id)
          expect(delivery, `the event of session ${n} reached the receiver`).not.to.equal(undefined)
          const event = new Webhook(registrations[n]!.body.webhook_secret as string).verify(delivery!.body, delivery!.headers as Record<string, string>) as {
            data: { party_id: string }
          }
          expect(event.data.party_id).to.equal(owner.partyId)
        }
      })
    })
  })
}
