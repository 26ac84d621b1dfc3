import { createHash } from 'node:crypto'
import { IdempotencyKey, idempotencyKeyRequired, type Clock, type IdempotencyKeyRef, type IdempotencyStore, type World } from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import type { Middleware } from 'koa'
import type { AppState } from './context.js'
import { answerProblem, sendJson } from './respond.js'

/**
 * Refusals that come of what other requests did, not of this request, so they are never kept
 * under its key: a 409 `conflict` (it met a concurrent change; `answerProblem`) or
 * `idempotency_key_in_use` asks for a retry that a replay would refuse, and a 422
 * `idempotency_key_reused` (a payment took the key before) kept under this request's fingerprint
 * would refuse the genuine retry of the request that owns the key for 24 hours.
 */
const OF_OTHER_REQUESTS: ReadonlySet<unknown> = new Set(['conflict', 'idempotency_key_in_use', 'idempotency_key_reused'])

/**
 * Whether an answer is kept for replay: anything below 500 except a 429 (too soon: a replay
 * would refuse the retry its `Retry-After` asks for) and the refusals `OF_OTHER_REQUESTS`. A 5xx
 * or a bug is never kept either.
 */
const keptForReplay = (status: number, body: unknown): boolean =>
  status < 500 && status !== 429 && !(typeof body === 'object' && body !== null && OF_OTHER_REQUESTS.has((body as { error?: unknown }).error))

export type IdempotencyOptions = {
  /** The records of the world the request acts on (`ctx.state.world`; decision 128). */
  readonly store: (world: World) => IdempotencyStore
  readonly clock: Clock
  /**
   * What is kept for replay. Defaults to the body as sent; the mint route drops the secret key
   * so that it is never stored (a replay then tells the key id, not the key).
   */
  readonly forReplay?: (body: unknown) => unknown
  /** A request without a key is refused (400 `idempotency_key_required`). */
  readonly required: boolean
}

/**
 * CONTRACT.md "Idempotency". With an `Idempotency-Key` header, the first request runs and its
 * response (status below 500) is stored; the same key with the same method, path, query and body bytes
 * replays it with `Idempotent-Replayed: true` (4xx answers included); with a different request
 * it is a 422; while the first still runs, a 409. A 5xx, a bug, or an answer `keptForReplay`
 * leaves out (a retry to make, a refusal that comes of other requests) releases the key so the
 * client can retry.
 * Keys are scoped to the API client (the operator for minting).
 */
export const idempotency =
  (options: IdempotencyOptions): Middleware<AppState> =>
  async (ctx, next) => {
    const key = ctx.get('Idempotency-Key')
    if (key === '') return options.required ? answerProblem(ctx, idempotencyKeyRequired) : next()
    if (!IdempotencyKey.is(key)) {
      return answerProblem(ctx, { _tag: 'InvalidRequest', detail: 'Idempotency-Key must be 1 to 255 printable ASCII characters.', param: 'Idempotency-Key' })
    }
    ctx.state.idempotencyKey = key
    const ref: IdempotencyKeyRef = { scope: ctx.state.caller?.clientId ?? 'operator:mint', key }
    const raw = (ctx.request as { rawBody?: string }).rawBody ?? ''
    // The query string counts (a write answers 400 to one); left out when empty, so the
    // fingerprint of a request without one is what it always was.
    const target = ctx.querystring === '' ? ctx.path : `${ctx.path}?${ctx.querystring}`
    const fingerprint = createHash('sha256').update(`${ctx.method} ${target}\n`).update(raw).digest('hex')

    const store = options.store(ctx.state.world ?? 'live')
    const claim = await store.claim(ref, fingerprint, options.clock.now())()
    if (E.isLeft(claim)) return answerProblem(ctx, claim.left)
    switch (claim.right._tag) {
      case 'Mismatch':
        return answerProblem(ctx, { _tag: 'IdempotencyKeyReused' })
      case 'InProgress':
        return answerProblem(ctx, { _tag: 'IdempotencyKeyInUse' })
      case 'Replay':
        sendJson(ctx, claim.right.response.status, claim.right.response.body)
        ctx.set('Idempotent-Replayed', 'true')
        return
      case 'Claimed':
        break
    }

    // What was answered below 500, success or problem, is kept for replay (`keptForReplay`).
    // Anything else (a 5xx, a retry to make, a refusal of other requests' doing, a bug thrown)
    // releases the key so the client can retry. If recording fails, the claim is
    // left to expire after its lease rather than released, so an immediate retry cannot run the
    // request a second time.
    let outcome: { readonly status: number; readonly body: unknown } | undefined
    let thrown: unknown
    try {
      await next()
      outcome = { status: ctx.status, body: ctx.body }
    } catch (error) {
      thrown = error
    }
    if (outcome !== undefined && keptForReplay(outcome.status, outcome.body)) {
      const kept = options.forReplay === undefined || outcome.status >= 300 ? outcome.body : options.forReplay(outcome.body)
      const done = await store.complete(ref, { status: outcome.status, body: JSON.stringify(kept ?? null) }, options.clock.now())()
      if (E.isLeft(done)) ctx.state.log.error({ err: done.left.cause }, 'could not record the idempotent response')
    } else {
      const released = await store.release(ref)()
      if (E.isLeft(released)) ctx.state.log.error({ err: released.left.cause }, 'could not release an idempotency key')
    }
    if (thrown !== undefined) throw thrown
  }
