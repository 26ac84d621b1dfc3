/** `reset`: news may have been missed, so every cached key must go. */
export type KeyRevocationEvent = { readonly kind: 'revoked'; readonly idSegment: string } | { readonly kind: 'reset' }

/** Revocations from other instances (LISTEN/NOTIFY in the adapters). */
export type KeyRevocations = {
  /** Until the returned function is called. */
  readonly subscribe: (listener: (event: KeyRevocationEvent) => void) => () => void
}
