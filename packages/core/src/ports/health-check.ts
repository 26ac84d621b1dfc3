/**
 * What readiness and the migration gate ask of the store. `whenSchemaCurrent` resolves false once
 * it never will be current in this process; it sets no timer.
 */
export type HealthCheck = {
  readonly storeReachable: () => Promise<boolean>
  readonly schemaCurrent: () => boolean
  readonly whenSchemaCurrent: () => Promise<boolean>
}
