import { maxHeaderSize } from 'node:http'
import { absurd } from 'fp-ts/lib/function.js'
import type { Problem, UnreadableRequest } from './problems.js'

export type ErrorBody = { readonly error: string; readonly detail?: string; readonly [extra: string]: unknown }

export type HttpError = {
  readonly status: number
  readonly body: ErrorBody
  readonly headers?: Readonly<Record<string, string>>
}

const humanResource = (resource: string): string => resource.replace(/_/g, ' ')

/** What a request Node's parser refused is answered, by reason. */
const UNREADABLE: Readonly<Record<UnreadableRequest['reason'], HttpError>> = {
  headers_too_large: { status: 431, body: { error: 'headers_too_large', detail: `The request headers exceed ${maxHeaderSize} bytes.` } },
  timeout: { status: 408, body: { error: 'request_timeout', detail: 'The request was not received in time.' } },
  malformed: { status: 400, body: { error: 'invalid_request', detail: 'The request is not valid HTTP/1.1 (request line, method or headers).' } },
}

/**
 * The one place a failure becomes a status and body (CONTRACT.md "Errors"). The switch is
 * exhaustive: adding a tag to `Problem` without mapping it here does not compile.
 */
export const toHttpError = (problem: Problem): HttpError => {
  switch (problem._tag) {
    case 'InvalidRequest':
      return {
        status: 400,
        body: problem.param === undefined ? { error: 'invalid_request', detail: problem.detail } : { error: 'invalid_request', detail: problem.detail, param: problem.param },
      }
    case 'MissingApiKey':
      return {
        status: 401,
        body: { error: 'missing_api_key', detail: 'Send your API key as "Authorization: Bearer <key>" or in the X-Api-Key header.' },
        headers: { 'WWW-Authenticate': 'Bearer' },
      }
    case 'InvalidApiKey':
      return {
        status: 401,
        body: { error: 'invalid_api_key', detail: 'The API key is not valid: it is malformed, unknown or revoked.' },
        headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
      }
    case 'InvalidMintKey':
      return { status: 401, body: { error: 'invalid_mint_key', detail: 'X-Partner-Mint-Key is missing or wrong.' } }
    case 'InvalidInternalToken':
      return {
        status: 401,
        body: {
          error: 'invalid_internal_token',
          detail: 'Internal routes require "Authorization: Bearer <INTERNAL_API_TOKEN>" or a console session; partner keys are not accepted.',
        },
        headers: { 'WWW-Authenticate': 'Bearer' },
      }
    case 'InvalidCredentials':
      return { status: 401, body: { error: 'invalid_credentials', detail: 'The e-mail or password is wrong, or the operator is disabled.' } }
    case 'InvalidOperatorSession':
      return {
        status: 401,
        body: { error: 'invalid_session', detail: 'There is no console session, or it has expired, was revoked or its operator was disabled: sign in again.' },
      }
    case 'InsufficientRole':
      return {
        status: 403,
        body: { error: 'insufficient_role', detail: `The ${problem.role} role may not do this: it needs the ${problem.permission} permission.`, role: problem.role, permission: problem.permission },
      }
    case 'CheckerRequired':
      return {
        status: 403,
        body: {
          error: 'checker_required',
          detail: `A named operator's ${problem.kind.replace(/_/g, ' ')} needs a second operator's approval: ask for it with POST /internal/operator-requests.`,
          kind: problem.kind,
        },
      }
    case 'PreviewOutdated':
      return {
        status: 409,
        body: {
          error: 'preview_outdated',
          detail: 'The loan changed since the preview you approved (a payment, a posting, or the day it would post on): preview the request again and approve what it shows now.',
          preview_version: problem.current,
        },
      }
    case 'OperatorRequired':
      return {
        status: 403,
        body: {
          error: 'operator_session_required',
          detail: 'Maker-checker requests are asked and decided by named operators in a console session; the internal token acts directly (POST /internal/payments/{paymentId}/reverse, POST /internal/loans/{loanId}/charge-off).',
        },
      }
    case 'SameOperator':
      return { status: 403, body: { error: 'checker_must_differ', detail: 'The operator who asked cannot approve the request: another operator holding service_loans must.' } }
    case 'InvalidCsrfToken':
      return {
        status: 403,
        body: { error: 'invalid_csrf_token', detail: "A console session's request that changes something must send the session's csrf_token in X-CSRF-Token." },
      }
    case 'InsufficientScope':
      return { status: 403, body: { error: 'insufficient_scope', detail: `This API key lacks the scope ${problem.scope}.`, scope: problem.scope } }
    case 'TestModeOnly':
      return { status: 403, body: { error: 'test_mode_only', detail: 'Test helpers act on the test world: call them with a test key (lgk_test_…).' } }
    case 'PartyMismatch':
      return { status: 403, body: { error: 'party_mismatch', detail: 'The party in the path is not the party of this API key.' } }
    case 'NotFound':
      return { status: 404, body: { error: 'not_found', detail: `No such ${humanResource(problem.resource)}.` } }
    case 'NotReady':
      if (problem.reason === 'database_unreachable') return { status: 503, body: { error: 'not_ready', detail: 'The database is unreachable.' } }
      // Retrying soon is fine: the retry itself waits for the schema (`schemaGate`).
      return { status: 503, body: { error: 'not_ready', detail: 'The database schema is being migrated; try again shortly.' }, headers: { 'Retry-After': '1' } }
    case 'RouteNotFound':
      return { status: 404, body: { error: 'not_found', detail: `No route for ${problem.method} ${problem.path}.` } }
    case 'MethodNotAllowed':
      return {
        status: 405,
        body: { error: 'method_not_allowed', detail: `Allowed methods: ${problem.allowed.join(', ')}.` },
        headers: { Allow: problem.allowed.join(', ') },
      }
    case 'AlreadyExists':
      return { status: 409, body: { error: 'conflict', detail: `The ${humanResource(problem.entity)} already exists.` } }
    case 'InvalidState':
      return {
        status: 409,
        body: {
          error: 'invalid_state',
          detail: `The ${humanResource(problem.resource)} is ${problem.status}; it does not allow this (${problem.action}).`,
          status: problem.status,
        },
      }
    case 'ConcurrentUpdate':
      return {
        status: 409,
        body: { error: 'conflict', detail: `The ${humanResource(problem.resource)} was changed by another request at the same time; retry.` },
      }
    case 'RequirementsOutstanding':
      return {
        status: 409,
        body: {
          error: 'requirements_outstanding',
          detail: 'The session cannot be submitted until every requirement is met.',
          requirements: problem.requirements,
        },
      }
    case 'NoPendingVerification':
      return {
        status: 409,
        body: problem.alreadyVerified
          ? { error: 'verification_not_pending', detail: `The ${problem.channel} is already verified: there is nothing to verify.`, reason: 'already_verified' }
          : { error: 'verification_not_pending', detail: `There is no ${problem.channel} awaiting verification: submit one first.`, reason: 'no_pending_code' },
      }
    case 'InvalidCode':
      return {
        status: 422,
        body: { error: 'invalid_code', detail: 'The code is wrong.', attempts_remaining: problem.attemptsRemaining },
      }
    case 'CodeExpired':
      return { status: 422, body: { error: 'code_expired', detail: 'The code has expired; request a new one with …/retry.' } }
    case 'TooManyAttempts':
      return { status: 429, body: { error: 'too_many_attempts', detail: 'Too many wrong codes; request a new one with …/retry.' } }
    case 'RateLimited':
      return {
        status: 429,
        body: { error: 'rate_limited', detail: `Too soon; retry in ${problem.retryAfterSeconds} s.`, retry_after_seconds: problem.retryAfterSeconds },
        headers: { 'Retry-After': String(problem.retryAfterSeconds) },
      }
    case 'RateLimitExceeded':
      return {
        status: 429,
        body: {
          error: 'rate_limited',
          detail: `Rate limit "${problem.policy}" of ${problem.limit} requests per ${problem.windowSeconds} s reached; retry in ${problem.retryAfterSeconds} s.`,
          policy: problem.policy,
          retry_after_seconds: problem.retryAfterSeconds,
        },
        headers: { 'Retry-After': String(problem.retryAfterSeconds) },
      }
    case 'VerificationDeliveryFailed':
      return {
        status: 502,
        body: { error: 'verification_delivery_failed', detail: 'The verification code could not be delivered; no code was issued. Retry shortly.' },
      }
    case 'IdempotencyKeyInUse':
      return {
        status: 409,
        body: { error: 'idempotency_key_in_use', detail: 'A request with this Idempotency-Key is still being processed; retry shortly.' },
        headers: { 'Retry-After': '1' },
      }
    case 'TooManyConnections':
      return {
        status: 429,
        body: {
          error: 'rate_limited',
          detail: `This address already holds ${problem.limit} open connections, the most one address may: send on a connection it holds (keep-alive) or close some, then retry.`,
          policy: 'connections',
          retry_after_seconds: 1,
        },
        headers: { 'Retry-After': '1' },
      }
    case 'PayloadTooLarge':
      return { status: 413, body: { error: 'payload_too_large', detail: `The request body exceeds ${problem.limitBytes} bytes.` } }
    case 'UnreadableRequest':
      return UNREADABLE[problem.reason]
    case 'IdempotencyKeyReused':
      return {
        status: 422,
        body: { error: 'idempotency_key_reused', detail: 'This Idempotency-Key was used for a different request (method, path or body).' },
      }
    case 'StoreUnavailable':
      return { status: 500, body: { error: 'store_unavailable', detail: 'The data store is unavailable. Retry later; with an Idempotency-Key a retry is safe.' } }
    case 'ServerMisconfigured':
      // The setting's name is for operators (answerProblem logs it), not for whoever called.
      return { status: 500, body: { error: 'server_misconfigured', detail: "The server is missing a setting this request needs; its operators must set it (the server's log names it)." } }
    case 'InternalError':
      return { status: 500, body: { error: 'internal_error', detail: 'An unexpected error occurred. Quote the X-Request-Id header when you contact support.' } }
    case 'Overpayment':
      return {
        status: 422,
        body: {
          error: 'overpayment',
          detail:
            problem.pendingAmount === 0
              ? `The amount exceeds the payoff amount (${problem.payoffAmount}).`
              : `The amount with the payments still pending (${problem.pendingAmount}) exceeds the payoff amount (${problem.payoffAmount}).`,
          payoff_amount: problem.payoffAmount,
        },
      }
    case 'IdempotencyKeyRequired':
      return {
        status: 400,
        body: { error: 'idempotency_key_required', detail: 'This request moves money: send an Idempotency-Key header so a retry cannot pay twice.' },
      }
    case 'ProcessorUnavailable':
      return { status: 502, body: { error: 'payment_processor_unavailable', detail: 'The payment processor could not be reached; nothing was charged. Retry with the same Idempotency-Key.' } }
    case 'NotImplemented':
      return { status: 501, body: { error: 'not_implemented', operation_id: problem.operationId } }
    default:
      return absurd(problem)
  }
}
