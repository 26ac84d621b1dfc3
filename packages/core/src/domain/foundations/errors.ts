/** Error values shared by use cases: a use case's error type is a closed union of these. */

/** `param` names the offending field when there is one. */
export type InvalidRequest = { readonly _tag: 'InvalidRequest'; readonly detail: string; readonly param?: string }
export const invalidRequest = (detail: string, param?: string): InvalidRequest =>
  param === undefined ? { _tag: 'InvalidRequest', detail } : { _tag: 'InvalidRequest', detail, param }

/** Missing, or another party's or client's: deliberately indistinguishable. */
export type NotFound = { readonly _tag: 'NotFound'; readonly resource: string }
export const notFound = (resource: string): NotFound => ({ _tag: 'NotFound', resource })

/** `cause` is for logs only. */
export type StoreUnavailable = { readonly _tag: 'StoreUnavailable'; readonly cause: unknown }
/** Adapters return it for any error they do not translate into another tag. */
export const storeUnavailable = (cause: unknown): StoreUnavailable => ({ _tag: 'StoreUnavailable', cause })

export type AlreadyExists = { readonly _tag: 'AlreadyExists'; readonly entity: string }
export const alreadyExists = (entity: string): AlreadyExists => ({ _tag: 'AlreadyExists', entity })

/** Absent, or a Bearer value without the key prefix. */
export type MissingApiKey = { readonly _tag: 'MissingApiKey' }
export const missingApiKey: MissingApiKey = { _tag: 'MissingApiKey' }

/** Malformed, unknown, failing its checksum or hash, or revoked. */
export type InvalidApiKey = { readonly _tag: 'InvalidApiKey' }
export const invalidApiKey: InvalidApiKey = { _tag: 'InvalidApiKey' }

export type InsufficientScope = { readonly _tag: 'InsufficientScope'; readonly scope: string }
export const insufficientScope = (scope: string): InsufficientScope => ({ _tag: 'InsufficientScope', scope })

/** A party-scoped request names another party than the key's (spec §5.9). */
export type PartyMismatch = { readonly _tag: 'PartyMismatch' }
export const partyMismatch: PartyMismatch = { _tag: 'PartyMismatch' }

/** A save based on a version another request has since changed. */
export type ConcurrentUpdate = { readonly _tag: 'ConcurrentUpdate'; readonly resource: string }
export const concurrentUpdate = (resource: string): ConcurrentUpdate => ({ _tag: 'ConcurrentUpdate', resource })

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

export type Overpayment = { readonly _tag: 'Overpayment'; readonly payoffAmount: number }
export const overpayment = (payoffAmount: number): Overpayment => ({ _tag: 'Overpayment', payoffAmount })

export type IdempotencyKeyRequired = { readonly _tag: 'IdempotencyKeyRequired' }
export const idempotencyKeyRequired: IdempotencyKeyRequired = { _tag: 'IdempotencyKeyRequired' }

/** The Idempotency-Key was used for a different request. */
export type IdempotencyKeyReused = { readonly _tag: 'IdempotencyKeyReused' }
export const idempotencyKeyReused: IdempotencyKeyReused = { _tag: 'IdempotencyKeyReused' }
