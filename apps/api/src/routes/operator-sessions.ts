import { operatorOfSession, operatorSessionView, signInOperator, signOutOperator } from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Config } from '../config.js'
import type { AppDeps } from '../deps.js'
import { CLEARED_SESSION_COOKIE, OPERATOR_SESSION_COOKIE, presentedSessionToken, signInGuards } from '../http/caller.js'
import type { AppContext } from '../http/context.js'
import { routes } from './route.js'

/**
 * The cookie that carries a session's token: readable by no script (`HttpOnly`), sent over HTTPS
 * only (`Secure`; http://localhost counts), on no request another site starts (`SameSite=Strict`),
 * for the session's life.
 */
const sessionCookie = (token: string, maxAgeSeconds: number): string => `${OPERATOR_SESSION_COOKIE}=${token}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; Secure; SameSite=Strict`

/** The named operator of a route whose `auth` is `session`; the session gate always sets it. */
const signedIn = (ctx: AppContext) => {
  const operator = ctx.state.operator
  if (operator === undefined) throw new Error('session route without a console session')
  return operator
}

/**
 * The console's sessions (decision 149, docs/api.md "Operators and console sessions"): signing in
 * with an e-mail and password (failed attempts limited: `signInGuards`), reading the session (with
 * its CSRF token, for a page that was reloaded), signing out.
 */
export const operatorSessionRoutes = (deps: AppDeps, config: Pick<Config, 'operatorSessionMinutes' | 'rateLimits'>) => {
  const sessionTtlMs = config.operatorSessionMinutes * 60_000
  const sessionOf = operatorOfSession(deps)
  const guardOf = signInGuards(deps, config.rateLimits)
  const signOut = signOutOperator(deps)
  /** Signing in ends the session the browser still presents, if any: a new sign-in never leaves an old session behind it. */
  const endPresented = (ctx: AppContext): TE.TaskEither<never, void> => async () => {
    const token = presentedSessionToken(ctx)
    const found = token === undefined ? undefined : await sessionOf(token)()
    if (found !== undefined && E.isRight(found)) await signOut(found.right, ctx.state.requestId)()
    return E.right(undefined)
  }
  return routes({
    signInOperator: {
      run: (ctx, command) =>
        pipe(
          signInOperator(deps)(command, { sessionTtlMs, requestId: ctx.state.requestId }, guardOf(ctx)),
          TE.chainFirstW(() => endPresented(ctx)),
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
          signOut(current, ctx.state.requestId),
          TE.map(() => {
            ctx.append('Set-Cookie', CLEARED_SESSION_COOKIE)
            return { session_id: current.session.id, signed_out: true }
          }),
        )
      },
    },
  })
}
