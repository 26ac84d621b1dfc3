import { randomUUID } from 'node:crypto'
import { addOperator, type OperatorRole } from '@lendgate/core'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { request, type Reply } from './client.js'
import type { TestServer } from './test-server.js'

/** Named operators of the console over HTTP (decision 149), as a browser holds their sessions. */

export const COOKIE = '__Host-lendgate_operator'
export const PASSWORD = 'a long and careful passphrase'

/** The session cookie an answer set, as a request sends it back. */
export const sessionCookieOf = (reply: Reply): string => {
  const set = reply.headers.getSetCookie().find((cookie) => cookie.startsWith(`${COOKIE}=`))
  if (set === undefined) throw new Error(`no session cookie in ${reply.status} ${reply.text}`)
  return set.split(';')[0] ?? ''
}

/** A signed-in operator: its cookie and CSRF token, as a browser holds them. */
export type Signed = { readonly cookie: string; readonly csrf: string; readonly operatorId: string; readonly body: Record<string, unknown> }

export const newEmail = (role: string): string => `${role}.${randomUUID()}@Lender.Example`

/** Adds an operator as `lendgate operators add` does. */
export const added = async (server: TestServer, role: OperatorRole, password = PASSWORD): Promise<{ readonly email: string; readonly id: string }> => {
  const email = newEmail(role)
  const result = await addOperator(server.deps)({ email, role, password })()
  if (E.isLeft(result)) throw new Error(`addOperator: ${JSON.stringify(result.left)}`)
  return { email, id: result.right.operator.id }
}

export const signIn = (server: TestServer, email: string, password: string, headers: Record<string, string> = {}): Promise<Reply> =>
  request(server.url, '/internal/operator-sessions', { method: 'POST', headers, json: { email, password } })

export const signedIn = async (server: TestServer, role: OperatorRole): Promise<Signed> => {
  const { email } = await added(server, role)
  const reply = await signIn(server, email.toUpperCase(), PASSWORD)
  expect(reply.status, reply.text).to.equal(201)
  return { cookie: sessionCookieOf(reply), csrf: reply.body.csrf_token as string, operatorId: reply.body.operator.operator_id as string, body: reply.body }
}

/** A request of a console session: its cookie, and its CSRF token unless `csrf` is false. */
export const asOperator = (server: TestServer, signed: Signed, method: string, path: string, json?: unknown, csrf = true): Promise<Reply> =>
  request(server.url, path, {
    method,
    headers: { Cookie: signed.cookie, ...(csrf ? { 'X-CSRF-Token': signed.csrf } : {}) },
    ...(json === undefined ? {} : { json }),
  })
