import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { operatorSignedInEvent, operatorSignedOutEvent } from '../../domain/audit/audit-event.js'
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

/**
 * Runs a sign-in's password check for `email` (lower case): where failed attempts are limited, it
 * refuses before the check (`L`) once too many have failed, and counts a failed one. The
 * HTTP edge limits per address and per e-mail; `unguarded` limits nothing.
 */
export type SignInGuard<L> = (
  email: string,
  check: TE.TaskEither<InvalidCredentials | StoreUnavailable, Operator>,
) => TE.TaskEither<L | InvalidCredentials | StoreUnavailable, Operator>

/** The guard of a caller that limits nothing (a test, a tool that limits attempts itself). */
export const unguarded: SignInGuard<never> = (_email, check) => check

/**
 * The password check: an enabled operator's right password is its operator; a wrong e-mail, a
 * wrong password, an operator without a password and a disabled operator are one
 * `InvalidCredentials`, and every one of them costs a hash check, so the answer's time does not
 * tell them apart.
 */
const checkPassword =
  (deps: Pick<SignInOperatorDeps, 'operators' | 'operatorSecrets'>) =>
  (email: string, password: string): TE.TaskEither<InvalidCredentials | StoreUnavailable, Operator> =>
    pipe(
      deps.operators.credentialsOf(email),
      TE.chainW((found) =>
        TE.fromTask(async () => {
          const checked = O.toUndefined(found)
          const matches = await deps.operatorSecrets.passwordMatches(password, checked?.passwordHash ?? deps.operatorSecrets.decoyHash)()
          return matches && checked !== undefined && checked.passwordHash !== null && checked.operator.disabledAt === null ? E.right(checked.operator) : E.left(invalidCredentials)
        }),
      ),
      TE.chainW(TE.fromEither),
    )

/**
 * Opens a session of `options.sessionTtlMs` for `operator`, audited as `operator.signed_in`;
 * `InvalidCredentials` when the operator was disabled meanwhile. The seam of single sign-on: an
 * operator proven by an identity provider is signed in here, as a password proves one.
 */
export const openOperatorSession =
  (deps: Pick<SignInOperatorDeps, 'operators' | 'operatorSecrets' | 'ids' | 'clock'>) =>
  (operator: Operator, options: SignInOptions): TE.TaskEither<InvalidCredentials | StoreUnavailable, SignedIn> => {
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
      TE.chainW((opened) => (opened ? TE.right({ operator, session, token, csrfToken: deps.operatorSecrets.csrfTokenOf(token) }) : TE.left(invalidCredentials))),
    )
  }

/**
 * Signs an operator in with its e-mail (any case) and password: the password checked under
 * `guard`, then `openOperatorSession`.
 */
export const signInOperator =
  (deps: SignInOperatorDeps) =>
  <L = never>(command: unknown, options: SignInOptions, guard: SignInGuard<L> = unguarded as SignInGuard<L>): TE.TaskEither<L | InvalidRequest | InvalidCredentials | StoreUnavailable, SignedIn> =>
    pipe(
      TE.fromEither(decode(SignInInput)(command)),
      TE.chainW(({ email, password }) => {
        const address = email.toLowerCase()
        return guard(address, checkPassword(deps)(address, password))
      }),
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

/** Signs out: the session ends now, audited as `operator.signed_out`. */
export const signOutOperator =
  (deps: Pick<OperatorSessionDeps, 'operators' | 'clock'> & { readonly ids: IdGenerator }) =>
  ({ operator, session }: SessionOperator, requestId: string | null): TE.TaskEither<StoreUnavailable, void> => {
    const now = deps.clock.now()
    return deps.operators.revokeSession(session.id, now, operatorSignedOutEvent(deps.ids.next(), requestId, operator, session, now))
  }
