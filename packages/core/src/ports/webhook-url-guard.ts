import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { InvalidRequest } from '../domain/foundations/errors.js'

/** A webhook URL must be https with a host resolving only to public addresses, unless the deployment allows otherwise. */
export type WebhookUrlGuard = {
  /** Else `InvalidRequest` naming `field` (the request's field that carried `url`) and why. */
  readonly check: (url: string, field: string) => TE.TaskEither<InvalidRequest, void>
}
