import { expect } from 'chai'
import type { Reply } from './client.js'

/** Assertions on error answers that many suites share (CONTRACT.md "Errors"). */

/** A 400 `invalid_request` naming `param`, with a detail for people and nothing else. */
export const expectInvalid = (reply: Reply, param: string, label = param): void => {
  expect(reply.status, `${label}: ${reply.text}`).to.equal(400)
  expect(Object.keys(reply.body).sort(), label).to.deep.equal(['detail', 'error', 'param'])
  expect(reply.body.error, label).to.equal('invalid_request')
  expect(reply.body.param, label).to.equal(param)
  expect(reply.body.detail, label).to.be.a('string').and.not.equal('')
}

/** A 409 `invalid_state` naming the current status, with a detail for people. */
export const expectInvalidState = (reply: Reply, status: string, label = status): void => {
  expect(reply.status, `${label}: ${reply.text}`).to.equal(409)
  expect(Object.keys(reply.body).sort(), label).to.deep.equal(['detail', 'error', 'status'])
  expect(reply.body.error, label).to.equal('invalid_state')
  expect(reply.body.status, label).to.equal(status)
  expect(reply.body.detail, label).to.be.a('string').and.not.equal('')
}
