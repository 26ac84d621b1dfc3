import type {
  CodeExpired,
  RequirementsOutstanding,
  InvalidCode,
  NoPendingVerification,
  RateLimited,
  TooManyAttempts,
  VerificationDeliveryFailed,
  AlreadyExists,
  ConcurrentUpdate,
  InvalidState,
  InsufficientScope,
  InvalidApiKey,
  InvalidRequest,
  MissingApiKey,
  NotFound,
  PartyMismatch,
  StoreUnavailable,
  Overpayment,
  IdempotencyKeyRequired,
  IdempotencyKeyReused,
  ProcessorUnavailable,
  InvalidCredentials,
  InvalidOperatorSession,
  InsufficientRole,
  CheckerRequired,
  OperatorRequired,
  SameOperator,
  PreviewOutdated,
} from '@lendgate/core'

/**
 * Failures that only exist at the HTTP edge. Together with the domain errors they form
 * `Problem`, the one union the error mapper turns into a status and body.
 */

export type InvalidMintKey = { readonly _tag: 'InvalidMintKey' }
export const invalidMintKey: InvalidMintKey = { _tag: 'InvalidMintKey' }

export type InvalidInternalToken = { readonly _tag: 'InvalidInternalToken' }
export const invalidInternalToken: InvalidInternalToken = { _tag: 'InvalidInternalToken' }

/** A console session's request that changes something without its CSRF token (decision 149). */
export type InvalidCsrfToken = { readonly _tag: 'InvalidCsrfToken' }
export const invalidCsrfToken: InvalidCsrfToken = { _tag: 'InvalidCsrfToken' }

/** A test helper called with a live key (decision 130). */
export type TestModeOnly = { readonly _tag: 'TestModeOnly' }
export const testModeOnly: TestModeOnly = { _tag: 'TestModeOnly' }

/** A setting the request needs is missing (production only; see CONTRACT.md "Running"). */
export type ServerMisconfigured = { readonly _tag: 'ServerMisconfigured'; readonly setting: string }
export const serverMisconfigured = (setting: string): ServerMisconfigured => ({ _tag: 'ServerMisconfigured', setting })

export type RouteNotFound = { readonly _tag: 'RouteNotFound'; readonly method: string; readonly path: string }
/** The process cannot serve yet: the database does not answer, or the schema is still being migrated. */
export type NotReady = { readonly _tag: 'NotReady'; readonly reason: 'database_unreachable' | 'migrations_pending' }
export const notReady = (reason: NotReady['reason']): NotReady => ({ _tag: 'NotReady', reason })
export type MethodNotAllowed = { readonly _tag: 'MethodNotAllowed'; readonly allowed: readonly string[] }
export type PayloadTooLarge = { readonly _tag: 'PayloadTooLarge'; readonly limitBytes: number }
export type IdempotencyKeyInUse = { readonly _tag: 'IdempotencyKeyInUse' }
export type NotImplemented = { readonly _tag: 'NotImplemented'; readonly operationId: string }
/** A rate-limit policy refused the request (issue 9); `retryAfterSeconds` is when its window resets. */
export type RateLimitExceeded = {
  readonly _tag: 'RateLimitExceeded'
  readonly policy: string
  readonly limit: number
  readonly windowSeconds: number
  readonly retryAfterSeconds: number
}
/** A request on a connection its peer address opened past `HTTP_MAX_CONNECTIONS_PER_ADDRESS`. */
export type TooManyConnections = { readonly _tag: 'TooManyConnections'; readonly limit: number }
/**
 * What Node's HTTP parser refused before a request existed (the server's `clientError`): headers
 * over its limit, a request it cannot parse (an unknown method, a bad request line), or a
 * request not received in time.
 */
export type UnreadableRequest = { readonly _tag: 'UnreadableRequest'; readonly reason: 'headers_too_large' | 'malformed' | 'timeout' }
/** A bug: an exception nobody expected. Its details go to the log, never to the client. */
export type InternalError = { readonly _tag: 'InternalError' }

export type Problem =
  | InvalidRequest
  | InvalidCredentials
  | InvalidOperatorSession
  | InsufficientRole
  | CheckerRequired
  | OperatorRequired
  | SameOperator
  | PreviewOutdated
  | InvalidCsrfToken
  | NotFound
  | StoreUnavailable
  | AlreadyExists
  | ConcurrentUpdate
  | InvalidState
  | RateLimited
  | RequirementsOutstanding
  | InvalidCode
  | CodeExpired
  | TooManyAttempts
  | NoPendingVerification
  | VerificationDeliveryFailed
  | MissingApiKey
  | InvalidApiKey
  | InsufficientScope
  | PartyMismatch
  | InvalidMintKey
  | InvalidInternalToken
  | TestModeOnly
  | ServerMisconfigured
  | RouteNotFound
  | NotReady
  | MethodNotAllowed
  | PayloadTooLarge
  | UnreadableRequest
  | IdempotencyKeyReused
  | IdempotencyKeyInUse
  | NotImplemented
  | RateLimitExceeded
  | TooManyConnections
  | InternalError
  | Overpayment
  | IdempotencyKeyRequired
  | ProcessorUnavailable

