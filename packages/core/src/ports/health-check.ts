/** Whether the data store answers; used by the readiness probe. */
export type HealthCheck = { readonly storeReachable: () => Promise<boolean> }
