/**
 * What the readiness probe, and the gate that holds requests while the schema is migrated, ask
 * of the data store.
 *
 * @property storeReachable - Resolves whether a trivial round trip to the data store succeeds now.
 * @property schemaCurrent - Whether the store's schema is known to hold every migration this build
 * needs: false until the process has applied them or found them applied, at start.
 * @property whenSchemaCurrent - Resolves true once `schemaCurrent` is (at once when it already is),
 * or false once it never will be in this process (its start failed, or it is closing). Every call
 * answers the same outcome; it sets no timer, so a caller bounds its own wait.
 */
export type HealthCheck = {
  readonly storeReachable: () => Promise<boolean>
  readonly schemaCurrent: () => boolean
  readonly whenSchemaCurrent: () => Promise<boolean>
}
