import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { alreadyExists } from '../domain/foundations/errors.js'
import type { OperatorId } from '../domain/foundations/ids.js'
import { sessionLive, type Operator } from '../domain/operators/operator.js'
import type { OperatorCredentials, OperatorRepository, StoredOperatorSession } from '../ports/operator-repository.js'
import { inMemoryAuditLog, type InMemoryAuditLog } from './in-memory-audit-log.js'

/** With the sessions it holds. */
export type InMemoryOperatorRepository = OperatorRepository & {
  /** Every session stored, live or not. */
  readonly sessions: () => readonly StoredOperatorSession[]
}

/** The PostgreSQL repository's semantics; audited writes append to `audit` (the live world's log). */
export const inMemoryOperatorRepository = (audit: InMemoryAuditLog = inMemoryAuditLog()): InMemoryOperatorRepository => {
  const operators = new Map<OperatorId, OperatorCredentials>()
  const sessions = new Map<string, StoredOperatorSession>()
  const byEmail = (email: string): OperatorCredentials | undefined => [...operators.values()].find((c) => c.operator.email === email)
  const revokeLive = (id: OperatorId, at: Date): number => {
    let revoked = 0
    for (const session of sessions.values())
      if (session.operatorId === id && sessionLive(session, at)) {
        sessions.set(session.id, { ...session, revokedAt: at })
        revoked += 1
      }
    return revoked
  }
  return {
    sessions: () => [...sessions.values()],
    add: (credentials, event) =>
      byEmail(credentials.operator.email) !== undefined
        ? TE.left(alreadyExists('operator'))
        : TE.fromIO(() => {
            operators.set(credentials.operator.id, credentials)
            audit.append(event)
            return credentials.operator
          }),
    credentialsOf: (email) => TE.fromIO(() => O.fromNullable(byEmail(email))),
    findByEmail: (email) => TE.fromIO(() => O.fromNullable(byEmail(email)?.operator)),
    list: () => TE.fromIO(() => [...operators.values()].map((c) => c.operator).sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0))),
    disable: (id, at, event) =>
      TE.fromIO(() => {
        const found = operators.get(id)
        if (found === undefined) return O.none
        if (found.operator.disabledAt !== null) return O.some(found.operator)
        const disabled: Operator = { ...found.operator, disabledAt: at }
        operators.set(id, { ...found, operator: disabled })
        audit.append(event(disabled, revokeLive(id, at)))
        return O.some(disabled)
      }),
    change: (id, change, at, event) =>
      TE.fromIO(() => {
        const found = operators.get(id)
        if (found === undefined) return O.none
        const before = found.operator
        if ('role' in change || 'enabled' in change) {
          const after: Operator = 'role' in change ? { ...before, role: change.role } : { ...before, disabledAt: null }
          if (after.role !== before.role || after.disabledAt !== before.disabledAt) {
            operators.set(id, { ...found, operator: after })
            audit.append(event(before, after, 0))
          }
          return O.some({ operator: after, sessionsRevoked: 0 })
        }
        operators.set(id, { ...found, passwordHash: change.passwordHash })
        const sessionsRevoked = revokeLive(id, at)
        audit.append(event(before, before, sessionsRevoked))
        return O.some({ operator: before, sessionsRevoked })
      }),
    revokeSessions: (id, at, event) =>
      TE.fromIO(() => {
        const revoked = revokeLive(id, at)
        audit.append(event(revoked))
        return revoked
      }),
    openSession: (session, event) =>
      TE.fromIO(() => {
        if (operators.get(session.operatorId)?.operator.disabledAt !== null) return false
        sessions.set(session.id, session)
        audit.append(event)
        return true
      }),
    liveSession: (tokenHash, at) =>
      TE.fromIO(() => {
        const session = [...sessions.values()].find((s) => s.tokenHash === tokenHash)
        const operator = session === undefined ? undefined : operators.get(session.operatorId)?.operator
        if (session === undefined || operator === undefined || !sessionLive(session, at) || operator.disabledAt !== null) return O.none
        const { tokenHash: _hash, ...stored } = session
        return O.some({ session: stored, operator })
      }),
    revokeSession: (id, at, event) =>
      TE.fromIO(() => {
        const session = sessions.get(id)
        if (session === undefined || session.revokedAt !== null) return
        sessions.set(id, { ...session, revokedAt: at })
        audit.append(event)
      }),
  }
}
