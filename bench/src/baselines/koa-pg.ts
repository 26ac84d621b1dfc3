import Router from '@koa/router'
import Koa from 'koa'
import pg from 'pg'
import { listenOn, requiredEnv } from './listen.js'
import { readSession } from './session-read.js'

/**
 * Baseline 3: the ceiling of the stack, one Koa route doing the same single indexed query as the
 * API's authenticated GET (`readSession`: one onboarding session of one client by primary key
 * with its addresses) through a `pg` Pool of the API's size. Nothing else: no key, no log line,
 * no headers, the row sent as it comes.
 */
const clientId = requiredEnv('BENCH_CLIENT_ID')
const pool = new pg.Pool({ connectionString: requiredEnv('DATABASE_URL'), max: 10 })
const app = new Koa()
const router = new Router()
router.get('/sessions/:id', async (ctx) => {
  const session = await readSession(pool, ctx.params['id'] ?? '', clientId)
  if (session === undefined) ctx.status = 404
  else ctx.body = session
})
app.use(router.routes())
listenOn(app.callback())
