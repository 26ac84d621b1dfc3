import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Caller } from '../../domain/keys/api-key.js'
import { decode } from '../../domain/foundations/codecs.js'
import type { InvalidRequest, StoreUnavailable } from '../../domain/foundations/errors.js'
import { RegisterWebhookInput, type WebhookEndpoint } from '../../domain/webhooks/webhook.js'
import { commandOf } from '../../domain/foundations/path-parameters.js'
import type { Clock } from '../../ports/clock.js'
import type { OnboardingSessionRepository } from '../../ports/onboarding-session-repository.js'
import type { WebhookEndpointRepository } from '../../ports/webhook-endpoint-repository.js'
import type { WebhookEventRepository } from '../../ports/webhook-event-repository.js'
import type { WebhookSecrets } from '../../ports/webhook-secrets.js'
import type { WebhookUrlGuard } from '../../ports/webhook-url-guard.js'
import { loadOwnSession, type LoadOwnSessionError } from './load-own-session.js'

/** What `registerOnboardingSessionWebhook` needs. */
export type RegisterWebhookDeps = {
  readonly sessions: Pick<OnboardingSessionRepository, 'findForClient'>
  readonly webhooks: WebhookEndpointRepository
  readonly webhookSecrets: WebhookSecrets
  readonly urlGuard: WebhookUrlGuard
  readonly events: Pick<WebhookEventRepository, 'hurryPending'>
  readonly clock: Clock
}

const RegisterWebhookCommand = commandOf(['sessionId'], RegisterWebhookInput)

/** The stored endpoint and, when the server made it, the secret to show once. */
export type RegisteredWebhook = {
  readonly endpoint: WebhookEndpoint
  /** Set only when the server made the secret, to show once. */
  readonly generatedSecret: string | undefined
}

/**
 * Registers or replaces the session's `party.ready` endpoint (spec §6), in any status: a pending
 * event becomes due at once. Without `webhook_secret` the server generates one.
 */
export const registerOnboardingSessionWebhook =
  (deps: RegisterWebhookDeps) =>
  (caller: Caller, command: unknown): TE.TaskEither<LoadOwnSessionError | InvalidRequest | StoreUnavailable, RegisteredWebhook> =>
    pipe(
      loadOwnSession(deps.sessions)(caller, command),
      TE.chainW((session) =>
        pipe(
          TE.fromEither(decode(RegisterWebhookCommand)(command)),
          TE.chainFirstW((cmd) => deps.urlGuard.check(cmd.webhook_url, 'webhook_url')),
          TE.chainW((cmd) => {
            const generatedSecret = cmd.webhook_secret === undefined ? deps.webhookSecrets.generate() : undefined
            const now = deps.clock.now()
            return pipe(
              deps.webhooks.upsert({
                sessionId: session.id,
                url: cmd.webhook_url,
                sealedSecret: deps.webhookSecrets.seal(cmd.webhook_secret ?? (generatedSecret as string)),
                createdAt: now,
                updatedAt: now,
              }),
              // An event queued before the endpoint existed becomes due now.
              TE.chainFirstW(() => deps.events.hurryPending(session.id, now)),
              TE.map((endpoint) => ({ endpoint, generatedSecret })),
            )
          }),
        ),
      ),
    )
