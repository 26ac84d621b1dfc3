import Router, { type RouterMiddleware } from '@koa/router'
import * as E from 'fp-ts/lib/Either.js'
import type { Middleware } from 'koa'
import type { Config } from '../config.js'
import { WORLDS, type TestClockRepository } from '@lendgate/core'
import * as O from 'fp-ts/lib/Option.js'
import { inWorld, type AppDeps } from '../deps.js'
import { readBody, readFileBody } from '../http/body.js'
import { callerChecks, type CallerChecks } from '../http/caller.js'
import { announceDeprecation } from '../http/deprecation.js'
import { requestCommand } from '../http/command.js'
import type { AppContext, AppState } from '../http/context.js'
import { sealedCursors } from '../http/cursors.js'
import { idempotency } from '../http/idempotency.js'
import { METRICS_PATH } from '../http/probes.js'
import { readsBehind } from '../http/reads-behind.js'
import { answer, answerProblem } from '../http/respond.js'
import { isNotedWrite, OPERATIONS, type Operation } from './operations.js'
import type { Routes } from './route.js'

/** Spec §7: a route without its real handler yet answers 501 with its operationId. */
const placeholder =
  (op: Operation): Middleware<AppState> =>
  (ctx) =>
    answerProblem(ctx, { _tag: 'NotImplemented', operationId: op.operationId })

/** The header an internal request names the world it acts on with (`live`, the default, or `test`). */
const MODE_HEADER = 'Lendgate-Mode'

/**
 * Sets the world the request acts on (decision 128): a partner key's environment; on an internal
 * route, `MODE_HEADER` (live without it); live on the rest (minting, probes).
 */
const worldOf =
  (op: Operation): Middleware<AppState> =>
  (ctx, next) => {
    if (op.auth === 'partner') ctx.state.world = ctx.state.caller?.environment ?? 'live'
    else if (op.auth === 'internal') {
      const mode = ctx.get(MODE_HEADER)
      if (mode !== '' && !(WORLDS as readonly string[]).includes(mode)) {
        return answerProblem(ctx, { _tag: 'InvalidRequest', detail: `${MODE_HEADER} must be live or test.`, param: MODE_HEADER })
      }
      ctx.state.world = mode === 'test' ? 'test' : 'live'
    } else ctx.state.world = 'live'
    return next()
  }

/**
 * On a test-world partner request, the caller's party's test clock, if it has one (decision 131):
 * the request reads its frozen time as now. One read by an index; a live request reads nothing.
 */
const testClockOf =
  (clocks: Pick<TestClockRepository, 'findForParty'>): Middleware<AppState> =>
  async (ctx, next) => {
    const caller = ctx.state.caller
    if (ctx.state.world === 'test' && caller !== undefined) {
      const found = await clocks.findForParty(caller.partyId)()
      if (E.isLeft(found)) return answerProblem(ctx, found.left)
      if (O.isSome(found.right)) ctx.state.frozenAt = found.right.value.frozenTime
    }
    return next()
  }

/** The route table as Koa middleware, and its layers (for tests that compare it with the OpenAPI document). */
export type RouteTable = {
  /** Runs the route a request matches; a request no route takes goes on to `next`. */
  readonly routes: Middleware<AppState>
  /** Every registered layer, for tests that compare the table with the OpenAPI document. */
  readonly layers: () => readonly { readonly path: string | RegExp; readonly methods: readonly string[] }[]
}

/**
 * Registers every operation of the table on one @koa/router, named by its operationId (the access
 * line's `operation`). Each runs who-is-calling's checks for its `auth` (`callers`), then either the
 * 501 placeholder (`PLACEHOLDER_OPERATIONS`) or: on a write, its body (`readBody`, the only reader of
 * a body, after authentication) and, under /public, idempotency; on a GET, the sealing of list
 * cursors; then its command, its `run` and the answer. A deprecated operation announces it first
 * (`announceDeprecation`). `HEAD` is served by the `GET` routes. `operations` is the route table
 * (tests mark one deprecated).
 */
export const buildRouter = (
  deps: AppDeps,
  config: Config,
  routesOf: (deps: AppDeps) => Routes,
  callers: CallerChecks = callerChecks(deps, config),
  operations: readonly Operation[] = OPERATIONS,
): RouteTable => {
  const router = new Router<AppState>()
  // Each world's handlers are built on its own stores, so a handler reaches one world only (decision 128).
  const worlds = { live: deps, test: inWorld(deps, 'test') }
  const handlers = { live: routesOf(worlds.live), test: routesOf(worlds.test) }
  // Each read replica's (decision 156): the same, on the replica's stores; only reads that may be behind use them.
  const replicaWorlds = (deps.replicaReads?.replicas ?? []).map(({ stores }) => ({ live: { ...worlds.live, ...stores.live }, test: { ...worlds.test, ...stores.test } }))
  const replicaHandlers = replicaWorlds.map((replica) => ({ live: routesOf(replica.live), test: routesOf(replica.test) }))
  const reads = readsBehind(deps.replicaReads, deps.clock, deps.metrics)
  for (const op of operations) {
    const route = config.placeholderOperations.has(op.operationId) ? undefined : handlers.live[op.operationId as keyof Routes]
    const chain: Middleware<AppState>[] = [...(op.deprecated === undefined ? [] : [announceDeprecation(op.deprecated)]), ...callers.forOperation(op)]
    if (route === undefined) chain.push(placeholder(op))
    else {
      chain.push(worldOf(op))
      if (op.auth === 'partner') chain.push(testClockOf(worlds.test.testClocks))
      // A write of a known writer says when it committed, and its writer's reads wait for it (decision 156).
      if (op.method !== 'GET') chain.push(...(isNotedWrite(op) ? [reads.noteWrite] : []), op.fileBody === true ? readFileBody : readBody(op.jsonBody))
      else chain.push(sealedCursors(deps.cursors, op.operationId))
      if (op.method !== 'GET' && op.path.startsWith('/public/')) {
        chain.push(
          idempotency({
            store: (world) => worlds[world].idempotency,
            clock: deps.clock,
            required: op.idempotencyKeyRequired === true,
            ...(route.forReplay ? { forReplay: route.forReplay } : {}),
          }),
        )
      }
      const sources = { idempotencyKey: op.idempotencyKeyRequired === true, fieldsInQuery: op.fieldsInQuery === true }
      const id = op.operationId as keyof Routes
      chain.push((ctx) => {
        const command = requestCommand(ctx as AppContext, sources)
        const world = ctx.state.world ?? 'live'
        const frozenAt = ctx.state.frozenAt
        // A party on a test clock: the test world's handlers, built on the clock's time.
        const runOn = (source: typeof worlds, built: typeof handlers) => (frozenAt === undefined ? built[world] : routesOf({ ...source.test, clock: { now: () => frozenAt } }))[id].run
        const onReplica = (index: number) => {
          const [source, built] = [replicaWorlds[index], replicaHandlers[index]]
          if (source === undefined || built === undefined) throw new Error(`no read replica ${index}`)
          return runOn(source, built)
        }
        // A request at a test clock's time read that time from the primary: its data comes from there too.
        const run = op.readsBehind === true ? reads.run(ctx as AppContext, frozenAt === undefined ? onReplica : undefined, runOn(worlds, handlers)) : runOn(worlds, handlers)
        return E.isLeft(command) ? answerProblem(ctx, command.left) : answer(ctx as AppContext, op.successStatus, run(ctx as AppContext, command.right))
      })
    }
    router.register(op.path, [op.method], chain as RouterMiddleware<AppState>[], { name: op.operationId })
  }
  return { routes: router.routes() as Middleware<AppState>, layers: () => router.stack }
}

/**
 * What the route table did not take: `/metrics` (`metricsPage`, outside the table), a path that
 * exists under another method (405 with `Allow`; `OPTIONS` gets 204 and `Allow`), anything else a
 * JSON 404. The last middleware; the router lists the layers whose path matched (`ctx.matched`),
 * whatever their method.
 */
export const routeFallback = (metricsPage: Middleware<AppState>): Middleware<AppState> => (ctx, next) => {
  if (ctx.status !== 404 || ctx.body !== undefined) return
  if (ctx.path === METRICS_PATH) return metricsPage(ctx, next)
  const matched = (ctx as { matched?: readonly { readonly methods: readonly string[] }[] }).matched ?? []
  const allowed = [...new Set(matched.flatMap((layer) => layer.methods))]
  if (allowed.length === 0) return answerProblem(ctx, { _tag: 'RouteNotFound', method: ctx.method, path: ctx.path })
  const allow = [...new Set([...allowed, 'OPTIONS'])]
  if (ctx.method === 'OPTIONS') {
    ctx.status = 204
    ctx.set('Allow', allow.join(', '))
    return
  }
  answerProblem(ctx, { _tag: 'MethodNotAllowed', allowed: allow })
}
