import { checkOperatorCredentials, openOperatorSession, operatorSessionView, signOutOperator, type Operator } from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Config } from '../config.js'
import type { AppDeps } from '../deps.js'
import { OPERATOR_SESSION_COOKIE, signInAttemptLimits } from '../http/caller.js'
import type { AppContext } from '../http/context.js'
import type { Problem } from '../http/problems.js'
import { routes } from './route.js'

/**
 * The cookie that carries a session's token: readable by no script (`HttpOnly`), sent over HTTPS
 * only (`Secure`; http://localhost counts), on no request another site starts (`SameSite=Strict`),
 * for the session's life; `Max-Age=0` clears it.
 */
const sessionCookie = (token: string, maxAgeSeconds: number): string =>
  `${OPERATOR_SESSION_COOKIE}=${token}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; Secure; SameSite=Strict`

/** The named operator of a route whose `auth` is `session`; the session gate always sets it. */
const signedIn = (ctx: AppContext) => {
  const operator = ctx.state.operator
  if (operator === undefined) throw new Error('session route without a console session')
  return operator
}

/**
 * The console's sessions (decision 149, docs/console.md): signing in with an e-mail and password,
 * reading the session (with its CSRF token, for a page that was reloaded), signing out.
 */
export const operatorSessionRoutes = (deps: AppDeps, config: Pick<Config, 'operatorSessionMinutes' | 'rateLimits'>) => {
  const attempts = signInAttemptLimits(deps, config.rateLimits)
  const sessionTtlMs = config.operatorSessionMinutes * 60_000
  return routes({
    signInOperator: {
      run: (ctx, command) =>
        pipe(
          checkOperatorCredentials(deps)(command),
          TE.chainW(({ email, verdict }) => async (): Promise<E.Either<Problem, Operator>> => {
            // A failure counts in both buckets; past either limit, the answer is 429 whatever the verdict.
            const attempt = () => pipe(verdict, E.map(() => undefined))
            for (const limited of [attempts.byAddress, attempts.byAccount(email)]) {
              const counted = await limited(ctx, attempt)
              if (E.isLeft(counted) && counted.left._tag === 'RateLimitExceeded') return counted
            }
            return verdict
          }),
          TE.chainW((operator) => openOperatorSession(deps)(operator, { sessionTtlMs, requestId: ctx.state.requestId })),
          TE.map((opened) => {
            ctx.append('Set-Cookie', sessionCookie(opened.token, Math.floor(sessionTtlMs / 1000)))
            return operatorSessionView(opened, opened.csrfToken)
          }),
        ),
    },
    getOperatorSession: {
      run: (ctx) => {
        const current = signedIn(ctx)
        return TE.right(operatorSessionView(current, deps.operatorSecrets.csrfTokenOf(current.token)))
      },
    },
    signOutOperator: {
      run: (ctx) => {
        const current = signedIn(ctx)
        return pipe(
          signOutOperator(deps)(current.session),
          TE.map(() => {
            ctx.append('Set-Cookie', sessionCookie('', 0))
            return { session_id: current.session.id, signed_out: true }
          }),
        )
      },
    },
  })
}
