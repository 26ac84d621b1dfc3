import createClient, { type Client, type FetchOptions } from 'openapi-fetch'
import { Webhook } from 'standardwebhooks'
import type { components, paths, webhooks } from './generated/partner-api.js'

/**
 * @lendgate/client: a typed client of the Lendgate partner API (version 1). The calls, their
 * parameters, bodies and answers are typed from the partner OpenAPI document (src/generated);
 * on top of openapi-fetch it adds the API key, an Idempotency-Key on every POST, retries with
 * backoff, pagination, typed errors and webhook verification.
 */

export type { components, operations, paths, webhooks } from './generated/partner-api.js'

// ---- the client ----------------------------------------------------------------------------------

/** How calls are retried; every field is optional. */
export type RetryOptions = {
  /** Attempts in all, the first included (1: never retry). Default 3. */
  readonly attempts?: number
  /** The first backoff delay; each next one doubles, and a random jitter of up to the delay is added. Default 500 ms. */
  readonly baseDelayMs?: number
  /**
   * The longest wait between attempts, backoff or `Retry-After`. A `Retry-After` longer than this
   * is not waited for: the answer (429 or 503) is returned as it is. Default 30 000 ms.
   */
  readonly maxDelayMs?: number
}

export type LendgateClientOptions = {
  /** The base URL you were given, version included, e.g. `https://api.lendgate.example/public/v1`. */
  readonly baseUrl: string
  /** Your API key, sent as `Authorization: Bearer <key>`; leave it out for calls that take none (or pass headers per call). */
  readonly apiKey?: string
  /** The fetch to send requests with (default: the global fetch). */
  readonly fetch?: (request: Request) => Promise<Response>
  /** Retries of 429, 503 and network errors (see `RetryOptions`); `false` never retries. */
  readonly retry?: RetryOptions | false
  /**
   * Makes the Idempotency-Key of a POST sent without one (default `crypto.randomUUID()`);
   * `false` sends none of its own.
   */
  readonly idempotencyKey?: (() => string) | false
}

/** A client of the partner API: `client.POST('/onboarding-sessions', { body })`, typed from the document. */
export type LendgateClient = Client<paths>

/** Statuses that say the request was not processed and may be sent again (after `Retry-After` when given). */
const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 503])
/** Methods that change nothing: resent after a network error even without an Idempotency-Key. */
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS'])

const sleep = (ms: number, signal: AbortSignal | null): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted === true) return reject(signal.reason)
    const onAbort = (): void => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })

/** `Retry-After` in milliseconds (delay-seconds or an HTTP date), or undefined when absent or unreadable. */
export const retryAfterMs = (value: string | null, now = Date.now()): number | undefined => {
  if (value === null || value.trim() === '') return undefined
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/**
 * A fetch that adds an Idempotency-Key to a POST without one and sends the request again, the
 * same key included, after a 429 or a 503 (waiting `Retry-After`, else an exponential backoff
 * with jitter) and, for a request with an Idempotency-Key or of a safe method, after a network
 * error. What `createLendgateClient` gives openapi-fetch; exported for your own fetch stacks.
 */
export const retryingFetch = (options: Pick<LendgateClientOptions, 'fetch' | 'retry' | 'idempotencyKey'> = {}): ((request: Request) => Promise<Response>) => {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request))
  const retry = options.retry === false ? { attempts: 1 } : (options.retry ?? {})
  const attempts = Math.max(1, Math.floor(retry.attempts ?? 3))
  const baseDelayMs = retry.baseDelayMs ?? 500
  const maxDelayMs = retry.maxDelayMs ?? 30_000
  const newKey = options.idempotencyKey === false ? undefined : (options.idempotencyKey ?? (() => crypto.randomUUID()))

  return async (request: Request): Promise<Response> => {
    const headers = new Headers(request.headers)
    if (request.method === 'POST' && newKey !== undefined && !headers.has('Idempotency-Key')) headers.set('Idempotency-Key', newKey())
    const resendable = SAFE_METHODS.has(request.method) || headers.has('Idempotency-Key')
    // The body is read once and sent with each attempt.
    const body = request.body === null ? undefined : await request.arrayBuffer()
    const attempt = (): Request =>
      new Request(request.url, {
        method: request.method,
        headers,
        ...(body === undefined ? {} : { body }),
        signal: request.signal,
        redirect: request.redirect,
      })
    const backoff = (n: number): number => Math.min(maxDelayMs, baseDelayMs * 2 ** (n - 1) + Math.random() * baseDelayMs * 2 ** (n - 1))

    for (let n = 1; ; n += 1) {
      let response: Response
      try {
        response = await send(attempt())
      } catch (error) {
        if (n >= attempts || !resendable || request.signal.aborted) throw error
        await sleep(backoff(n), request.signal)
        continue
      }
      if (n >= attempts || !RETRIED_STATUSES.has(response.status)) return response
      const asked = retryAfterMs(response.headers.get('Retry-After'))
      if (asked !== undefined && asked > maxDelayMs) return response
      await response.body?.cancel()
      await sleep(asked ?? backoff(n), request.signal)
    }
  }
}

/**
 * A typed client of the partner API at `baseUrl`:
 *
 * ```ts
 * const lendgate = createLendgateClient({ baseUrl: 'https://api.lendgate.example/public/v1', apiKey })
 * const session = unwrap(await lendgate.POST('/onboarding-sessions', { body: { country_of_incorporation: 'US', locale: 'en-US' } }))
 * ```
 */
export const createLendgateClient = (options: LendgateClientOptions): LendgateClient =>
  createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    ...(options.apiKey === undefined ? {} : { headers: { Authorization: `Bearer ${options.apiKey}` } }),
    fetch: retryingFetch(options),
  })

// ---- errors --------------------------------------------------------------------------------------

type Schemas = components['schemas']

/** Every error code the partner document lists (`error` of an error body), e.g. `invalid_request`, `not_found`. */
export type ErrorCode = { [K in keyof Schemas]: K extends `${string}Error` ? (Schemas[K] extends { error: infer C extends string } ? C : never) : never }[keyof Schemas]

/** The body of an error answer as the document describes it. */
export type ErrorBody = { [K in keyof Schemas]: K extends `${string}Error` ? Schemas[K] : never }[keyof Schemas]

/** The code of an error answer whose body is not a Lendgate error (e.g. an HTML page of a proxy in between). */
export type UnexpectedResponseCode = 'unexpected_response'

/** An answer other than a success: its status, its stable `code` to branch on, and the `X-Request-Id` to quote to support. */
export class LendgateError extends Error {
  override readonly name = 'LendgateError'
  /** The HTTP status. */
  readonly status: number
  /** The error code (`error` of the body), or `unexpected_response` when the body is not a Lendgate error. */
  readonly code: ErrorCode | UnexpectedResponseCode
  /** For people: may change between releases. */
  readonly detail: string | undefined
  /** The `X-Request-Id` of the answer, for support. */
  readonly requestId: string | undefined
  /** The parsed body (`ErrorBody` when `code` is not `unexpected_response`). */
  readonly body: unknown

  constructor(status: number, body: unknown, requestId: string | undefined) {
    const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {}
    const code = typeof fields['error'] === 'string' ? (fields['error'] as ErrorCode) : 'unexpected_response'
    const detail = typeof fields['detail'] === 'string' ? fields['detail'] : undefined
    super(`${status} ${code}${detail === undefined ? '' : `: ${detail}`}${requestId === undefined ? '' : ` (request ${requestId})`}`)
    this.status = status
    this.code = code
    this.detail = detail
    this.requestId = requestId ?? undefined
    this.body = body
  }

  /** The error of an answer that was not a success. */
  static from(response: Response, body: unknown): LendgateError {
    return new LendgateError(response.status, body, response.headers.get('X-Request-Id') ?? undefined)
  }
}

/**
 * The data of a call's result, or a thrown `LendgateError` when the answer was not a success
 * (a network failure is thrown by the call itself, as the fetch error):
 * `const loan = unwrap(await lendgate.GET('/parties/{partyId}/loans/{loanId}', { params }))`.
 */
export const unwrap = <T>(result: { data?: T; error?: unknown; response: Response }): T => {
  if (result.response.ok && result.error === undefined) return result.data as T
  throw LendgateError.from(result.response, result.error)
}

// ---- pagination ----------------------------------------------------------------------------------

type GetPath = { [P in keyof paths]: paths[P] extends { get: object } ? P : never }[keyof paths]
type GetOperation<P extends GetPath> = paths[P] extends { get: infer O } ? O : never
type SuccessBody<P extends GetPath> = GetOperation<P> extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : never

/** The paths of the lists: a GET answering a page (`data` and `next_cursor`) and taking a `cursor`. */
export type ListPath = { [P in GetPath]: SuccessBody<P> extends { data: readonly unknown[]; next_cursor: string | null } ? P : never }[GetPath]

/** The records a list path pages through. */
export type ListItem<P extends ListPath> = SuccessBody<P> extends { data: readonly (infer I)[] } ? I : never

type ListInit<P extends ListPath> = FetchOptions<GetOperation<P>>
type ListInitParam<P extends ListPath> = {} extends ListInit<P> ? [init?: ListInit<P>] : [init: ListInit<P>]

/**
 * Every record of a list, page after page (it follows `next_cursor`, keeping `limit` and the
 * filters), fetched as it is consumed:
 *
 * ```ts
 * for await (const loan of paginate(lendgate, '/parties/{partyId}/loans', { params: { path: { partyId } } })) …
 * ```
 *
 * A page that is not a success throws a `LendgateError`.
 */
export async function* paginate<P extends ListPath>(client: LendgateClient, path: P, ...[init]: ListInitParam<P>): AsyncGenerator<ListItem<P>, void, undefined> {
  const base = (init ?? {}) as { params?: { query?: Record<string, unknown> } & Record<string, unknown> } & Record<string, unknown>
  const get = client.GET as unknown as (path: string, init: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>
  let cursor: string | undefined
  do {
    const query = { ...base.params?.query, ...(cursor === undefined ? {} : { cursor }) }
    const page = unwrap(await get(path, { ...base, params: { ...base.params, query } })) as { data: ListItem<P>[]; next_cursor: string | null }
    yield* page.data
    cursor = page.next_cursor ?? undefined
  } while (cursor !== undefined)
}

// ---- webhooks ------------------------------------------------------------------------------------

type WebhookBody<K extends keyof webhooks> = webhooks[K] extends { post: { requestBody: { content: { 'application/json': infer B } } } } ? B : never

/** An event as a webhook delivers it (and as the event list lists it), by its `type`. */
export type WebhookEvent = { [K in keyof webhooks]: WebhookBody<K> }[keyof webhooks]

/** The event types a webhook may carry. */
export type WebhookEventType = WebhookEvent['type']

/** The headers of a delivery: a `Headers`, node's `req.headers`, or a plain record. */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>

const headerOf = (headers: WebhookHeaders, name: string): string | undefined => {
  if (headers instanceof Headers) return headers.get(name) ?? undefined
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name)
  const value = entry?.[1]
  return typeof value === 'string' ? value : value?.join(' ')
}

/** The Standard Webhooks verifier of `secret`: base64 after `whsec_`, else the secret's UTF-8 bytes. */
const verifierOf = (secret: string): Webhook => (secret.startsWith('whsec_') ? new Webhook(secret) : new Webhook(new TextEncoder().encode(secret), { format: 'raw' }))

/**
 * The event of a webhook delivery, its Standard Webhooks signature verified (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature`) over the raw body, exactly as it arrived (before any
 * JSON parsing). Throws when no signature verifies, a header is missing, or the timestamp is more
 * than 5 minutes away. During a secret rotation the delivery carries two signatures: either
 * verifying is enough; pass both secrets you hold (`[newSecret, oldSecret]`) if you switch early.
 */
export const verifyWebhook = (secret: string | readonly string[], rawBody: string | Uint8Array, headers: WebhookHeaders): WebhookEvent => {
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody)
  const signed = {
    'webhook-id': headerOf(headers, 'webhook-id') ?? '',
    'webhook-timestamp': headerOf(headers, 'webhook-timestamp') ?? '',
    'webhook-signature': headerOf(headers, 'webhook-signature') ?? '',
  }
  const secrets = typeof secret === 'string' ? [secret] : secret
  if (secrets.length === 0) throw new Error('verifyWebhook: no secret')
  let failure: unknown
  for (const s of secrets) {
    try {
      return verifierOf(s).verify(body, signed) as WebhookEvent
    } catch (error) {
      failure = error
    }
  }
  throw failure
}
