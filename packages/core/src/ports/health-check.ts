/**
 * What the readiness probe asks of the data store.
 *
 * @property storeReachable - Resolves whether a trivial round trip to the data store succeeds now.
 * @property schemaCurrent - Whether the store's schema is known to hold every migration this build
 * needs: false until the process has applied them or found them applied, at start.
 */
export type HealthCheck = { readonly storeReachable: () => Promise<boolean>; readonly schemaCurrent: () => boolean }
