import { randomBytes } from 'node:crypto'
import { postgresCoreDeps } from '@lendgate/adapters'
import { testDatabases } from '@lendgate/adapters/testing'
import { verificationDeliveryFailed } from '@lendgate/core'
import { inMemoryCoreDeps } from '@lendgate/core/testing'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { codeInbox } from '../src/code-inbox.js'
import { checkBalance, EXPECTED_PRINCIPAL_OUTSTANDING, LOAN_AMOUNT, PAYMENT_AMOUNT, runJourney, type JourneyFailure, type JourneyReport } from '../src/journey.js'

/** What every run must end with, whatever its ids and dates: the payment all to principal, nothing else owed. */
const EXPECTED = {
  payment_status: 'SUCCEEDED',
  allocation: { past_due: { fees: 0, interest: 0, principal: 0 }, fees: 0, interest: 0, principal: PAYMENT_AMOUNT },
  principal_outstanding: LOAN_AMOUNT - PAYMENT_AMOUNT,
  interest_outstanding: 0,
  fees_outstanding: 0,
  payoff_amount: LOAN_AMOUNT - PAYMENT_AMOUNT,
  past_due_amount: 0,
}

const outcomeOf = (result: E.Either<JourneyFailure, JourneyReport>) =>
  E.map((report: JourneyReport) => ({
    payment_status: report.payment.status,
    allocation: report.payment.allocation,
    principal_outstanding: report.balance.principal_outstanding,
    interest_outstanding: report.balance.interest_outstanding,
    fees_outstanding: report.balance.fees_outstanding,
    payoff_amount: report.balance.payoff_amount,
    past_due_amount: report.balance.past_due_amount,
  }))(result)

describe('the embedded-service journey', () => {
  describe('on inMemoryCoreDeps', () => {
    it('books the loan, takes the payment and ends with the balance it expects', async () => {
      const inbox = codeInbox()
      const result = await runJourney({ ...inMemoryCoreDeps(), sender: inbox }, inbox)()

      expect(outcomeOf(result)).to.deep.equal(E.right(EXPECTED))
    })

    describe('when a use case returns a Left', () => {
      it('stops at that step and returns the Left, named by the step', async () => {
        const deps = inMemoryCoreDeps()
        deps.sender.failNext()
        const result = await runJourney(deps, codeInbox())()

        expect(result).to.deep.equal(E.left({ step: 'submit the phone', error: verificationDeliveryFailed('recording sender told to fail') }))
      })
    })

    describe('when no code reaches the service', () => {
      it('stops where it reads the code', async () => {
        const result = await runJourney(inMemoryCoreDeps(), codeInbox())()

        expect(result).to.deep.equal(E.left({ step: 'read the phone code', error: 'no code reached the phone' }))
      })
    })
  })

  for (const database of testDatabases()) {
    describe(`on postgresCoreDeps over ${database.name}`, () => {
      it('books the loan, takes the payment and ends with the balance it expects', async () => {
        const inbox = codeInbox()
        const deps = postgresCoreDeps(await database.open(), { webhookSecretKey: randomBytes(32), sender: inbox })
        const result = await runJourney(deps, inbox)()
        await deps.usage.flush()

        expect(outcomeOf(result)).to.deep.equal(E.right(EXPECTED))
      })
    })
  }

  describe('checkBalance', () => {
    it('refuses a report whose principal is not the expected one, saying both', async () => {
      const inbox = codeInbox()
      const result = await runJourney({ ...inMemoryCoreDeps(), sender: inbox }, inbox)()
      if (E.isLeft(result)) throw new Error(`the journey failed at ${result.left.step}`)
      const off = { ...result.right, balance: { ...result.right.balance, principal_outstanding: EXPECTED_PRINCIPAL_OUTSTANDING + 1 } }

      expect(checkBalance(off)).to.deep.equal(
        E.left({ step: 'check the balance', error: { expected_principal_outstanding: EXPECTED_PRINCIPAL_OUTSTANDING, principal_outstanding: EXPECTED_PRINCIPAL_OUTSTANDING + 1 } }),
      )
    })
  })
})
