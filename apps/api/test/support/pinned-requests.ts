import { expect } from 'chai'
import type { CodeReceiver } from './borrower.js'
import { request, type Reply } from './client.js'

/**
 * A request exactly as CONTRACT.md pins it. `keys` is written apart from `body` so that an
 * edit adding a field to a body (a `type` on an address, a `decided_by` on an approval) fails
 * loudly instead of quietly testing a richer request than partners are promised to get away with.
 */
export type PinnedCall = {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  /** The pinned body's keys, all of them and no others; `'no body'` when the request is pinned without one. */
  readonly keys: readonly string[] | 'no body'
  readonly body?: Readonly<Record<string, unknown>>
}

/** Sends `call` after checking its body holds exactly the pinned keys (or that there is none). */
export const sendPinned = async (baseUrl: string, call: PinnedCall): Promise<Reply> => {
  const label = `${call.method} ${call.path}`
  if (call.keys === 'no body') expect(call.body, `${label} is pinned without a body`).to.equal(undefined)
  else {
    expect(call.body, `${label} is pinned with a JSON object body`).to.be.an('object')
    expect(Object.keys(call.body ?? {}).sort(), `${label} body keys`).to.deep.equal([...call.keys].sort())
  }
  return request(baseUrl, call.path, { method: call.method, headers: { ...call.headers }, ...(call.body === undefined ? {} : { json: call.body }) })
}

/** `sendPinned`, failing with the reply's text unless it answers `status`; the reply's body. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests inspect arbitrary JSON
export const expectPinned = async (baseUrl: string, call: PinnedCall, status: number): Promise<any> => {
  const reply = await sendPinned(baseUrl, call)
  expect(reply.status, `${call.method} ${call.path}: ${reply.text}`).to.equal(status)
  return reply.body
}

/** The last verification message `receiver` got for `destination` of session `sessionId`. */
export const deliveredMessage = (receiver: CodeReceiver, sessionId: string, destination: string): Record<string, unknown> => {
  const sent = receiver.received.filter((m) => m['session_id'] === sessionId && m['destination'] === destination)
  const last = sent[sent.length - 1]
  if (last === undefined) throw new Error(`no code was delivered for ${destination} of session ${sessionId}`)
  return last
}

/** The code in the last verification message for `destination` of session `sessionId`. */
export const deliveredCode = (receiver: CodeReceiver, sessionId: string, destination: string): string =>
  deliveredMessage(receiver, sessionId, destination)['code'] as string
