import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import {
  addOperator,
  alreadyExists,
  disableOperator,
  insufficientRole,
  invalidCredentials,
  invalidOperatorSession,
  invalidRequest,
  listOperators,
  namedOperatorActor,
  notFound,
  OPERATOR_PERMISSIONS,
  OPERATOR_ROLES,
  operatorOfSession,
  requirePermission,
  revokeOperatorSessions,
  roleMay,
  rolesWith,
  signInOperator,
  signOutOperator,
  type AuditEvent,
  type Operator,
  type OperatorPermission,
  type OperatorRole,
  type OperatorSecrets,
  type SignedIn,
} from '../src/index.js'
import { fakeOperatorSecrets, inMemoryCoreDeps, type InMemoryCoreDeps } from '../src/testing/index.js'
import { right } from '../src/testing/contracts/run.js'

/** Named operators (decision 149): adding them, their console sessions and what each role may do. */

const NOW = new Date('2026-01-15T10:00:00.000Z')
const HOUR_MS = 3_600_000
const TTL_MS = 8 * HOUR_MS
const PASSWORD = 'correct horse battery'
const EMAIL = 'ada@example.com'

/** The id `sequentialIds` hands out `n`-th. */
const nth = (n: number): string => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`

const reversed = (s: string): string => [...s].reverse().join('')

const setup = (): InMemoryCoreDeps => inMemoryCoreDeps({ start: NOW })

/** Adds an operator through the use case. */
const added = async (deps: InMemoryCoreDeps, input: Record<string, unknown> = { email: EMAIL, role: 'credit', password: PASSWORD }): Promise<Operator> =>
  (await right(addOperator(deps)(input))).operator

const signIn = (deps: Pick<InMemoryCoreDeps, 'operators' | 'operatorSecrets' | 'ids' | 'clock'>, input: unknown = { email: EMAIL, password: PASSWORD }) =>
  signInOperator(deps)(input, { sessionTtlMs: TTL_MS, requestId: 'req_sign_in' })()

/** In-memory deps holding ada@example.com, a credit operator. */
const withOperator = async (): Promise<InMemoryCoreDeps> => {
  const deps = setup()
  await added(deps)
  return deps
}

const signedIn = async (deps: InMemoryCoreDeps): Promise<SignedIn> => right(signInOperator(deps)({ email: EMAIL, password: PASSWORD }, { sessionTtlMs: TTL_MS, requestId: null }))

const actions = (deps: InMemoryCoreDeps): readonly string[] => deps.audit.all().map((e: AuditEvent) => e.action)

/** `fakeOperatorSecrets` recording each password check. */
const recordingSecrets = (): { readonly secrets: OperatorSecrets; readonly checks: Array<readonly [string, string]> } => {
  const secrets = fakeOperatorSecrets()
  const checks: Array<readonly [string, string]> = []
  return {
    checks,
    secrets: {
      ...secrets,
      passwordMatches: (password, hash) => {
        checks.push([password, hash])
        return secrets.passwordMatches(password, hash)
      },
    },
  }
}

describe('addOperator', () => {
  describe('with a password', () => {
    it('adds an enabled operator, stores only the hash of its password, and returns no password', async () => {
      const deps = setup()
      const operator = { id: nth(1), email: EMAIL, role: 'credit', createdAt: NOW, disabledAt: null }
      expect(await addOperator(deps)({ email: EMAIL, role: 'credit', password: PASSWORD })()).to.deep.equal(E.right({ operator, password: null }))
      expect(await right(deps.operators.credentialsOf(EMAIL))).to.deep.equal(O.some({ operator, passwordHash: `fake:${reversed(PASSWORD)}` }))
    })

    it('audits operator.added with the e-mail and role, and never the password or its hash', async () => {
      const deps = setup()
      await added(deps, { email: EMAIL, role: 'reviewer', password: PASSWORD })
      const expected: AuditEvent = {
        id: nth(2),
        occurredAt: NOW,
        actor: { type: 'operator' },
        action: 'operator.added',
        subject: { type: 'operator', id: nth(1) },
        apiClientId: null,
        partyId: null,
        requestId: null,
        details: { email: EMAIL, role: 'reviewer' },
      }
      expect(deps.audit.all()).to.deep.equal([expected])
      expect(JSON.stringify(deps.audit.all())).not.to.include(PASSWORD).and.not.to.include(reversed(PASSWORD))
    })

    it('audits under the context it is given', async () => {
      const deps = setup()
      const admin = await added(deps, { email: 'root@example.com', role: 'admin', password: PASSWORD })
      await right(addOperator(deps)({ email: EMAIL, role: 'credit', password: PASSWORD }, { actor: namedOperatorActor(admin), requestId: 'req_1' }))
      const last = deps.audit.all().at(-1)
      expect([last?.actor, last?.requestId]).to.deep.equal([{ type: 'operator', id: admin.id }, 'req_1'])
    })
  })

  describe('without a password', () => {
    it('generates one, returns it once, and stores its hash', async () => {
      const deps = setup()
      const result = await right(addOperator(deps)({ email: EMAIL, role: 'servicing' }))
      expect(result).to.deep.equal({ operator: { id: nth(1), email: EMAIL, role: 'servicing', createdAt: NOW, disabledAt: null }, password: 'generated-password-1' })
      expect(await right(deps.operators.credentialsOf(EMAIL))).to.deep.equal(O.some({ operator: result.operator, passwordHash: `fake:${reversed('generated-password-1')}` }))
      expect(JSON.stringify(deps.audit.all())).not.to.include('generated-password-1')
    })
  })

  it('stores the e-mail in lower case', async () => {
    const deps = setup()
    const operator = await added(deps, { email: 'Ada.Lovelace@Example.COM', role: 'credit', password: PASSWORD })
    expect(operator.email).to.equal('ada.lovelace@example.com')
    expect(await right(deps.operators.findByEmail('ada.lovelace@example.com'))).to.deep.equal(O.some(operator))
  })

  describe('when the input is invalid', () => {
    const cases: ReadonlyArray<readonly [string, unknown, ReturnType<typeof invalidRequest>]> = [
      ['an e-mail that is not one', { email: 'ada', role: 'credit' }, invalidRequest('email must be a valid email address', 'email')],
      ['no e-mail', { role: 'credit' }, invalidRequest('email is required', 'email')],
      ['an unknown role', { email: EMAIL, role: 'boss' }, invalidRequest('role must be one of: reviewer, credit, servicing, admin', 'role')],
      ['a password of 11 characters', { email: EMAIL, role: 'credit', password: 'a'.repeat(11) }, invalidRequest('password must be 12 to 256 characters', 'password')],
      ['a password of 257 characters', { email: EMAIL, role: 'credit', password: 'a'.repeat(257) }, invalidRequest('password must be 12 to 256 characters', 'password')],
      ['an unknown field', { email: EMAIL, role: 'credit', name: 'Ada' }, invalidRequest('name is not a known field', 'name')],
    ]
    for (const [what, input, error] of cases) {
      it(`refuses ${what} as InvalidRequest naming the field, and adds nothing`, async () => {
        const deps = setup()
        expect(await addOperator(deps)(input)()).to.deep.equal(E.left(error))
        expect(await right(listOperators(deps)())).to.deep.equal([])
        expect(deps.audit.all()).to.deep.equal([])
      })
    }

    it('accepts a password of exactly 12 characters', async () => {
      const deps = setup()
      expect((await right(addOperator(deps)({ email: EMAIL, role: 'credit', password: 'a'.repeat(12) }))).password).to.equal(null)
    })
  })

  describe('when the e-mail is taken', () => {
    it('returns AlreadyExists, in whatever case it is given, and changes nothing', async () => {
      const deps = setup()
      const first = await added(deps)
      expect(await addOperator(deps)({ email: 'ADA@example.com', role: 'admin', password: 'another password' })()).to.deep.equal(E.left(alreadyExists('operator')))
      expect(await right(listOperators(deps)())).to.deep.equal([first])
      expect(actions(deps)).to.deep.equal(['operator.added'])
    })

    it('returns AlreadyExists when the operator holding it is disabled', async () => {
      const deps = setup()
      await added(deps)
      await right(disableOperator(deps)({ email: EMAIL }))
      expect(await addOperator(deps)({ email: EMAIL, role: 'credit' })()).to.deep.equal(E.left(alreadyExists('operator')))
    })
  })
})

describe('listOperators', () => {
  it('lists every operator, enabled or not, by e-mail', async () => {
    const deps = setup()
    const carol = await added(deps, { email: 'carol@example.com', role: 'servicing', password: PASSWORD })
    const alice = await added(deps, { email: 'alice@example.com', role: 'admin', password: PASSWORD })
    const bob = await added(deps, { email: 'bob@example.com', role: 'reviewer', password: PASSWORD })
    await right(disableOperator(deps)({ email: 'bob@example.com' }))
    expect(await right(listOperators(deps)())).to.deep.equal([alice, { ...bob, disabledAt: NOW }, carol])
  })
})

describe('signInOperator', () => {
  describe('with the right password', () => {
    it('opens a session of the given length and returns its token and CSRF token', async () => {
      const deps = setup()
      const operator = await added(deps)
      expect(await signIn(deps)).to.deep.equal(
        E.right({
          operator,
          session: { id: nth(3), operatorId: operator.id, createdAt: NOW, expiresAt: new Date(NOW.getTime() + TTL_MS), revokedAt: null },
          token: 'session-token-1',
          csrfToken: 'csrf:session-token-1',
        }),
      )
    })

    it('audits operator.signed_in with the operator as actor, and never the token', async () => {
      const deps = setup()
      const operator = await added(deps)
      await signIn(deps)
      const expected: AuditEvent = {
        id: nth(4),
        occurredAt: NOW,
        actor: { type: 'operator', id: operator.id },
        action: 'operator.signed_in',
        subject: { type: 'operator', id: operator.id },
        apiClientId: null,
        partyId: null,
        requestId: 'req_sign_in',
        details: { session_id: nth(3), expires_at: '2026-01-15T18:00:00.000Z' },
      }
      expect(deps.audit.all().at(-1)).to.deep.equal(expected)
      expect(JSON.stringify(deps.audit.all())).not.to.include('session-token-1').and.not.to.include(PASSWORD)
    })

    it('accepts the e-mail in another case, around spaces', async () => {
      const deps = setup()
      const operator = await added(deps)
      const result = await signIn(deps, { email: '  ADA@Example.com ', password: PASSWORD })
      expect(E.isRight(result) && result.right.operator).to.deep.equal(operator)
    })

    it('signs in with a generated password', async () => {
      const deps = setup()
      const { operator, password } = await right(addOperator(deps)({ email: EMAIL, role: 'credit' }))
      const result = await signIn(deps, { email: EMAIL, password })
      expect(E.isRight(result) && result.right.operator).to.deep.equal(operator)
    })
  })

  describe('when the credentials are not good', () => {
    const refused = async (deps: InMemoryCoreDeps, input: unknown): Promise<void> => {
      expect(await signIn(deps, input)).to.deep.equal(E.left({ _tag: 'InvalidCredentials' }))
      expect(actions(deps).filter((a) => a === 'operator.signed_in')).to.deep.equal([])
    }

    it('refuses a wrong password as InvalidCredentials and opens no session', async () => {
      const deps = setup()
      await added(deps)
      await refused(deps, { email: EMAIL, password: 'wrong horse battery' })
    })

    it('refuses an unknown e-mail the same way', async () => {
      const deps = setup()
      await added(deps)
      await refused(deps, { email: 'grace@example.com', password: PASSWORD })
    })

    it('refuses a disabled operator the same way, even with the right password', async () => {
      const deps = setup()
      await added(deps)
      await right(disableOperator(deps)({ email: EMAIL }))
      await refused(deps, { email: EMAIL, password: PASSWORD })
    })

    it('checks a password against the decoy hash when no operator has the e-mail, so the time tells nothing', async () => {
      const { secrets, checks } = recordingSecrets()
      const deps = { ...setup(), operatorSecrets: secrets }
      expect(await signIn(deps, { email: 'grace@example.com', password: PASSWORD })).to.deep.equal(E.left(invalidCredentials))
      expect(checks).to.deep.equal([[PASSWORD, secrets.decoyHash]])
    })

    it("checks a password against the operator's own hash otherwise, disabled or not", async () => {
      const { secrets, checks } = recordingSecrets()
      const deps = { ...setup(), operatorSecrets: secrets }
      await added(deps)
      await signIn(deps, { email: EMAIL, password: 'wrong horse battery' })
      await right(disableOperator(deps)({ email: EMAIL }))
      await signIn(deps, { email: EMAIL, password: PASSWORD })
      expect(checks).to.deep.equal([
        ['wrong horse battery', `fake:${reversed(PASSWORD)}`],
        [PASSWORD, `fake:${reversed(PASSWORD)}`],
      ])
    })

    it('refuses an empty password as InvalidRequest before looking anything up', async () => {
      const { secrets, checks } = recordingSecrets()
      const deps = { ...setup(), operatorSecrets: secrets }
      expect(await signIn(deps, { email: EMAIL, password: '' })).to.deep.equal(E.left(invalidRequest('password must be 1 to 256 characters', 'password')))
      expect(checks).to.deep.equal([])
    })
  })
})

describe('operatorOfSession', () => {
  it('returns the live session and its operator for the session token', async () => {
    const deps = await withOperator()
    const { operator, session, token } = await signedIn(deps)
    expect(await operatorOfSession(deps)(token)()).to.deep.equal(E.right({ session, operator }))
  })

  it('returns InvalidOperatorSession for a token no session has', async () => {
    const deps = await withOperator()
    await signedIn(deps)
    expect(await operatorOfSession(deps)('session-token-99')()).to.deep.equal(E.left(invalidOperatorSession))
  })

  it('returns InvalidOperatorSession after signing out, and signing out again is harmless', async () => {
    const deps = await withOperator()
    const signed = await signedIn(deps)
    await right(signOutOperator(deps)(signed, 'sign-out-request'))
    await right(signOutOperator(deps)(signed, 'sign-out-request'))
    expect(await operatorOfSession(deps)(signed.token)()).to.deep.equal(E.left(invalidOperatorSession))
    expect(deps.audit.all().filter((e) => e.action === 'operator.signed_out').map((e) => [e.actor, e.requestId, e.details])).to.deep.equal([
      [{ type: 'operator', id: signed.operator.id }, 'sign-out-request', { session_id: signed.session.id }],
    ])
  })

  it('keeps the session until the millisecond before it expires, then returns InvalidOperatorSession', async () => {
    const deps = await withOperator()
    const { operator, session, token } = await signedIn(deps)
    deps.clock.advance(TTL_MS - 1)
    expect(await operatorOfSession(deps)(token)()).to.deep.equal(E.right({ session, operator }))
    deps.clock.advance(1)
    expect(await operatorOfSession(deps)(token)()).to.deep.equal(E.left(invalidOperatorSession))
  })

  it('returns InvalidOperatorSession once the operator is disabled', async () => {
    const deps = await withOperator()
    const { token } = await signedIn(deps)
    deps.clock.advance(HOUR_MS)
    await right(disableOperator(deps)({ email: EMAIL }))
    expect(await operatorOfSession(deps)(token)()).to.deep.equal(E.left(invalidOperatorSession))
  })

  it("returns InvalidOperatorSession once the operator's sessions are revoked, and a new sign-in works again", async () => {
    const deps = await withOperator()
    const { token } = await signedIn(deps)
    deps.clock.advance(HOUR_MS)
    await right(revokeOperatorSessions(deps)({ email: EMAIL }))
    expect(await operatorOfSession(deps)(token)()).to.deep.equal(E.left(invalidOperatorSession))
    const again = await signedIn(deps)
    expect(await operatorOfSession(deps)(again.token)()).to.deep.equal(E.right({ session: again.session, operator: again.operator }))
  })
})

describe('disableOperator', () => {
  it('disables the operator now, ends its live sessions and audits how many ended', async () => {
    const deps = setup()
    const operator = await added(deps)
    await signedIn(deps)
    await signedIn(deps)
    deps.clock.advance(HOUR_MS)
    const later = new Date(NOW.getTime() + HOUR_MS)
    const disabled = { ...operator, disabledAt: later }
    expect(await disableOperator(deps)({ email: 'Ada@Example.com' })()).to.deep.equal(E.right(disabled))
    expect(deps.audit.all().at(-1)).to.deep.equal({
      id: nth(7),
      occurredAt: later,
      actor: { type: 'operator' },
      action: 'operator.disabled',
      subject: { type: 'operator', id: operator.id },
      apiClientId: null,
      partyId: null,
      requestId: null,
      details: { email: EMAIL, sessions_revoked: 2 },
    })
  })

  it('returns a disabled operator unchanged and audits it once', async () => {
    const deps = setup()
    const operator = await added(deps)
    await right(disableOperator(deps)({ email: EMAIL }))
    deps.clock.advance(HOUR_MS)
    expect(await disableOperator(deps)({ email: EMAIL })()).to.deep.equal(E.right({ ...operator, disabledAt: NOW }))
    expect(actions(deps)).to.deep.equal(['operator.added', 'operator.disabled'])
  })

  it('returns NotFound for an e-mail no operator has', async () => {
    const deps = setup()
    expect(await disableOperator(deps)({ email: EMAIL })()).to.deep.equal(E.left(notFound('operator')))
  })
})

describe('revokeOperatorSessions', () => {
  it('ends every live session of the operator, leaving it enabled, and audits how many ended', async () => {
    const deps = setup()
    const operator = await added(deps)
    await signedIn(deps)
    const signedOut = await signedIn(deps)
    await right(signOutOperator(deps)(signedOut, null))
    await signedIn(deps)
    expect(await revokeOperatorSessions(deps)({ email: EMAIL })()).to.deep.equal(E.right({ operator, sessionsRevoked: 2 }))
    expect(deps.audit.all().at(-1)?.details).to.deep.equal({ email: EMAIL, sessions_revoked: 2 })
    expect(await right(deps.operators.findByEmail(EMAIL))).to.deep.equal(O.some(operator))
  })

  it('returns NotFound for an e-mail no operator has', async () => {
    const deps = setup()
    expect(await revokeOperatorSessions(deps)({ email: EMAIL })()).to.deep.equal(E.left(notFound('operator')))
  })
})

describe('what each role may do', () => {
  const MAY: Readonly<Record<OperatorRole, readonly OperatorPermission[]>> = {
    reviewer: ['read', 'review_onboarding'],
    credit: ['read', 'decide_credit', 'manage_loan_documents'],
    servicing: ['read', 'service_loans', 'manage_loan_documents'],
    admin: ['read', 'review_onboarding', 'decide_credit', 'manage_loan_documents', 'service_loans', 'operate_rails'],
  }

  for (const role of OPERATOR_ROLES)
    for (const permission of OPERATOR_PERMISSIONS) {
      const may = MAY[role].includes(permission)
      it(`${role} ${may ? 'may' : 'may not'} ${permission}`, () => {
        expect(roleMay(role, permission)).to.equal(may)
        expect(requirePermission(permission)({ role })).to.deep.equal(may ? E.right(undefined) : E.left(insufficientRole(role, permission)))
      })
    }

  it('refuses the desks one another’s work', () => {
    expect(requirePermission('decide_credit')({ role: 'reviewer' })).to.deep.equal(E.left({ _tag: 'InsufficientRole', role: 'reviewer', permission: 'decide_credit' }))
    expect(requirePermission('review_onboarding')({ role: 'credit' })).to.deep.equal(E.left({ _tag: 'InsufficientRole', role: 'credit', permission: 'review_onboarding' }))
    expect(requirePermission('operate_rails')({ role: 'servicing' })).to.deep.equal(E.left({ _tag: 'InsufficientRole', role: 'servicing', permission: 'operate_rails' }))
  })

  it('lets every role read and the admin do everything a person may; no role ingests a bank file', () => {
    expect(OPERATOR_ROLES.filter((role) => !roleMay(role, 'read'))).to.deep.equal([])
    expect(OPERATOR_PERMISSIONS.filter((permission) => !roleMay('admin', permission))).to.deep.equal(['ingest_bank_files'])
    expect(rolesWith('ingest_bank_files')).to.deep.equal([])
  })
})
