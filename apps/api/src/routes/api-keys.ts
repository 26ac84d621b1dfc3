import { apiKeyView, envelope, listApiKeys, mintApiKey, mintedKeyView, revokeApiKey } from '@lendgate/core'
import type { AppDeps } from '../deps.js'
import { operatorContext, partnerContext } from '../http/audit-context.js'
import { bodyOf } from '../http/body.js'
import { answer } from '../http/respond.js'
import { callerOf, type Routes } from './route.js'

/** Key management (spec §4.1, CONTRACT.md "Keys"). */
export const apiKeyRoutes = (deps: AppDeps): Routes => ({
  mintApiKey: {
    handle: (ctx) => answer(ctx, 201, mintApiKey(deps)(bodyOf(ctx), operatorContext(ctx)), (m) => mintedKeyView(m.client, m.key, m.plaintext)),
    // The secret key is never stored, not even for an idempotent replay.
    forReplay: (body) => {
      const { api_key: _secret, ...rest } = body as Record<string, unknown>
      return rest
    },
  },
  listApiKeys: {
    handle: (ctx) => answer(ctx, 200, listApiKeys(deps)(callerOf(ctx), ctx.query), envelope(apiKeyView)),
  },
  revokeApiKey: {
    handle: (ctx) => answer(ctx, 200, revokeApiKey(deps)(callerOf(ctx), ctx.params, partnerContext(ctx)), apiKeyView),
  },
})
