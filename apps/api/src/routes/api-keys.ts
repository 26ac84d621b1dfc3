import { apiKeyView, envelope, listApiKeys, mintApiKey, mintedKeyView, revokeApiKey } from '@lendgate/core'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { AppDeps } from '../deps.js'
import { operatorContext, partnerContext } from '../http/audit-context.js'
import { callerOf, routes } from './route.js'

/** Key management (spec §4.1, CONTRACT.md "Keys"). */
export const apiKeyRoutes = (deps: AppDeps) =>
  routes({
  mintApiKey: {
    run: (ctx, command) => pipe(mintApiKey(deps)(command, operatorContext(ctx)), TE.map((m) => mintedKeyView(m.client, m.key, m.plaintext))),
    // The secret key is never stored, not even for an idempotent replay.
    forReplay: (body) => {
      const { api_key: _secret, ...rest } = body as Record<string, unknown>
      return rest
    },
  },
  listApiKeys: {
    run: (ctx, command) => pipe(listApiKeys(deps)(callerOf(ctx), command), TE.map(envelope(apiKeyView))),
  },
  revokeApiKey: {
    run: (ctx, command) => pipe(revokeApiKey(deps)(callerOf(ctx), command, partnerContext(ctx)), TE.map(apiKeyView)),
  },
})
