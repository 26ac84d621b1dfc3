import { instantText, instantTextOrNull } from '../domain/foundations/instant.js'
import type { Operator, OperatorRole } from '../domain/operators/operator.js'
import type { SignedIn } from '../use-cases/operators/operator-sessions.js'
import type { SessionOperator } from '../ports/operator-repository.js'

/** An operator as the CLI and the console show it: never its password's hash. */
export type OperatorView = {
  readonly operator_id: string
  readonly email: string
  readonly role: OperatorRole
  readonly created_at: string
  readonly disabled_at: string | null
}

/** The view of an operator. */
export const operatorView = (operator: Operator): OperatorView => ({
  operator_id: operator.id,
  email: operator.email,
  role: operator.role,
  created_at: instantText(operator.createdAt),
  disabled_at: instantTextOrNull(operator.disabledAt),
})

/** The signed-in operator's session, as the console reads it: never the session's token (that is the cookie). */
export type OperatorSessionView = {
  readonly session_id: string
  readonly operator: OperatorView
  readonly expires_at: string
  /** Send it as `X-CSRF-Token` with every request that changes something. */
  readonly csrf_token: string
}

/** The view of a session, given its CSRF token. */
export const operatorSessionView = ({ session, operator }: SessionOperator | SignedIn, csrfToken: string): OperatorSessionView => ({
  session_id: session.id,
  operator: operatorView(operator),
  expires_at: instantText(session.expiresAt),
  csrf_token: csrfToken,
})
