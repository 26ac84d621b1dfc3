/**
 * News of revoked keys from other instances (issue 8): `revoked` names a key's id segment;
 * `reset` says news may have been missed (a lost connection), so everything cached must go.
 */
export type KeyRevocationEvent = { readonly kind: 'revoked'; readonly idSegment: string } | { readonly kind: 'reset' }

/**
 * The feed of `KeyRevocationEvent`s that keeps key caches of every instance honest (the adapters
 * use PostgreSQL LISTEN/NOTIFY).
 */
export type KeyRevocations = {
  /** Calls `listener` for each event until the returned function is called. */
  readonly subscribe: (listener: (event: KeyRevocationEvent) => void) => () => void
}
