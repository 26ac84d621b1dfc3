import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { boundedString, isStorable, oneOf, strictObject, UNSTORABLE_MESSAGE, withSchema } from '../foundations/codecs.js'
import type { OperatorId, OperatorSessionId } from '../foundations/ids.js'
import { Email } from '../onboarding/verification.js'

/**
 * Named operators (decision 149): the people who review onboarding, decide credit and service
 * loans, each signing in to the console with a password and acting under a role. The internal
 * token stays for automation and acts with every permission.
 */

/** What an operator is hired to do; `admin` may do everything a person may. */
export const OPERATOR_ROLES = ['reviewer', 'credit', 'servicing', 'admin'] as const
/** One of `OPERATOR_ROLES`. */
export type OperatorRole = (typeof OPERATOR_ROLES)[number]

/**
 * What an internal route asks of the operator calling it. `read` is every role's; each other
 * permission is one desk's work, but `ingest_bank_files`, which no person holds: a bank's file
 * reverses payments, which a person may not do alone (decision 152), so only automation (the
 * internal token, the CLI) ingests one.
 */
export const OPERATOR_PERMISSIONS = ['read', 'review_onboarding', 'decide_credit', 'manage_loan_documents', 'service_loans', 'operate_rails', 'ingest_bank_files'] as const
/** One of `OPERATOR_PERMISSIONS`. */
export type OperatorPermission = (typeof OPERATOR_PERMISSIONS)[number]

/** Each role's permissions; `admin` holds every one a person may. */
export const ROLE_PERMISSIONS: Readonly<Record<OperatorRole, readonly OperatorPermission[]>> = {
  reviewer: ['read', 'review_onboarding'],
  credit: ['read', 'decide_credit', 'manage_loan_documents'],
  servicing: ['read', 'service_loans', 'manage_loan_documents'],
  admin: OPERATOR_PERMISSIONS.filter((permission) => permission !== 'ingest_bank_files'),
}

/** Whether `role` holds `permission`. */
export const roleMay = (role: OperatorRole, permission: OperatorPermission): boolean => ROLE_PERMISSIONS[role].includes(permission)

/** The roles holding `permission`, in `OPERATOR_ROLES` order. */
export const rolesWith = (permission: OperatorPermission): readonly OperatorRole[] => OPERATOR_ROLES.filter((role) => roleMay(role, permission))

/** A named operator. Disabled, it can neither sign in nor use a session it opened before. */
export type Operator = {
  readonly id: OperatorId
  /** Lower case: operators sign in with their address in any case. */
  readonly email: string
  readonly role: OperatorRole
  readonly createdAt: Date
  readonly disabledAt: Date | null
}

/** A console session: its token is the cookie's value, kept only as a hash. */
export type OperatorSession = {
  readonly id: OperatorSessionId
  readonly operatorId: OperatorId
  readonly createdAt: Date
  readonly expiresAt: Date
  readonly revokedAt: Date | null
}

/** NIST SP 800-63B asks for at least 8 and accepts at least 64; staff who move money get 12. */
export const PASSWORD_MIN_LENGTH = 12
/** Long enough for any passphrase, short enough that hashing it costs what any other does. */
export const PASSWORD_MAX_LENGTH = 256

/** An operator's e-mail address, as the onboarding's rule has it, in lower case throughout. */
export const OperatorEmail = withSchema(
  new t.Type<string, string, unknown>(
    'OperatorEmail',
    (u): u is string => typeof u === 'string',
    (u, c) => {
      const decoded = Email.validate(u, c)
      return E.isLeft(decoded) ? decoded : t.success(decoded.right.toLowerCase())
    },
    t.identity,
  ),
  { type: 'string', format: 'email', maxLength: 254 },
)

/** A password of `min` to `PASSWORD_MAX_LENGTH` characters (code points), taken as typed: never trimmed. */
const passwordOf = (name: string, min: number) =>
  withSchema(
    new t.Type<string, string, unknown>(
      name,
      (u): u is string => typeof u === 'string',
      (u, c) => {
        if (typeof u !== 'string') return t.failure(u, c, 'must be a string')
        if (!isStorable(u)) return t.failure(u, c, UNSTORABLE_MESSAGE)
        const length = [...u].length
        return length >= min && length <= PASSWORD_MAX_LENGTH ? t.success(u) : t.failure(u, c, `must be ${min} to ${PASSWORD_MAX_LENGTH} characters`)
      },
      t.identity,
    ),
    { type: 'string', minLength: min, maxLength: PASSWORD_MAX_LENGTH, format: 'password' },
  )

/** A new password: at least `PASSWORD_MIN_LENGTH` characters. */
export const Password = passwordOf('Password', PASSWORD_MIN_LENGTH)

/** `lendgate operators add`: without a password, one is generated and shown once. */
export const AddOperatorInput = strictObject('AddOperatorInput', { email: OperatorEmail, role: oneOf('OperatorRole', OPERATOR_ROLES) }, { password: Password })
export type AddOperatorInput = t.TypeOf<typeof AddOperatorInput>

/** The console's sign-in. Neither field is held to the rules of a new one: a wrong one is simply wrong. */
export const SignInInput = strictObject(
  'SignInInput',
  {
    email: boundedString('OperatorEmail', 1, 254),
    password: passwordOf('PresentedPassword', 1),
  },
  {},
)
export type SignInInput = t.TypeOf<typeof SignInInput>

/** Whether `session` lets its operator act at `now`: neither revoked nor expired. */
export const sessionLive = (session: OperatorSession, now: Date): boolean => session.revokedAt === null && now.getTime() < session.expiresAt.getTime()

/** A wrong e-mail or password, or a disabled operator: one answer for all three, so none is told apart. */
export type InvalidCredentials = { readonly _tag: 'InvalidCredentials' }
/** The one refusal of a sign-in. */
export const invalidCredentials: InvalidCredentials = { _tag: 'InvalidCredentials' }

/** No console session, or one that is unknown, expired, revoked or of a disabled operator. */
export type InvalidOperatorSession = { readonly _tag: 'InvalidOperatorSession' }
/** The refusal of a request whose console session is not live. */
export const invalidOperatorSession: InvalidOperatorSession = { _tag: 'InvalidOperatorSession' }

/** The operator's role does not hold the permission the action asks for. */
export type InsufficientRole = { readonly _tag: 'InsufficientRole'; readonly role: OperatorRole; readonly permission: OperatorPermission }
/** The refusal of `role` for an action asking `permission`. */
export const insufficientRole = (role: OperatorRole, permission: OperatorPermission): InsufficientRole => ({ _tag: 'InsufficientRole', role, permission })

/** Right when `operator`'s role holds `permission`. */
export const requirePermission =
  (permission: OperatorPermission) =>
  (operator: Pick<Operator, 'role'>): E.Either<InsufficientRole, void> =>
    roleMay(operator.role, permission) ? E.right(undefined) : E.left(insufficientRole(operator.role, permission))
