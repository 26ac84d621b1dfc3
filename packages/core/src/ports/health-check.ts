/**
 * What readiness and the migration gate ask of the store. `whenSchemaCurrent` resolves false once
 * it never will be current in this process; it sets no timer.
 */
export type HealthCheck = {
  /** Whether a trivial round trip succeeds now. */
  readonly storeReachable: () => Promise<boolean>
  /** Whether this build's migrations are known applied. */
  readonly schemaCurrent: () => boolean
  /** True once current, false once it never will be. */
  readonly whenSchemaCurrent: () => Promise<boolean>
}
