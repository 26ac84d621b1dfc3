/**
 * Whether the data store answers; the readiness probe asks it.
 *
 * @property storeReachable - Resolves whether a trivial round trip to the data store succeeds now.
 */
export type HealthCheck = { readonly storeReachable: () => Promise<boolean> }
