import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'

/** `body` is the JSON text exactly as first sent. */
export type StoredResponse = { readonly status: number; readonly body: string }

/** The outcome of claiming a key. */
export type IdempotencyClaim =
  /** First use, or a stale claim taken over: run, then `complete` or `release`. */
  | { readonly _tag: 'Claimed' }
  | { readonly _tag: 'Replay'; readonly response: StoredResponse }
  | { readonly _tag: 'Mismatch' }
  /** Still being processed by another call. */
  | { readonly _tag: 'InProgress' }

/** The same key sent by two clients is two keys. */
export type IdempotencyKeyRef = {
  /** The API client id, or a fixed name for operator routes. */
  readonly scope: string
  readonly key: string
}

/**
 * Idempotency-Keys (CONTRACT.md "Idempotency"): of concurrent claims of a new key exactly one gets
 * `Claimed`; a claim unfinished for `IDEMPOTENCY_LEASE_MS` can be taken over.
 */
export type IdempotencyStore = {
  /** Claims `ref` for the request hashing to `fingerprint`. */
  readonly claim: (
    ref: IdempotencyKeyRef,
    fingerprint: string,
    now: Date,
  ) => TE.TaskEither<StoreUnavailable, IdempotencyClaim>
  /** Stores the response for every later use of the key. */
  readonly complete: (ref: IdempotencyKeyRef, response: StoredResponse, now: Date) => TE.TaskEither<StoreUnavailable, void>
  /** Forgets an unfinished claim so the key can be retried (after a 5xx). */
  readonly release: (ref: IdempotencyKeyRef) => TE.TaskEither<StoreUnavailable, void>
  /** Deletes keys past retention; returns how many. */
  readonly purgeExpired: (now: Date) => TE.TaskEither<StoreUnavailable, number>
}

/** A key is remembered 24 hours after first use. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000
/** An unfinished claim is honoured one minute. */
export const IDEMPOTENCY_LEASE_MS = 60 * 1000
