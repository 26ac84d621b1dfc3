import { nameOf, type DocumentRequest, type Operation } from './document-requests.js'
import { prismError, violationsIn, type Exchange, type Violation } from './exchange-recorder.js'
import type { Finding, Severity } from './findings.js'
import type { BodyCheck } from './response-schemas.js'

/** Turns what Prism says into findings: the mock's answers, and the exchanges through its proxy. */

const severityOf = (violation: Violation): Severity => (violation.severity.toLowerCase() === 'warning' ? 'warning' : violation.severity.toLowerCase() === 'error' ? 'error' : 'info')

const violationFinding = (where: string, violation: Violation): Finding => ({
  rule: `prism ${violation.code}`,
  severity: severityOf(violation),
  where,
  message: `${violation.location.join('.')}: ${violation.message}`,
})

/**
 * Sends `request` to Prism's mock and checks the answer: a 2xx, no violation reported in
 * `sl-violations`, and a body valid against the operation's schema for that status.
 */
export const checkMockAnswer = async (mockUrl: string, op: Operation, request: DocumentRequest, checkBody: (op: Operation, status: number, body: unknown) => BodyCheck): Promise<Finding[]> => {
  const where = nameOf(op)
  const reply = await fetch(`${mockUrl}${request.target}`, {
    method: request.method,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body }),
    signal: AbortSignal.timeout(15_000),
  })
  const text = await reply.text()
  const findings = violationsIn(reply.headers.get('sl-violations')).map((v) => violationFinding(where, v))
  if (reply.status < 200 || reply.status > 299) return [...findings, { rule: 'mock answered no 2xx', severity: 'error', where, message: `Prism answered ${reply.status}: ${prismError(text) ?? text.slice(0, 300)}` }]
  let body: unknown
  try {
    body = text === '' ? undefined : JSON.parse(text)
  } catch {
    return [...findings, { rule: 'mock body not JSON', severity: 'error', where, message: `Prism answered ${reply.status} with ${text.slice(0, 200)}` }]
  }
  const check = checkBody(op, reply.status, body)
  return check.ok ? findings : [...findings, ...check.problems.map((problem) => ({ rule: 'mock body off its schema', severity: 'error' as const, where, message: `${reply.status} body: ${problem}` }))]
}

/**
 * Every violation Prism's validating proxy reported on the exchanges: the `sl-violations` header
 * of each, else (an answer Prism made itself without the header) its error.
 */
export const proxyFindings = (exchanges: readonly Exchange[]): Finding[] =>
  exchanges.flatMap((e) => {
    const where = `${e.method} ${e.path} → ${e.status}`
    if (e.violations.length > 0) return e.violations.map((v) => violationFinding(where, v))
    return e.prismError === undefined ? [] : [{ rule: 'prism error answer', severity: 'error' as const, where, message: e.prismError }]
  })
