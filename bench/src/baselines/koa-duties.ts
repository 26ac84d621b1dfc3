import Router from '@koa/router'
import Koa from 'koa'
import pg from 'pg'
import { listenOn, requiredEnv } from './listen.js'
import { answerProblem, createLogger, createMetrics, invalidApiKey, nodeApiKeyMaterial, presentedApiKey, requestLifecycle } from './request-duties.js'
import { readSession } from './session-read.js'

/**
 * The reference: a bare Koa route doing, besides the API's read, only what every API request
 * must do whatever the code behind it, each by the API's own code: the request id, access
 * line, request metrics and security headers (the API's lifecycle middleware, logger and metrics, at `LOG_LEVEL`), a
 * partner key taken from the request as the API takes it and compared with its stored SHA-256
 * by the API's own key material (as a cached key is), an unknown key refused through the API's
 * error mapping, and the session read (`readSession`: the session with its addresses, the API's
 * work in plain SQL) through a `pg` Pool of the API's size. No routing table, scopes, rate limits, domain mapping or fp-ts: what it
 * reaches against the bare baselines is the most any implementation of these duties could
 * reach on this machine.
 */
const keyHash = requiredEnv('REFERENCE_KEY_SHA256')
const keyMaterial = nodeApiKeyMaterial()
const clientId = requiredEnv('BENCH_CLIENT_ID')

const pool = new pg.Pool({ connectionString: requiredEnv('DATABASE_URL'), max: 10 })
const app = new Koa()
const router = new Router()
router.get('/public/onboarding-sessions/:sessionId', async (ctx) => {
  const presented = presentedApiKey(ctx) ?? ''
  if (!keyMaterial.matches(presented, keyHash)) return answerProblem(ctx, invalidApiKey)
  const session = await readSession(pool, ctx.params['sessionId'] ?? '', clientId)
  if (session === undefined) ctx.status = 404
  else ctx.body = session
})
app.use(requestLifecycle(createLogger('lendgate-api', process.env['LOG_LEVEL'] ?? 'info'), createMetrics()))
app.use(router.routes())
listenOn(app.callback())
