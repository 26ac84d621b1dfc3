import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { OPERATOR_CONTEXT, operatorAddedEvent, operatorDisabledEvent, operatorSessionsRevokedEvent, type AuditContext } from '../../domain/audit/audit-event.js'
import { decode, strictObject } from '../../domain/foundations/codecs.js'
import { notFound, type AlreadyExists, type InvalidRequest, type NotFound, type StoreUnavailable } from '../../domain/foundations/errors.js'
import { newId, type OperatorId } from '../../domain/foundations/ids.js'
import { AddOperatorInput, OperatorEmail, type Operator } from '../../domain/operators/operator.js'
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

/** Every operator, enabled or not, by e-mail. */
export const listOperators = (deps: Pick<ManageOperatorsDeps, 'operators'>) => (): TE.TaskEither<StoreUnavailable, readonly Operator[]> => deps.operators.list()

