import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { InvalidRequest } from '../domain/foundations/errors.js'

/**
 * Decides whether a URL may receive webhooks: https only, and a host that resolves only to
 * public unicast addresses, unless the deployment allows http or private networks.
 *
 * @property check - Right when `url` may receive webhooks; else an `InvalidRequest` naming `webhook_url` and saying why.
 */
export type WebhookUrlGuard = { readonly check: (url: string) => TE.TaskEither<InvalidRequest, void> }
