import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import type { BookedLoan } from './booked-loan.js'
import type { Borrower } from './borrower.js'
import { bearer, request, type Reply, type RequestOptions } from './client.js'
import type { TestServer } from './test-server.js'

/** How a test sends its requests (one that records every reply, or `request` itself). */
export type Send = (on: TestServer, path: string, options?: RequestOptions) => Promise<Reply>

const plainSend: Send = (on, path, options) => request(on.url, path, options)

/** A routing number that passes the ABA check: the Federal Reserve Bank of Boston's. */
export const ROUTING_NUMBER = '011000015'

/** Adds a bank account of `accountNumber` to the borrower's loan: its payment method id. */
export const addBankAccount = async (server: TestServer, borrower: Borrower, loan: BookedLoan, accountNumber: string, send: Send = plainSend): Promise<string> => {
  const method = await send(server, loan.paths.paymentMethods, {
    method: 'POST',
    headers: bearer(borrower.key.api_key),
    json: { type: 'bank_account', account_holder_name: 'Acme Widgets LLC', routing_number: ROUTING_NUMBER, account_number: accountNumber },
  })
  expect(method.status, method.text).to.equal(201)
  return method.body.payment_method_id as string
}

/** Asks for a payment of `amount` from the method: the reply, whatever it is. */
export const payFrom = (server: TestServer, borrower: Borrower, loan: BookedLoan, methodId: string, amount: number, send: Send = plainSend): Promise<Reply> =>
  send(server, loan.paths.payments, {
    method: 'POST',
    headers: { ...bearer(borrower.key.api_key), 'Idempotency-Key': `debit-${randomUUID()}` },
    json: { amount, currency: 'USD', payment_method_id: methodId },
  })
