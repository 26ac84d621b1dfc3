import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { operatorSignedInEvent } from '../../domain/audit/audit-event.js'
import { decode } from '../../domain/foundations/codecs.js'
import type { InvalidRequest, StoreUnavailable } from '../../domain/foundations/errors.js'
import { newId, type OperatorSessionId } from '../../domain/foundations/ids.js'
import {
  invalidCredentials,
  invalidOperatorSession,
  SignInInput,
  type InvalidCredentials,
  type InvalidOperatorSession,
  type Operator,
  type OperatorSession,
} from '../../domain/operators/operator.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { OperatorRepository, SessionOperator } from '../../ports/operator-repository.js'
import type { OperatorSecrets } from '../../ports/operator-secrets.js'

/** What signing in needs. */
export type SignInOperatorDeps = {
  readonly operators: Pick<OperatorRepository, 'credentialsOf' | 'openSession'>
  readonly operatorSecrets: Pick<OperatorSecrets, 'passwordMatches' | 'decoyHash' | 'newSessionToken' | 'csrfTokenOf'>
  readonly ids: IdGenerator
  readonly clock: Clock
}

/** A new session: `token` goes to the browser once, as the cookie; `csrfToken` with it, in the body. */
export type SignedIn = { readonly operator: Operator; readonly session: OperatorSession; readonly token: string; readonly csrfToken: string }

/** How long a session lasts, and the request signing in (for the audit event). */
export type SignInOptions = { readonly sessionTtlMs: number; readonly requestId: string | null }

/** A sign-in's e-mail (lower case) and its verdict: the operator, or `InvalidCredentials`. */
export type CredentialsChecked = { readonly email: string; readonly verdict: E.Either<InvalidCredentials, Operator> }

/**
 * Checks a sign-in's e-mail and password: an enabled operator's right password is its operator;
 * a wrong e-mail, a wrong password and a disabled operator are one `InvalidCredentials`, and an
 * unknown e-mail costs a hash check too, so the answer's time does not tell them apart. The
 * verdict is a Right's, for the caller to count failures by e-mail before it opens a session.
 */
export const checkOperatorCredentials =
  (deps: Pick<SignInOperatorDeps, 'operators' | 'operatorSecrets'>) =>
  (command: unknown): TE.TaskEither<InvalidRequest | StoreUnavailable, CredentialsChecked> =>
    pipe(
      TE.fromEither(decode(SignInInput)(command)),
      TE.chainW(({ email, password }) => {
        const address = email.trim().toLowerCase()
        return pipe(
          deps.operators.credentialsOf(address),
          TE.chainW((found) =>
            TE.fromTask(async () => {
              const checked = O.toUndefined(found)
              const matches = await deps.operatorSecrets.passwordMatches(password, checked?.passwordHash ?? deps.operatorSecrets.decoyHash)()
              const verdict: E.Either<InvalidCredentials, Operator> =
                matches && checked !== undefined && checked.operator.disabledAt === null ? E.right(checked.operator) : E.left(invalidCredentials)
              return { email: address, verdict }
            }),
          ),
        )
      }),
    )

/** Opens a session of `options.sessionTtlMs` for `operator`, audited as `operator.signed_in`. */
export const openOperatorSession =
  (deps: Pick<SignInOperatorDeps, 'operators' | 'operatorSecrets' | 'ids' | 'clock'>) =>
  (operator: Operator, options: SignInOptions): TE.TaskEither<StoreUnavailable, SignedIn> => {
    const now = deps.clock.now()
    const { token, hash } = deps.operatorSecrets.newSessionToken()
    const session: OperatorSession = {
      id: newId<OperatorSessionId>(deps.ids),
      operatorId: operator.id,
      createdAt: now,
      expiresAt: new Date(now.getTime() + options.sessionTtlMs),
      revokedAt: null,
    }
    return pipe(
      deps.operators.openSession({ ...session, tokenHash: hash }, operatorSignedInEvent(deps.ids.next(), options.requestId, operator, session)),
      TE.map(() => ({ operator, session, token, csrfToken: deps.operatorSecrets.csrfTokenOf(token) })),
    )
  }

/**
 * Signs an operator in (`checkOperatorCredentials`, then `openOperatorSession`). Limiting failed
 * attempts is the caller's: the HTTP edge counts them per address and per e-mail between the two.
 */
export const signInOperator =
  (deps: SignInOperatorDeps) =>
  (command: unknown, options: SignInOptions): TE.TaskEither<InvalidRequest | InvalidCredentials | StoreUnavailable, SignedIn> =>
    pipe(
      checkOperatorCredentials(deps)(command),
      TE.chainW(({ verdict }) => TE.fromEither(verdict)),
      TE.chainW((operator) => openOperatorSession(deps)(operator, options)),
    )

/** What reading a session needs. */
export type OperatorSessionDeps = {
  readonly operators: Pick<OperatorRepository, 'liveSession' | 'revokeSession'>
  readonly operatorSecrets: Pick<OperatorSecrets, 'sessionTokenHash'>
  readonly clock: Clock
}

/** The live session `token` opened and its enabled operator, or `InvalidOperatorSession`. */
export const operatorOfSession =
  (deps: Pick<OperatorSessionDeps, 'operators' | 'operatorSecrets' | 'clock'>) =>
  (token: string): TE.TaskEither<InvalidOperatorSession | StoreUnavailable, SessionOperator> =>
    pipe(
      deps.operators.liveSession(deps.operatorSecrets.sessionTokenHash(token), deps.clock.now()),
      TE.chainW(TE.fromOption(() => invalidOperatorSession)),
    )

/** Signs out: the session ends now. */
export const signOutOperator =
  (deps: Pick<OperatorSessionDeps, 'operators' | 'clock'>) =>
  (session: Pick<OperatorSession, 'id'>): TE.TaskEither<StoreUnavailable, void> =>
    deps.operators.revokeSession(session.id, deps.clock.now())
