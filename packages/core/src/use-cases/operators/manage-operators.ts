import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { OPERATOR_CONTEXT, operatorAddedEvent, operatorChangedEvent, operatorDisabledEvent, operatorSessionsRevokedEvent, type AuditContext } from '../../domain/audit/audit-event.js'
import { decode, oneOf, strictObject } from '../../domain/foundations/codecs.js'
import { notFound, type AlreadyExists, type InvalidRequest, type NotFound, type StoreUnavailable } from '../../domain/foundations/errors.js'
import { newId, type OperatorId } from '../../domain/foundations/ids.js'
import { AddOperatorInput, OPERATOR_ROLES, OperatorEmail, Password, type Operator } from '../../domain/operators/operator.js'
import type { ChangedOperator, OperatorChange } from '../../ports/operator-repository.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { OperatorRepository } from '../../ports/operator-repository.js'
import type { OperatorSecrets } from '../../ports/operator-secrets.js'

/** Operators are managed from the CLI (or an embedding service): no HTTP route adds or disables one. */

/** What the operator use cases need; each takes only its part. */
export type ManageOperatorsDeps = {
  readonly operators: OperatorRepository
  readonly operatorSecrets: OperatorSecrets
  readonly ids: IdGenerator
  readonly clock: Clock
}

/** The added operator; `password` is the generated one, shown once, or null when one was given. */
export type AddedOperator = { readonly operator: Operator; readonly password: string | null }

/** Adds an operator with `password`, or a generated one; audited. `AlreadyExists` when the e-mail is taken. */
export const addOperator =
  (deps: Pick<ManageOperatorsDeps, 'operators' | 'operatorSecrets' | 'ids' | 'clock'>) =>
  (command: unknown, context: AuditContext = OPERATOR_CONTEXT): TE.TaskEither<InvalidRequest | AlreadyExists | StoreUnavailable, AddedOperator> =>
    pipe(
      TE.fromEither(decode(AddOperatorInput)(command)),
      TE.chainW((cmd) => {
        const password = cmd.password ?? deps.operatorSecrets.generatePassword()
        const operator: Operator = { id: newId<OperatorId>(deps.ids), email: cmd.email, role: cmd.role, createdAt: deps.clock.now(), disabledAt: null }
        const auditId = deps.ids.next()
        return pipe(
          TE.fromTask(deps.operatorSecrets.hashPassword(password)),
          TE.chainW((passwordHash) => deps.operators.add({ operator, passwordHash }, operatorAddedEvent(auditId, context, operator))),
          TE.map((added) => ({ operator: added, password: cmd.password === undefined ? password : null })),
        )
      }),
    )

const ByEmail = strictObject('OperatorByEmail', { email: OperatorEmail }, {})

/** The operator `command.email` names, or NotFound. */
const operatorNamed = (deps: Pick<ManageOperatorsDeps, 'operators'>, command: unknown): TE.TaskEither<InvalidRequest | NotFound | StoreUnavailable, Operator> =>
  pipe(
    TE.fromEither(decode(ByEmail)(command)),
    TE.chainW(({ email }) => deps.operators.findByEmail(email)),
    TE.chainW(TE.fromOption(() => notFound('operator'))),
  )

/** Disables an operator and ends its sessions; a disabled one is returned unchanged and audited once. */
export const disableOperator =
  (deps: Pick<ManageOperatorsDeps, 'operators' | 'ids' | 'clock'>) =>
  (command: unknown, context: AuditContext = OPERATOR_CONTEXT): TE.TaskEither<InvalidRequest | NotFound | StoreUnavailable, Operator> =>
    pipe(
      operatorNamed(deps, command),
      TE.chainW((operator) => {
        const now = deps.clock.now()
        const auditId = deps.ids.next()
        return deps.operators.disable(operator.id, now, (disabled, sessions) => operatorDisabledEvent(auditId, context, disabled, sessions, now))
      }),
      TE.chainW(TE.fromOption(() => notFound('operator'))),
    )

/** Ends every live session of an operator (a lost laptop); audited with how many ended. */
export const revokeOperatorSessions =
  (deps: Pick<ManageOperatorsDeps, 'operators' | 'ids' | 'clock'>) =>
  (command: unknown, context: AuditContext = OPERATOR_CONTEXT): TE.TaskEither<InvalidRequest | NotFound | StoreUnavailable, { readonly operator: Operator; readonly sessionsRevoked: number }> =>
    pipe(
      operatorNamed(deps, command),
      TE.chainW((operator) => {
        const now = deps.clock.now()
        const auditId = deps.ids.next()
        return pipe(
          deps.operators.revokeSessions(operator.id, now, (sessions) => operatorSessionsRevokedEvent(auditId, context, operator, sessions, now)),
          TE.map((sessionsRevoked) => ({ operator, sessionsRevoked })),
        )
      }),
    )

/** Applies `change` to the operator `email` names, audited as what changed. */
const changeOperator =
  (deps: Pick<ManageOperatorsDeps, 'operators' | 'ids' | 'clock'>) =>
  (email: string, change: OperatorChange, context: AuditContext): TE.TaskEither<NotFound | StoreUnavailable, ChangedOperator> =>
    pipe(
      deps.operators.findByEmail(email),
      TE.chainW(TE.fromOption(() => notFound('operator'))),
      TE.chainW((operator) => {
        const now = deps.clock.now()
        const auditId = deps.ids.next()
        return pipe(
          deps.operators.change(operator.id, change, now, (before, after, sessions) => operatorChangedEvent(auditId, context, before, after, sessions, now)),
          TE.chainW(TE.fromOption(() => notFound('operator'))),
        )
      }),
    )

const ResetPasswordInput = strictObject('ResetOperatorPasswordInput', { email: OperatorEmail }, { password: Password })

/**
 * Gives an operator a new password, or a generated one shown once, and ends its sessions (a
 * password that leaked, or a forgotten one); audited as `operator.password_reset`.
 */
export const resetOperatorPassword =
  (deps: Pick<ManageOperatorsDeps, 'operators' | 'operatorSecrets' | 'ids' | 'clock'>) =>
  (command: unknown, context: AuditContext = OPERATOR_CONTEXT): TE.TaskEither<InvalidRequest | NotFound | StoreUnavailable, AddedOperator & { readonly sessionsRevoked: number }> =>
    pipe(
      TE.fromEither(decode(ResetPasswordInput)(command)),
      TE.chainW((cmd) => {
        const password = cmd.password ?? deps.operatorSecrets.generatePassword()
        return pipe(
          TE.fromTask(deps.operatorSecrets.hashPassword(password)),
          TE.chainW((passwordHash) => changeOperator(deps)(cmd.email, { passwordHash }, context)),
          TE.map(({ operator, sessionsRevoked }) => ({ operator, password: cmd.password === undefined ? password : null, sessionsRevoked })),
        )
      }),
    )

const SetRoleInput = strictObject('SetOperatorRoleInput', { email: OperatorEmail, role: oneOf('OperatorRole', OPERATOR_ROLES) }, {})

/** Gives an operator another role, from its next request on; audited as `operator.role_changed` when it differs. */
export const setOperatorRole =
  (deps: Pick<ManageOperatorsDeps, 'operators' | 'ids' | 'clock'>) =>
  (command: unknown, context: AuditContext = OPERATOR_CONTEXT): TE.TaskEither<InvalidRequest | NotFound | StoreUnavailable, Operator> =>
    pipe(
      TE.fromEither(decode(SetRoleInput)(command)),
      TE.chainW(({ email, role }) => changeOperator(deps)(email, { role }, context)),
      TE.map(({ operator }) => operator),
    )

/** Lets a disabled operator sign in again (its old sessions stay ended); audited as `operator.enabled`. */
export const enableOperator =
  (deps: Pick<ManageOperatorsDeps, 'operators' | 'ids' | 'clock'>) =>
  (command: unknown, context: AuditContext = OPERATOR_CONTEXT): TE.TaskEither<InvalidRequest | NotFound | StoreUnavailable, Operator> =>
    pipe(
      TE.fromEither(decode(ByEmail)(command)),
      TE.chainW(({ email }) => changeOperator(deps)(email, { enabled: true }, context)),
      TE.map(({ operator }) => operator),
    )

/** Every operator, enabled or not, by e-mail. */
export const listOperators = (deps: Pick<ManageOperatorsDeps, 'operators'>) => (): TE.TaskEither<StoreUnavailable, readonly Operator[]> => deps.operators.list()

