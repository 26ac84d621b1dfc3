import type { CursorSeal } from '@lendgate/adapters'
import { invalidRequest } from '@lendgate/core'
import type { Middleware, ParameterizedContext } from 'koa'
import type { AppState } from './context.js'
import { answerProblem } from './respond.js'

/** The query parameters that page through a list rather than choose what it lists. */
const PAGING = new Set(['cursor', 'limit'])

/**
 * What a cursor of this request is bound to: the operation, the path (its ids), the caller (the
 * API client, whichever of its keys asks; operators share one space) and the filters in the query.
 */
const boundTo = (ctx: ParameterizedContext<AppState>, operationId: string): string => {
  const filters = Object.entries(ctx.query)
    .filter(([name]) => !PAGING.has(name))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}=${JSON.stringify(value)}`)
    .join('&')
  return [operationId, ctx.path, ctx.state.caller?.clientId ?? 'operator', filters].join('\n')
}

const hasNextCursor = (body: unknown): body is { readonly next_cursor: string } =>
  typeof body === 'object' && body !== null && typeof (body as { next_cursor?: unknown }).next_cursor === 'string'

/**
 * Lists hand out sealed cursors (decision 75): the `cursor` a request sends must be one this
 * list handed to this caller with these filters, else 400 `invalid_request` naming `cursor`
 * before anything runs; the handler sees the cursor inside. The `next_cursor` it answers is
 * sealed the same way. On every GET route, after authentication; the binding is worked out only
 * when a cursor is sent or answered.
 */
export const sealedCursors = (seal: CursorSeal, operationId: string): Middleware<AppState> => async (ctx, next) => {
  const sent = ctx.query['cursor']
  if (typeof sent === 'string') {
    const cursor = seal.open(sent, boundTo(ctx, operationId))
    if (cursor === undefined) return answerProblem(ctx, invalidRequest('cursor is not a cursor returned by this list', 'cursor'))
    ctx.query = { ...ctx.query, cursor }
  }
  await next()
  if (hasNextCursor(ctx.body)) ctx.body = { ...ctx.body, next_cursor: seal.seal(ctx.body.next_cursor, boundTo(ctx, operationId)) }
}
