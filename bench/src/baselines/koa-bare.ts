import Router from '@koa/router'
import Koa from 'koa'
import { listenOn } from './listen.js'

/** Baseline 2: the ceiling of the framework, one Koa + @koa/router route answering JSON. */
const app = new Koa()
const router = new Router()
router.get('/bench/:id', (ctx) => {
  ctx.body = { status: 'ok', id: ctx.params['id'] }
})
app.use(router.routes())
listenOn(app.callback())
