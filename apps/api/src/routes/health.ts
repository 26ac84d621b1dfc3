import type { AppDeps } from '../deps.js'
import type { Routes } from './route.js'

/** Liveness (no dependencies) and readiness (the database answers). Neither needs a key. */
export const healthRoutes = (deps: AppDeps): Routes => ({
  health: {
    handle: async (ctx) => {
      ctx.status = 200
      ctx.body = { status: 'ok' }
    },
  },
  healthReady: {
    handle: async (ctx) => {
      const reachable = await deps.health.storeReachable()
      ctx.status = reachable ? 200 : 503
      ctx.body = reachable ? { status: 'ready', database: 'up' } : { error: 'not_ready', detail: 'The database is unreachable.' }
    },
  },
})
