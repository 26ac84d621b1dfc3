/**
 * Error values shared by use cases. Each is a plain object with a `_tag` and a constructor;
 * a use case's error type is a closed union of these, mapped exhaustively to HTTP by the API.
 */

/** Input failed validation. `param` names the offending field when there is one. */
export type InvalidRequest = { readonly _tag: 'InvalidRequest'; readonly detail: string; readonly param?: string }
/** An `InvalidRequest` with `detail` for people and, when one field is at fault, its name (`param`). */
export const invalidRequest = (detail: string, param?: string): InvalidRequest =>
  param === undefined ? { _tag: 'InvalidRequest', detail } : { _tag: 'InvalidRequest', detail, param }

/**
 * The resource does not exist, or exists but belongs to another party or API client.
 * The two cases are deliberately indistinguishable.
 */
export type NotFound = { readonly _tag: 'NotFound'; readonly resource: string }
/** A `NotFound` naming the kind of resource (`'onboarding_session'`, `'loan'`, ...). */
export const notFound = (resource: string): NotFound => ({ _tag: 'NotFound', resource })

/** The data store failed (connection lost, timeout, unexpected SQL error). `cause` is for logs only. */
export type StoreUnavailable = { readonly _tag: 'StoreUnavailable'; readonly cause: unknown }
/** Wraps an infrastructure failure; adapters return it for any error they do not translate into another tag. */
export const storeUnavailable = (cause: unknown): StoreUnavailable => ({ _tag: 'StoreUnavailable', cause })

/** A unique constraint refused a write. `entity` names what already exists. */
export type AlreadyExists = { readonly _tag: 'AlreadyExists'; readonly entity: string }
/** An `AlreadyExists` naming the entity; adapters return it for a unique violation. */
export const alreadyExists = (entity: string): AlreadyExists => ({ _tag: 'AlreadyExists', entity })

/** No usable key was presented (absent, or a Bearer value without the key prefix). */
export type MissingApiKey = { readonly _tag: 'MissingApiKey' }
/** The `MissingApiKey` value. */
export const missingApiKey: MissingApiKey = { _tag: 'MissingApiKey' }

/** The presented key is malformed, unknown, fails its checksum or hash, or is revoked. */
export type InvalidApiKey = { readonly _tag: 'InvalidApiKey' }
/** The `InvalidApiKey` value. */
export const invalidApiKey: InvalidApiKey = { _tag: 'InvalidApiKey' }

/** The key is valid but its scopes do not grant `scope`. */
export type InsufficientScope = { readonly _tag: 'InsufficientScope'; readonly scope: string }
export const insufficientScope = (scope: string): InsufficientScope => ({ _tag: 'InsufficientScope', scope })

/** A party-scoped request names a party other than the key's own (spec §5.9). */
export type PartyMismatch = { readonly _tag: 'PartyMismatch' }
export const partyMismatch: PartyMismatch = { _tag: 'PartyMismatch' }

/** A save was based on a version of the record that another request has since changed. */
export type ConcurrentUpdate = { readonly _tag: 'ConcurrentUpdate'; readonly resource: string }
/** A `ConcurrentUpdate` naming the resource; repositories return it when a save lost a race. */
export const concurrentUpdate = (resource: string): ConcurrentUpdate => ({ _tag: 'ConcurrentUpdate', resource })

/** The resource's status forbids the action (`status` is the current one). */
export type InvalidState = {
  readonly _tag: 'InvalidState'
  readonly resource: string
  readonly status: string
  readonly action: string
}
export const invalidState = (resource: string, status: string, action: string): InvalidState => ({
  _tag: 'InvalidState',
  resource,
  status,
  action,
})

/** A payment larger than everything owed (`payoffAmount`). */
export type Overpayment = { readonly _tag: 'Overpayment'; readonly payoffAmount: number }
export const overpayment = (payoffAmount: number): Overpayment => ({ _tag: 'Overpayment', payoffAmount })

/** A command that moves money came without an `idempotency_key` (over HTTP: without an `Idempotency-Key` header). */
export type IdempotencyKeyRequired = { readonly _tag: 'IdempotencyKeyRequired' }
/** The `IdempotencyKeyRequired` value. */
export const idempotencyKeyRequired: IdempotencyKeyRequired = { _tag: 'IdempotencyKeyRequired' }

/** The Idempotency-Key was already used for a different request (another loan, amount, currency or method). */
export type IdempotencyKeyReused = { readonly _tag: 'IdempotencyKeyReused' }
export const idempotencyKeyReused: IdempotencyKeyReused = { _tag: 'IdempotencyKeyReused' }
