import { apiKeyView, envelope, listApiKeys, mintApiKey, mintedKeyView, revokeApiKey } from '@lendgate/core'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { AppDeps } from '../deps.js'
import { operatorContext, partnerContext } from '../http/audit-context.js'
import { bodyOf } from '../http/body.js'
import { respond } from '../http/respond.js'
import { callerOf, type Routes } from './route.js'

/** Key management (spec §4.1, CONTRACT.md "Keys"). */
export const apiKeyRoutes = (deps: AppDeps): Routes => ({
  mintApiKey: {
    handle: async (ctx) =>
      respond(ctx, 201, await pipe(mintApiKey(deps)(bodyOf(ctx), operatorContext(ctx)), TE.map((m) => mintedKeyView(m.client, m.key, m.plaintext)))()),
    // The secret key is never stored, not even for an idempotent replay.
    forReplay: (body) => {
      const { api_key: _secret, ...rest } = body as Record<string, unknown>
      return rest
    },
  },
  listApiKeys: {
    handle: async (ctx) => respond(ctx, 200, await pipe(listApiKeys(deps)(callerOf(ctx), ctx.query), TE.map(envelope(apiKeyView)))()),
  },
  revokeApiKey: {
    handle: async (ctx) => respond(ctx, 200, await pipe(revokeApiKey(deps)(callerOf(ctx), ctx.params, partnerContext(ctx)), TE.map(apiKeyView))()),
  },
})
