import * as TE from 'fp-ts/lib/TaskEither.js'
import type { AppDeps } from '../deps.js'
import { readiness } from '../http/operational.js'
import { routes } from './route.js'

/** Liveness (no dependencies) and readiness (the schema is migrated and the database answers). Neither needs a key. */
export const healthRoutes = (deps: AppDeps) =>
  routes({
    health: {
      run: () => TE.right({ status: 'ok' }),
    },
    healthReady: {
      run: () => () => readiness(deps.health),
    },
  })
