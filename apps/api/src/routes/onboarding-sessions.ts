import {
  contactVerificationView,
  retryContactVerification,
  submitContact,
  verifyContact,
  type ContactChannel,
  addressView,
  listOnboardingSessionWebhookDeliveries,
  retryWebhookDelivery,
  webhookDeliveryView,
  webhookEventView,
  registerOnboardingSessionWebhook,
  webhookEndpointView,
  getPartyBySessionId,
  partyView,
  submitOnboardingForReview,
  createOnboardingDocumentMetadata,
  documentView,
  listDocumentsForOnboardingSession,
  applicantProfileView,
  createOnboardingAddress,
  createOnboardingSession,
  envelope,
  getOnboardingSession,
  listOnboardingAddresses,
  listPendingOnboardingRequirements,
  onboardingSessionView,
  updateOnboardingAddress,
  upsertApplicantProfile,
} from '@lendgate/core'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { AppDeps } from '../deps.js'
import { bodyOf } from '../http/body.js'
import { serverMisconfigured, type Problem } from '../http/problems.js'
import { answer } from '../http/respond.js'
import type { AppContext } from '../http/context.js'
import { callerOf, type Routes } from './route.js'

/**
 * Code-sending routes need a sender; in production without VERIFICATION_DELIVERY_URL there is
 * none, and each of their requests answers that the server is misconfigured. Their deps are built
 * once, with the routes.
 */
const contactRoutes = (deps: AppDeps, channel: ContactChannel, names: { submit: string; retry: string; verify: string }): Routes => {
  const sending = deps.sender === undefined ? undefined : { ...deps, sender: deps.sender }
  const withSender = <A>(run: (withDeps: NonNullable<typeof sending>) => TE.TaskEither<Problem, A>): TE.TaskEither<Problem, A> =>
    sending === undefined ? TE.left(serverMisconfigured('VERIFICATION_DELIVERY_URL')) : run(sending)
  return {
    [names.submit]: {
      handle: (ctx: AppContext) =>
        answer(ctx, 201, withSender((d) => submitContact(channel)(d)(callerOf(ctx), ctx.params, bodyOf(ctx))), contactVerificationView),
    },
    [names.retry]: {
      handle: (ctx: AppContext) => answer(ctx, 201, withSender((d) => retryContactVerification(channel)(d)(callerOf(ctx), ctx.params)), contactVerificationView),
    },
    [names.verify]: {
      handle: (ctx: AppContext) => answer(ctx, 200, withSender((d) => verifyContact(channel)(d)(callerOf(ctx), ctx.params, bodyOf(ctx))), onboardingSessionView),
    },
  }
}

/** Onboarding sessions (spec §4.2). */
export const onboardingSessionRoutes = (deps: AppDeps): Routes => {
  // Registering a webhook seals its secret: without WEBHOOK_SECRET_KEY each request answers that the server is misconfigured.
  const sealing = deps.webhookSecrets === undefined ? undefined : { ...deps, webhookSecrets: deps.webhookSecrets }
  return {
    ...contactRoutes(deps, 'phone', { submit: 'submitOnboardingPhone', retry: 'retryOnboardingPhoneVerification', verify: 'verifyOnboardingPhone' }),
    ...contactRoutes(deps, 'email', { submit: 'submitOnboardingEmail', retry: 'retryOnboardingEmailVerification', verify: 'verifyOnboardingEmail' }),
    createOnboardingSession: {
      handle: (ctx) => answer(ctx, 201, createOnboardingSession(deps)(callerOf(ctx), bodyOf(ctx)), onboardingSessionView),
    },
    getOnboardingSession: {
      handle: (ctx) => answer(ctx, 200, getOnboardingSession(deps)(callerOf(ctx), ctx.params), onboardingSessionView),
    },
    upsertApplicantProfile: {
      handle: (ctx) => answer(ctx, 200, upsertApplicantProfile(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), applicantProfileView),
    },
    listOnboardingAddresses: {
      handle: (ctx) => answer(ctx, 200, listOnboardingAddresses(deps)(callerOf(ctx), ctx.params, ctx.query), envelope(addressView)),
    },
    createOnboardingAddress: {
      handle: (ctx) => answer(ctx, 201, createOnboardingAddress(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), addressView),
    },
    updateOnboardingAddress: {
      handle: (ctx) => answer(ctx, 200, updateOnboardingAddress(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), addressView),
    },
    createOnboardingDocumentMetadata: {
      handle: (ctx) => answer(ctx, 201, createOnboardingDocumentMetadata(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), documentView),
    },
    listDocumentsForOnboardingSession: {
      handle: (ctx) => answer(ctx, 200, listDocumentsForOnboardingSession(deps)(callerOf(ctx), ctx.params, ctx.query), envelope(documentView)),
    },
    submitOnboardingForReview: {
      handle: (ctx) => answer(ctx, 201, submitOnboardingForReview(deps)(callerOf(ctx), ctx.params), onboardingSessionView),
    },
    getPartyBySessionId: {
      handle: (ctx) => answer(ctx, 200, getPartyBySessionId(deps)(callerOf(ctx), ctx.params), partyView),
    },
    registerOnboardingSessionWebhook: {
      handle: (ctx) =>
        answer(
          ctx,
          200,
          sealing === undefined
            ? TE.left<Problem, never>(serverMisconfigured('WEBHOOK_SECRET_KEY'))
            : registerOnboardingSessionWebhook(sealing)(callerOf(ctx), ctx.params, bodyOf(ctx)),
          ({ endpoint, generatedSecret }) => webhookEndpointView(endpoint, generatedSecret),
        ),
      // The generated signing secret is shown once: a replay tells the registration, not the secret.
      forReplay: (body) => {
        const { webhook_secret: _secret, ...rest } = body as Record<string, unknown>
        return rest
      },
    },
    listOnboardingSessionWebhookDeliveries: {
      handle: (ctx) => answer(ctx, 200, listOnboardingSessionWebhookDeliveries(deps)(callerOf(ctx), ctx.params, ctx.query), envelope(webhookDeliveryView)),
    },
    retryOnboardingSessionWebhookDelivery: {
      handle: (ctx) => answer(ctx, 200, retryWebhookDelivery(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), webhookEventView),
    },
    listPendingOnboardingRequirements: {
      handle: (ctx) => answer(ctx, 200, listPendingOnboardingRequirements(deps)(callerOf(ctx), ctx.params, ctx.query), (data) => ({ data, next_cursor: null })),
    },
  }
}
