import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { AppDeps } from '../deps.js'
import { notReady } from '../http/problems.js'
import { routes } from './route.js'

/** Liveness (no dependencies) and readiness (the database answers). Neither needs a key. */
export const healthRoutes = (deps: AppDeps) =>
  routes({
    health: {
      run: () => TE.right({ status: 'ok' }),
    },
    healthReady: {
      run: () => async () => ((await deps.health.storeReachable()) ? E.right({ status: 'ready', database: 'up' }) : E.left(notReady)),
    },
  })
