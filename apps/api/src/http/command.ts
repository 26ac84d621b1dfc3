import { invalidRequest } from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import type { AppContext } from './context.js'
import type { Problem } from './problems.js'

/** What a route's use case is given: one plain object, every field under its wire name. */
export type RequestCommand = Readonly<Record<string, unknown>>

/** Where an operation takes the fields of its command from, besides its path. */
export type CommandSources = {
  /** A payment: the `Idempotency-Key` header joins the command as `idempotency_key`. */
  readonly idempotencyKey: boolean
  /** A write that takes its fields from the query string (a read always does). */
  readonly fieldsInQuery: boolean
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

const isRead = (ctx: AppContext): boolean => ctx.method === 'GET' || ctx.method === 'HEAD'

/**
 * The command of a request (decision 77): the query parameters of a read (or of a write that
 * takes its fields there), the fields of a write's JSON body, the path parameters under their
 * names in the path, and, where the operation takes one, the `Idempotency-Key` as
 * `idempotency_key`. The use case decodes the whole with its own codec, so a field it does not
 * know is refused by name, wherever it came from. Refused here, naming the field: a body that is
 * not a JSON object; a query parameter on a write that takes none (a body field does not belong
 * in a URL, where proxies log it); a name given twice (a body field named like a path
 * parameter, say), since nothing one part says may be overridden by another.
 */
export const requestCommand = (ctx: AppContext, sources: CommandSources): E.Either<Problem, RequestCommand> => {
  const fromQuery = isRead(ctx) || sources.fieldsInQuery
  const strayQuery = fromQuery ? undefined : Object.keys(ctx.query)[0]
  if (strayQuery !== undefined) return E.left(invalidRequest(`${strayQuery} is not a known field`, strayQuery))
  const body: unknown = isRead(ctx) || sources.fieldsInQuery ? {} : (ctx.request as { body?: unknown }).body ?? {}
  if (!isRecord(body)) return E.left(invalidRequest('The request body must be a JSON object'))
  const key = sources.idempotencyKey && ctx.state.idempotencyKey !== undefined ? { idempotency_key: ctx.state.idempotencyKey } : {}
  const parts: readonly RequestCommand[] = [fromQuery ? ctx.query : {}, body, ctx.params, key]
  const entries = parts.flatMap((part) => Object.entries(part))
  const seen = new Set<string>()
  for (const [name] of entries) {
    if (seen.has(name)) return E.left(invalidRequest(`${name} is given twice: the path, the query, the body and the headers each name a field once`, name))
    seen.add(name)
  }
  // Built from entries, not assigned: a `__proto__` parameter stays a field the codec refuses by name.
  return E.right(Object.fromEntries(entries))
}
