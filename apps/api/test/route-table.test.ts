import Router from '@koa/router'
import { expect } from 'chai'
import fc from 'fast-check'
import Koa, { type Middleware } from 'koa'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { allRoutes } from '../src/app.js'
import type { AppState } from '../src/http/context.js'
import { OPERATIONS } from '../src/routes/operations.js'
import { buildRouter } from '../src/routes/router.js'
import { startInMemoryServer, testConfig, type TestServer } from './support/test-server.js'

/**
 * The route table dispatches by shape (routes/router.ts) and runs a route's chain itself. Its
 * oracle is @koa/router's own middleware over every operation in one router: for any method
 * and path, both must pick the same operation with the same path parameters, or none.
 */

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']
const ROUTE_HEADER = 'x-test-route'

/** What routing decided, put in a header (a HEAD answer has no body) whatever the chain did. */
const recording =
  (routing: Middleware<AppState>): Koa<AppState> => {
    const app = new Koa<AppState>()
    app.silent = true
    app.use(async (ctx, next) => {
      try {
        await next()
      } catch {
        // The chain's own answer (401, 403, 501, …) does not matter here.
      }
      const routed = ctx as unknown as { routerName?: string; params?: Record<string, string> }
      ctx.status = 200
      ctx.body = 'routed'
      ctx.set(ROUTE_HEADER, JSON.stringify(routed.routerName === undefined ? null : { name: routed.routerName, params: routed.params }))
    })
    app.use(routing)
    return app
  }

const listen = async (app: Koa<AppState>): Promise<{ server: Server; url: string }> => {
  const server = createServer(app.callback())
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
}

describe('the route table', () => {
  let deps: TestServer
  let table: { server: Server; url: string }
  let oracle: { server: Server; url: string }
  before(async () => {
    deps = await startInMemoryServer()
    table = await listen(recording(buildRouter(deps.deps, testConfig(), allRoutes(deps.deps)).dispatch))
    const router = new Router<AppState>()
    for (const op of OPERATIONS) router.register(op.path, [op.method], [async () => undefined], { name: op.operationId })
    oracle = await listen(recording(router.routes() as Middleware<AppState>))
  })
  after(async () => {
    for (const { server } of [table, oracle]) await new Promise((resolve) => server.close(resolve))
    await deps.stop()
  })

  const routeOf = async (url: string, method: string, path: string): Promise<unknown> => {
    const reply = await fetch(`${url}${path}`, { method })
    expect(reply.status, `${method} ${path}`).to.equal(200)
    return JSON.parse(reply.headers.get(ROUTE_HEADER) ?? 'undefined')
  }
  const expectSameRoute = async (method: string, path: string): Promise<unknown> => {
    const [ours, theirs] = await Promise.all([routeOf(table.url, method, path), routeOf(oracle.url, method, path)])
    expect(ours, `${method} ${path}`).to.deep.equal(theirs)
    return ours
  }

  it('routes every operation, spelled in every way the router accepts, as @koa/router does', async () => {
    let routed = 0
    for (const op of OPERATIONS) {
      const path = op.path.replace(/:[A-Za-z]+/g, (name) => `${name.slice(1)}-%41%2Fx`)
      const spellings = [path, `${path}/`, path.toUpperCase(), `${path}//`, `${path}/extra`, path.replace(/\/[^/]+$/, ''), `/public/v1${path}`, path.replace('%41', '%ZZ')]
      for (const method of METHODS) {
        for (const spelling of spellings) if ((await expectSameRoute(method, spelling)) !== null) routed++
      }
      // The check is not vacuous: the operation's own method and path find it, with its parameters decoded.
      const own = (await expectSameRoute(op.method, path)) as { name: string; params: Record<string, string> }
      expect(own.name).to.equal(op.operationId)
      for (const value of Object.values(own.params)) expect(value).to.match(/-A\/x$/)
    }
    expect(routed).to.be.greaterThan(OPERATIONS.length * 3)
  })

  it('routes any path as @koa/router does (property)', async () => {
    const segment = fc.oneof(
      fc.constantFrom('public', 'PUBLIC', 'internal', 'health', 'parties', 'Parties', 'loans', 'onboarding-sessions', 'balances', 'latest', 'openapi.json', 'v1', ''),
      fc.stringMatching(/^[A-Za-z0-9%._~-]{1,12}$/),
    )
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...METHODS), fc.array(segment, { maxLength: 8 }), fc.boolean(), async (method, segments, slash) => {
        await expectSameRoute(method, `/${segments.join('/')}${slash ? '/' : ''}`)
      }),
      { numRuns: 400 },
    )
  })
})
