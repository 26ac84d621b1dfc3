import Router from '@koa/router'
import { runNamedOnPool, sessionOfClientStatement } from '@lendgate/api/request-duties'
import Koa from 'koa'
import pg from 'pg'
import { listenOn, requiredEnv } from './listen.js'

/**
 * Baseline 3: the ceiling of the stack, one Koa route doing the same single indexed query as the
 * API's authenticated GET (the repository's own SQL: one onboarding session of one client by
 * primary key with its addresses, as one JSON value; decisions 52 and 55), through a `pg` Pool of the
 * API's size, prepared by name and run as the API runs it (decisions 51 and 53: a query object
 * `pg` does not copy). Nothing else: no key, no log line, no headers, the row sent as it comes.
 */
const clientId = requiredEnv('BENCH_CLIENT_ID')
const SESSION_READ = sessionOfClientStatement()
const pool = new pg.Pool({ connectionString: requiredEnv('DATABASE_URL'), max: 10 })
const app = new Koa()
const router = new Router()
router.get('/sessions/:id', async (ctx) => {
  const { rows } = await runNamedOnPool(pool, SESSION_READ.name, SESSION_READ.text, [ctx.params['id'], clientId])
  if (rows[0] === undefined) ctx.status = 404
  else ctx.body = rows[0]
})
app.use(router.routes())
listenOn(app.callback())
