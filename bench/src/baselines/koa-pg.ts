import Router from '@koa/router'
import Koa from 'koa'
import pg from 'pg'
import { listenOn } from './listen.js'

/**
 * Baseline 3: the ceiling of the stack, one Koa route doing the read the API's authenticated
 * GET does (one onboarding session by primary key) through a `pg` Pool of the API's size.
 */
const pool = new pg.Pool({ connectionString: process.env['DATABASE_URL'], max: 10 })
const app = new Koa()
const router = new Router()
router.get('/sessions/:id', async (ctx) => {
  const { rows } = await pool.query('select * from onboarding_sessions where id = $1', [ctx.params['id']])
  if (rows[0] === undefined) ctx.status = 404
  else ctx.body = rows[0]
})
app.use(router.routes())
listenOn(app.callback())
