import { invalidRequest } from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import type { AppContext } from './context.js'
import type { Problem } from './problems.js'

/** What a route's use case is given: one plain object, every field under its wire name. */
export type Command = Readonly<Record<string, unknown>>

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * The command of a request (decision 77): its query parameters, the fields of its JSON body
 * (on a write), its path parameters under their names in the path, and, where the operation
 * takes one, its `Idempotency-Key` as `idempotency_key`. The use case decodes the whole with
 * its own codec, so a field it does not know is refused by name, wherever it came from. A body
 * that is not a JSON object is refused, and so is a name given twice (a body field named like a
 * path parameter, a query parameter also in the body): nothing one part says is silently
 * overridden by another.
 */
export const commandOf = (ctx: AppContext, options: { readonly idempotencyKey: boolean }): E.Either<Problem, Command> => {
  const body: unknown = ctx.method === 'GET' || ctx.method === 'HEAD' ? {} : (ctx.request as { body?: unknown }).body ?? {}
  if (!isRecord(body)) return E.left(invalidRequest('The request body must be a JSON object'))
  const key = options.idempotencyKey && ctx.state.idempotencyKey !== undefined ? { idempotency_key: ctx.state.idempotencyKey } : {}
  const parts: readonly Command[] = [ctx.query, body, ctx.params, key]
  const seen = new Set<string>()
  for (const part of parts) {
    const repeated = Object.keys(part).find((name) => seen.has(name))
    if (repeated !== undefined) return E.left(invalidRequest(`${repeated} is given twice: in the path, the query or the body, it belongs in one`, repeated))
    Object.keys(part).forEach((name) => seen.add(name))
  }
  return E.right(Object.assign({}, ...parts) as Command)
}
