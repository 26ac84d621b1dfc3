/** Error values shared by use cases: a use case's error type is a closed union of these. */

/** `param` names the offending field when there is one. */
export type InvalidRequest = { readonly _tag: 'InvalidRequest'; readonly detail: string; readonly param?: string }
/** `detail` for people; `param` names the field at fault. */
export const invalidRequest = (detail: string, param?: string): InvalidRequest =>
  param === undefined ? { _tag: 'InvalidRequest', detail } : { _tag: 'InvalidRequest', detail, param }

/** Missing, or another party's or client's: deliberately indistinguishable. */
export type NotFound = { readonly _tag: 'NotFound'; readonly resource: string }
/** `resource` names the kind, e.g. `'loan'`. */
export const notFound = (resource: string): NotFound => ({ _tag: 'NotFound', resource })

/** `cause` is for logs only. */
export type StoreUnavailable = { readonly _tag: 'StoreUnavailable'; readonly cause: unknown }
/** Adapters return it for any error they do not translate into another tag. */
export const storeUnavailable = (cause: unknown): StoreUnavailable => ({ _tag: 'StoreUnavailable', cause })

/** A unique constraint refused a write; `entity` names what exists. */
export type AlreadyExists = { readonly _tag: 'AlreadyExists'; readonly entity: string }
/** Adapters return it for a unique violation. */
export const alreadyExists = (entity: string): AlreadyExists => ({ _tag: 'AlreadyExists', entity })

/** Absent, or a Bearer value without the key prefix. */
export type MissingApiKey = { readonly _tag: 'MissingApiKey' }
/** The `MissingApiKey` value. */
export const missingApiKey: MissingApiKey = { _tag: 'MissingApiKey' }

/** Malformed, unknown, failing its checksum or hash, or revoked. */
export type InvalidApiKey = { readonly _tag: 'InvalidApiKey' }
/** The `InvalidApiKey` value. */
export const invalidApiKey: InvalidApiKey = { _tag: 'InvalidApiKey' }

/** The key's scopes do not grant `scope`. */
export type InsufficientScope = { readonly _tag: 'InsufficientScope'; readonly scope: string }
export const insufficientScope = (scope: string): InsufficientScope => ({ _tag: 'InsufficientScope', scope })

/** A party-scoped request names another party than the key's (spec §5.9). */
export type PartyMismatch = { readonly _tag: 'PartyMismatch' }
export const partyMismatch: PartyMismatch = { _tag: 'PartyMismatch' }

/** A save based on a version another request has since changed. */
export type ConcurrentUpdate = { readonly _tag: 'ConcurrentUpdate'; readonly resource: string }
/** Repositories return it when a save lost a race. */
export const concurrentUpdate = (resource: string): ConcurrentUpdate => ({ _tag: 'ConcurrentUpdate', resource })

/** The resource's current `status` forbids the action. */
export type InvalidState = {
  readonly _tag: 'InvalidState'
  readonly resource: string
  readonly status: string
  readonly action: string
}
/** `resource` is in `status`, which does not allow `action` (409 `invalid_state`). */
export const invalidState = (resource: string, status: string, action: string): InvalidState => ({
  _tag: 'InvalidState',
  resource,
  status,
  action,
})

/** A payment above everything owed (`payoffAmount`) less what payments accepted and not yet posted will debit (`pendingAmount`). */
export type Overpayment = { readonly _tag: 'Overpayment'; readonly payoffAmount: number; readonly pendingAmount: number }
export const overpayment = (payoffAmount: number, pendingAmount = 0): Overpayment => ({ _tag: 'Overpayment', payoffAmount, pendingAmount })

/** A command that moves money came without an idempotency key. */
export type IdempotencyKeyRequired = { readonly _tag: 'IdempotencyKeyRequired' }
/** The `IdempotencyKeyRequired` value. */
export const idempotencyKeyRequired: IdempotencyKeyRequired = { _tag: 'IdempotencyKeyRequired' }

/** The Idempotency-Key was used for a different request. */
export type IdempotencyKeyReused = { readonly _tag: 'IdempotencyKeyReused' }
export const idempotencyKeyReused: IdempotencyKeyReused = { _tag: 'IdempotencyKeyReused' }
