import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import {
  OPERATOR_CONTEXT,
  operatorAddedEvent,
  operatorChangedEvent,
  operatorDisabledEvent,
  operatorSessionsRevokedEvent,
  operatorSignedInEvent,
  operatorSignedOutEvent,
  type AuditEvent,
} from '../../domain/audit/audit-event.js'
import { alreadyExists } from '../../domain/foundations/errors.js'
import { newId, type OperatorId, type OperatorSessionId } from '../../domain/foundations/ids.js'
import type { Operator, OperatorSession } from '../../domain/operators/operator.js'
import type { OperatorCredentials, OperatorRepository, StoredOperatorSession } from '../../ports/operator-repository.js'
import { at, freshId, right, type Implementation } from './run.js'

const FRESH = { next: freshId }

/** A unique, lower-case address: tests share one database. */
const freshEmail = (): string => `${freshId()}@example.com`

const operator = (overrides: Partial<Operator> = {}): Operator => ({
  id: newId<OperatorId>(FRESH),
  email: freshEmail(),
  role: 'credit',
  createdAt: at('2026-03-01T12:00:00.123Z'),
  disabledAt: null,
  ...overrides,
})

const credentials = (op: Operator): OperatorCredentials => ({ operator: op, passwordHash: `hash:${freshId()}` })

/** A session of `operatorId` from 12:00:00.123 to 20:00:00.456 on 2026-03-02, unless told otherwise. */
const session = (operatorId: OperatorId, overrides: Partial<StoredOperatorSession> = {}): StoredOperatorSession => ({
  id: newId<OperatorSessionId>(FRESH),
  operatorId,
  createdAt: at('2026-03-02T12:00:00.123Z'),
  expiresAt: at('2026-03-02T20:00:00.456Z'),
  revokedAt: null,
  tokenHash: `token-hash:${freshId()}`,
  ...overrides,
})

/** A session as `liveSession` returns it: without its token's hash. */
const withoutHash = ({ tokenHash: _hash, ...stored }: StoredOperatorSession): OperatorSession => stored

/** Inside the default session's life, and after it. */
const DURING = at('2026-03-02T13:00:00.000Z')
const LATER = at('2026-03-02T14:00:00.000Z')

/** The audit events of the writes, as the use cases make them. */
const added = (op: Operator): AuditEvent => operatorAddedEvent(freshId(), OPERATOR_CONTEXT, op)
const signedIn = (s: StoredOperatorSession, op: Operator): AuditEvent => operatorSignedInEvent(freshId(), null, op, withoutHash(s))

/** The event of signing out of `s`. */
const signedOut = (s: StoredOperatorSession, when: Date): AuditEvent => operatorSignedOutEvent(freshId(), null, operator({ id: s.operatorId }), withoutHash(s), when)

/** An audit callback of `change` that records what it was given. */
const recordingChange = (when: Date) => {
  const calls: Array<{ readonly before: Operator; readonly after: Operator; readonly sessions: number }> = []
  const audit = (before: Operator, after: Operator, sessions: number): AuditEvent => {
    calls.push({ before, after, sessions })
    return operatorChangedEvent(freshId(), OPERATOR_CONTEXT, before, after, sessions, when)
  }
  return { calls, audit }
}

/** An audit callback that records what it was given, one fresh event per call. */
const recordingDisable = (when: Date) => {
  const calls: Array<{ readonly disabled: Operator; readonly sessions: number }> = []
  const audit = (disabled: Operator, sessions: number): AuditEvent => {
    calls.push({ disabled, sessions })
    return operatorDisabledEvent(freshId(), OPERATOR_CONTEXT, disabled, sessions, when)
  }
  return { calls, audit }
}

const recordingRevoke = (op: Operator, when: Date) => {
  const calls: number[] = []
  const audit = (sessions: number): AuditEvent => {
    calls.push(sessions)
    return operatorSessionsRevokedEvent(freshId(), OPERATOR_CONTEXT, op, sessions, when)
  }
  return { calls, audit }
}

/**
 * The behaviour every `OperatorRepository` must have. A database may hold other tests' operators:
 * each test uses fresh e-mail addresses and checks lists by containment and relative order.
 */
export const operatorRepositoryContract = (impl: Implementation<OperatorRepository>): void => {
  describe(`OperatorRepository contract: ${impl.name}`, () => {
    let repo: OperatorRepository
    before(async () => {
      repo = await impl.make()
    })

    /** Adds an operator and returns it. */
    const stored = async (overrides: Partial<Operator> = {}): Promise<Operator> => {
      const op = operator(overrides)
      return right(repo.add(credentials(op), added(op)))
    }

    /** Opens a session and returns it. */
    const opened = async (op: Operator, overrides: Partial<StoredOperatorSession> = {}): Promise<StoredOperatorSession> => {
      const s = session(op.id, overrides)
      expect(await right(repo.openSession(s, signedIn(s, op)))).to.equal(true)
      return s
    }

    describe('add, credentialsOf and findByEmail', () => {
      it('adds an operator and reads it back by e-mail field for field, with its password hash', async () => {
        const op = operator()
        const creds = credentials(op)
        expect(await right(repo.add(creds, added(op)))).to.deep.equal(op)
        expect(await right(repo.credentialsOf(op.email))).to.deep.equal(O.some(creds))
        expect(await right(repo.findByEmail(op.email))).to.deep.equal(O.some(op))
      })

      it('stores every role', async () => {
        for (const role of ['reviewer', 'credit', 'servicing', 'admin'] as const) {
          const op = await stored({ role })
          expect(await right(repo.findByEmail(op.email))).to.deep.equal(O.some(op))
        }
      })

      it('returns none for an e-mail no operator has', async () => {
        expect(await right(repo.credentialsOf(freshEmail()))).to.deep.equal(O.none)
        expect(await right(repo.findByEmail(freshEmail()))).to.deep.equal(O.none)
      })

      it('reads a disabled operator by e-mail too, with its disabledAt to the millisecond', async () => {
        const op = operator()
        const creds = credentials(op)
        await right(repo.add(creds, added(op)))
        const when = at('2026-03-03T09:30:00.789Z')
        await right(repo.disable(op.id, when, recordingDisable(when).audit))
        const disabled = { ...op, disabledAt: when }
        expect(await right(repo.credentialsOf(op.email))).to.deep.equal(O.some({ ...creds, operator: disabled }))
        expect(await right(repo.findByEmail(op.email))).to.deep.equal(O.some(disabled))
      })

      it('refuses a second operator with a taken e-mail as AlreadyExists and changes nothing', async () => {
        const first = operator({ role: 'reviewer' })
        const firstCredentials = credentials(first)
        await right(repo.add(firstCredentials, added(first)))
        const second = operator({ email: first.email, role: 'admin' })
        expect(await repo.add(credentials(second), added(second))()).to.deep.equal(E.left(alreadyExists('operator')))
        expect(await right(repo.credentialsOf(first.email))).to.deep.equal(O.some(firstCredentials))
        expect((await right(repo.list())).filter((o) => o.id === second.id)).to.deep.equal([])
      })

      it("refuses a disabled operator's e-mail as AlreadyExists and changes nothing", async () => {
        const first = operator()
        const firstCredentials = credentials(first)
        await right(repo.add(firstCredentials, added(first)))
        const when = at('2026-03-03T09:30:00.789Z')
        await right(repo.disable(first.id, when, recordingDisable(when).audit))
        const second = operator({ email: first.email })
        expect(await repo.add(credentials(second), added(second))()).to.deep.equal(E.left(alreadyExists('operator')))
        expect(await right(repo.credentialsOf(first.email))).to.deep.equal(O.some({ ...firstCredentials, operator: { ...first, disabledAt: when } }))
        expect((await right(repo.list())).filter((o) => o.id === second.id)).to.deep.equal([])
      })
    })

    describe('list', () => {
      it('lists every operator, enabled or not, ordered by e-mail', async () => {
        const prefix = freshId()
        const b = await stored({ email: `${prefix}-b@example.com`, role: 'servicing' })
        const a = await stored({ email: `${prefix}-a@example.com`, role: 'admin' })
        const c = await stored({ email: `${prefix}-c@example.com`, role: 'reviewer' })
        const when = at('2026-03-03T09:30:00.789Z')
        await right(repo.disable(b.id, when, recordingDisable(when).audit))
        const ours = (await right(repo.list())).filter((o) => o.email.startsWith(prefix))
        expect(ours).to.deep.equal([a, { ...b, disabledAt: when }, c])
      })
    })

    describe('disable', () => {
      it('disables an operator at the given time, revokes its live sessions and audits how many ended', async () => {
        const op = await stored()
        const expiresLater = at('2026-03-02T23:59:59.999Z')
        await opened(op)
        await opened(op, { expiresAt: expiresLater })
        await opened(op, { expiresAt: DURING })
        const revokedBefore = await opened(op)
        await right(repo.revokeSession(revokedBefore.id, DURING, signedOut(revokedBefore, DURING)))
        const { calls, audit } = recordingDisable(LATER)
        const disabled = { ...op, disabledAt: LATER }
        expect(await right(repo.disable(op.id, LATER, audit))).to.deep.equal(O.some(disabled))
        expect(calls).to.deep.equal([{ disabled, sessions: 2 }])
        expect(await right(repo.findByEmail(op.email))).to.deep.equal(O.some(disabled))
      })

      it("leaves other operators' sessions live", async () => {
        const op = await stored()
        const other = await stored()
        await opened(op)
        const others = await opened(other)
        await right(repo.disable(op.id, LATER, recordingDisable(LATER).audit))
        expect(await right(repo.liveSession(others.tokenHash, LATER))).to.deep.equal(O.some({ session: withoutHash(others), operator: other }))
      })

      it('returns a disabled operator unchanged, keeping the first disabledAt, and does not audit again', async () => {
        const op = await stored()
        const { calls, audit } = recordingDisable(LATER)
        await right(repo.disable(op.id, DURING, audit))
        const disabled = { ...op, disabledAt: DURING }
        expect(await right(repo.disable(op.id, LATER, audit))).to.deep.equal(O.some(disabled))
        expect(calls).to.deep.equal([{ disabled, sessions: 0 }])
        expect(await right(repo.findByEmail(op.email))).to.deep.equal(O.some(disabled))
      })

      it('returns none for an unknown operator and does not audit', async () => {
        const { calls, audit } = recordingDisable(LATER)
        expect(await right(repo.disable(newId<OperatorId>(FRESH), LATER, audit))).to.deep.equal(O.none)
        expect(calls).to.deep.equal([])
      })
    })

    describe('revokeSessions', () => {
      it("revokes only that operator's live sessions, audits and returns how many ended", async () => {
        const op = await stored()
        const other = await stored()
        const first = await opened(op)
        const second = await opened(op, { expiresAt: at('2026-03-02T23:59:59.999Z') })
        await opened(op, { expiresAt: DURING })
        const revokedBefore = await opened(op)
        await right(repo.revokeSession(revokedBefore.id, DURING, signedOut(revokedBefore, DURING)))
        const others = await opened(other)
        const { calls, audit } = recordingRevoke(op, LATER)
        expect(await right(repo.revokeSessions(op.id, LATER, audit))).to.equal(2)
        expect(calls).to.deep.equal([2])
        expect(await right(repo.liveSession(first.tokenHash, LATER))).to.deep.equal(O.none)
        expect(await right(repo.liveSession(second.tokenHash, LATER))).to.deep.equal(O.none)
        expect(await right(repo.liveSession(others.tokenHash, LATER))).to.deep.equal(O.some({ session: withoutHash(others), operator: other }))
        expect(await right(repo.findByEmail(op.email))).to.deep.equal(O.some(op))
      })

      it('counts nothing the second time', async () => {
        const op = await stored()
        await opened(op)
        await right(repo.revokeSessions(op.id, DURING, recordingRevoke(op, DURING).audit))
        const { calls, audit } = recordingRevoke(op, LATER)
        expect(await right(repo.revokeSessions(op.id, LATER, audit))).to.equal(0)
        expect(calls.filter((n) => n !== 0)).to.deep.equal([])
      })
    })

    describe('openSession and liveSession', () => {
      it('opens a session and finds it by its token hash, without the hash, with its operator', async () => {
        const op = await stored({ role: 'servicing' })
        const s = await opened(op)
        expect(await right(repo.liveSession(s.tokenHash, DURING))).to.deep.equal(O.some({ session: withoutHash(s), operator: op }))
      })

      it('returns none for an unknown token hash', async () => {
        expect(await right(repo.liveSession(`token-hash:${freshId()}`, DURING))).to.deep.equal(O.none)
      })

      it('keeps a session live until the millisecond before it expires, and not at or after expiresAt', async () => {
        const op = await stored()
        const s = await opened(op)
        const justBefore = new Date(s.expiresAt.getTime() - 1)
        expect(await right(repo.liveSession(s.tokenHash, justBefore))).to.deep.equal(O.some({ session: withoutHash(s), operator: op }))
        expect(await right(repo.liveSession(s.tokenHash, s.expiresAt))).to.deep.equal(O.none)
        expect(await right(repo.liveSession(s.tokenHash, at('2026-03-03T00:00:00.000Z')))).to.deep.equal(O.none)
      })

      it('returns none for a revoked session', async () => {
        const op = await stored()
        const s = await opened(op)
        await right(repo.revokeSession(s.id, DURING, signedOut(s, DURING)))
        expect(await right(repo.liveSession(s.tokenHash, LATER))).to.deep.equal(O.none)
      })

      it("opens no session for a disabled operator, nor for an unknown one: false, and nothing to find", async () => {
        const op = await stored()
        await right(repo.disable(op.id, DURING, recordingDisable(DURING).audit))
        const s = session(op.id, { createdAt: DURING })
        expect(await right(repo.openSession(s, signedIn(s, op)))).to.equal(false)
        expect(await right(repo.liveSession(s.tokenHash, LATER))).to.deep.equal(O.none)
        const stranger = operator()
        const orphan = session(stranger.id)
        expect(await right(repo.openSession(orphan, signedIn(orphan, stranger)))).to.equal(false)
      })

      it("returns none for the session of an operator disabled since", async () => {
        const op = await stored()
        const s = await opened(op)
        await right(repo.disable(op.id, DURING, recordingDisable(DURING).audit))
        expect(await right(repo.liveSession(s.tokenHash, DURING))).to.deep.equal(O.none)
      })
    })

    describe('revokeSession', () => {
      it('ends one session only, and a second revocation is harmless', async () => {
        const op = await stored()
        const s = await opened(op)
        const sibling = await opened(op)
        await right(repo.revokeSession(s.id, DURING, signedOut(s, DURING)))
        await right(repo.revokeSession(s.id, LATER, signedOut(s, LATER)))
        expect(await right(repo.liveSession(s.tokenHash, LATER))).to.deep.equal(O.none)
        expect(await right(repo.liveSession(sibling.tokenHash, LATER))).to.deep.equal(O.some({ session: withoutHash(sibling), operator: op }))
      })

      it('is not counted again by revokeSessions or disable', async () => {
        const op = await stored()
        const s = await opened(op)
        await right(repo.revokeSession(s.id, DURING, signedOut(s, DURING)))
        await right(repo.revokeSession(s.id, LATER, signedOut(s, LATER)))
        expect(await right(repo.revokeSessions(op.id, LATER, recordingRevoke(op, LATER).audit))).to.equal(0)
        const { calls, audit } = recordingDisable(LATER)
        await right(repo.disable(op.id, LATER, audit))
        expect(calls.map((c) => c.sessions)).to.deep.equal([0])
      })
    })

    describe('change', () => {
      it('sets a new password, ends the live sessions and reports how many; the operator is unchanged otherwise', async () => {
        const op = await stored()
        const [one, two] = [await opened(op), await opened(op)]
        await right(repo.revokeSession(two.id, DURING, signedOut(two, DURING)))
        const { calls, audit } = recordingChange(DURING)
        expect(await right(repo.change(op.id, { passwordHash: 'new-hash' }, DURING, audit))).to.deep.equal(O.some({ operator: op, sessionsRevoked: 1 }))
        expect(calls).to.deep.equal([{ before: op, after: op, sessions: 1 }])
        expect(await right(repo.credentialsOf(op.email))).to.deep.equal(O.some({ operator: op, passwordHash: 'new-hash' }))
        expect(await right(repo.liveSession(one.tokenHash, LATER))).to.deep.equal(O.none)
      })

      it('changes a role only when it differs, and keeps the sessions: the role applies from the next request', async () => {
        const op = await stored({ role: 'reviewer' })
        const s = await opened(op)
        const { calls, audit } = recordingChange(DURING)
        const promoted: Operator = { ...op, role: 'admin' }
        expect(await right(repo.change(op.id, { role: 'admin' }, DURING, audit))).to.deep.equal(O.some({ operator: promoted, sessionsRevoked: 0 }))
        expect(await right(repo.change(op.id, { role: 'admin' }, LATER, audit))).to.deep.equal(O.some({ operator: promoted, sessionsRevoked: 0 }))
        expect(calls).to.deep.equal([{ before: op, after: promoted, sessions: 0 }])
        expect(await right(repo.liveSession(s.tokenHash, LATER))).to.deep.equal(O.some({ session: withoutHash(s), operator: promoted }))
      })

      it('enables a disabled operator once; its old sessions stay ended', async () => {
        const op = await stored()
        const s = await opened(op)
        await right(repo.disable(op.id, DURING, recordingDisable(DURING).audit))
        const { calls, audit } = recordingChange(LATER)
        expect(await right(repo.change(op.id, { enabled: true }, LATER, audit))).to.deep.equal(O.some({ operator: op, sessionsRevoked: 0 }))
        expect(await right(repo.change(op.id, { enabled: true }, LATER, audit))).to.deep.equal(O.some({ operator: op, sessionsRevoked: 0 }))
        expect(calls.map((c) => [c.before.disabledAt, c.after.disabledAt])).to.deep.equal([[DURING, null]])
        expect(await right(repo.findByEmail(op.email))).to.deep.equal(O.some(op))
        expect(await right(repo.liveSession(s.tokenHash, LATER))).to.deep.equal(O.none)
      })

      it('returns none for an unknown id without writing an event', async () => {
        const { calls, audit } = recordingChange(DURING)
        expect(await right(repo.change(operator().id, { role: 'admin' }, DURING, audit))).to.deep.equal(O.none)
        expect(await right(repo.change(operator().id, { passwordHash: 'x' }, DURING, audit))).to.deep.equal(O.none)
        expect(calls).to.deep.equal([])
      })
    })
  })
}
