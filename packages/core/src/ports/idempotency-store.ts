import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'

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

/** An Idempotency-Key and the key space it belongs to: the same key sent by two clients is two keys. */
export type IdempotencyKeyRef = {
  /** Whose key space: the API client id, or a fixed name for operator routes. */
  readonly scope: string
  /** The key as the client sent it. */
  readonly key: string
}

/**
 * Remembers Idempotency-Keys (CONTRACT.md "Idempotency") for the HTTP layer, which claims a key
 * before running a write and stores the response after. A claim is exclusive: of concurrent claims
 * of one new key exactly one gets `Claimed`. A claim left unfinished for `IDEMPOTENCY_LEASE_MS` (the
 * process died) can be claimed again. Keys are kept for `IDEMPOTENCY_RETENTION_MS` after first use.
 */
export type IdempotencyStore = {
  /** Claims `ref` for the request whose method, path and body hash to `fingerprint`; see `IdempotencyClaim`. */
  readonly claim: (
    ref: IdempotencyKeyRef,
    fingerprint: string,
    now: Date,
  ) => TE.TaskEither<StoreUnavailable, IdempotencyClaim>
  /** Stores the response of a claimed request, for replay to every later use of the key. */
  readonly complete: (ref: IdempotencyKeyRef, response: StoredResponse, now: Date) => TE.TaskEither<StoreUnavailable, void>
  /** Forgets an unfinished claim so the same key can be retried (used when the request failed with a 5xx). */
  readonly release: (ref: IdempotencyKeyRef) => TE.TaskEither<StoreUnavailable, void>
  /** Deletes keys first used more than the retention period before `now`; returns how many. */
  readonly purgeExpired: (now: Date) => TE.TaskEither<StoreUnavailable, number>
}

/** How long a key is remembered after its first use (24 hours); after that it may be used afresh. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000
/** How long an unfinished claim is honoured (one minute) before another request may take it over. */
export const IDEMPOTENCY_LEASE_MS = 60 * 1000
