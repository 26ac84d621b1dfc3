/**
 * News of revoked keys from other instances (issue 8): `revoked` names a key's id segment;
 * `reset` says news may have been missed (a lost connection), so everything cached must go.
 */
export type KeyRevocationEvent = { readonly kind: 'revoked'; readonly idSegment: string } | { readonly kind: 'reset' }

export type KeyRevocations = {
  /** Calls `listener` for each event until the returned function is called. */
  readonly subscribe: (listener: (event: KeyRevocationEvent) => void) => () => void
}
