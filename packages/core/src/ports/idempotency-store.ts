import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/errors.js'

/** The response kept for replay. `body` is the JSON text exactly as first sent. */
export type StoredResponse = { readonly status: number; readonly body: string }

/** The outcome of claiming an Idempotency-Key. */
export type IdempotencyClaim =
  /** First use (or a stale claim taken over): run the request, then `complete` or `release`. */
  | { readonly _tag: 'Claimed' }
  /** Same key, same request, finished: answer with the stored response. */
  | { readonly _tag: 'Replay'; readonly response: StoredResponse }
  /** Same key, different method, path or body. */
  | { readonly _tag: 'Mismatch' }
  /** Same key and request, still being processed by another call. */
  | { readonly _tag: 'InProgress' }

export type IdempotencyKeyRef = {
  /** Whose key space: the API client id, or a fixed name for operator routes. */
  readonly scope: string
  readonly key: string
}

/**
 * Remembers Idempotency-Keys (CONTRACT.md "Idempotency"). A claim is exclusive: of concurrent
 * claims of one new key exactly one gets `Claimed`. A claim left unfinished past its lease
 * (the process died) can be claimed again. Keys are kept for `retentionMs` after first use.
 */
export type IdempotencyStore = {
  readonly claim: (
    ref: IdempotencyKeyRef,
    fingerprint: string,
    now: Date,
  ) => TE.TaskEither<StoreUnavailable, IdempotencyClaim>
  readonly complete: (ref: IdempotencyKeyRef, response: StoredResponse, now: Date) => TE.TaskEither<StoreUnavailable, void>
  /** Forgets an unfinished claim so the same key can be retried (used when the request failed with a 5xx). */
  readonly release: (ref: IdempotencyKeyRef) => TE.TaskEither<StoreUnavailable, void>
  /** Deletes keys first used more than the retention period before `now`; returns how many. */
  readonly purgeExpired: (now: Date) => TE.TaskEither<StoreUnavailable, number>
}

/** How long a finished key is remembered, and how long an unfinished claim is honoured. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000
export const IDEMPOTENCY_LEASE_MS = 60 * 1000
