import { createHash, timingSafeEqual } from 'node:crypto'
import Router from '@koa/router'
import { answerProblem, createLogger, invalidApiKey, requestLifecycle, securityHeaders } from '@lendgate/api/request-duties'
import Koa from 'koa'
import pg from 'pg'
import { listenOn } from './listen.js'

/**
 * The reference: a bare Koa route doing, besides the API's read, only what every API request
 * must do whatever the code behind it, each by the API's own code: the request id and access
 * line (the API's lifecycle middleware and logger, at `LOG_LEVEL`), the security headers, a
 * partner key checked by its SHA-256 in constant time (as a cached key is), an unknown key
 * refused through the API's error mapping, and the API's session read (its SQL: the session
 * with its addresses as a JSON array) through a `pg` Pool of the API's size. No routing table,
 * scopes, rate limits, domain mapping or fp-ts: what it reaches against the bare baselines is
 * the most any implementation of these duties could reach on this machine.
 */
const SESSION_WITH_ADDRESSES =
  'select "s".*, (select coalesce(json_agg(agg), \'[]\') from (select "a".* from "onboarding_addresses" as "a" ' +
  'where "a"."session_id" = "s"."id" order by "a"."created_at", "a"."id") as agg) as "addresses" ' +
  'from "onboarding_sessions" as "s" where "s"."id" = $1 and "s"."client_id" = $2'

const env = (name: string): string => {
  const value = process.env[name]
  if (value === undefined) throw new Error(`${name} is not set`)
  return value
}
const keyHash = Buffer.from(env('REFERENCE_KEY_SHA256'), 'hex')
const clientId = env('REFERENCE_CLIENT_ID')
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i

const pool = new pg.Pool({ connectionString: env('DATABASE_URL'), max: 10 })
const app = new Koa()
const router = new Router()
router.get('/public/onboarding-sessions/:sessionId', async (ctx) => {
  const presented = BEARER.exec(ctx.get('Authorization'))?.[1] ?? ''
  if (!timingSafeEqual(createHash('sha256').update(presented, 'utf8').digest(), keyHash)) return answerProblem(ctx, invalidApiKey)
  const { rows } = await pool.query(SESSION_WITH_ADDRESSES, [ctx.params['sessionId'], clientId])
  if (rows[0] === undefined) ctx.status = 404
  else ctx.body = rows[0]
})
app.use(requestLifecycle(createLogger(process.env['LOG_LEVEL'] ?? 'info')))
app.use(securityHeaders)
app.use(router.routes())
listenOn(app.callback())
