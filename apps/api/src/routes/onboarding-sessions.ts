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
import { pipe } from 'fp-ts/lib/function.js'
import type { AppDeps } from '../deps.js'
import { bodyOf } from '../http/body.js'
import { fail, serverMisconfigured } from '../http/problems.js'
import { respond } from '../http/respond.js'
import type { AppContext } from '../http/context.js'
import { callerOf, type Routes } from './route.js'

/** Code-sending routes need a sender; in production without VERIFICATION_DELIVERY_URL there is none. */
const withSender = (deps: AppDeps) => {
  const sender = deps.sender
  return sender === undefined ? fail(serverMisconfigured('VERIFICATION_DELIVERY_URL')) : { ...deps, sender }
}

const contactRoutes = (deps: AppDeps, channel: ContactChannel, names: { submit: string; retry: string; verify: string }): Routes => ({
  [names.submit]: {
    handle: async (ctx: AppContext) =>
      respond(ctx, 201, await pipe(submitContact(channel)(withSender(deps))(callerOf(ctx), ctx.params, bodyOf(ctx)), TE.map(contactVerificationView))()),
  },
  [names.retry]: {
    handle: async (ctx: AppContext) =>
      respond(ctx, 201, await pipe(retryContactVerification(channel)(withSender(deps))(callerOf(ctx), ctx.params), TE.map(contactVerificationView))()),
  },
  [names.verify]: {
    handle: async (ctx: AppContext) =>
      respond(ctx, 200, await pipe(verifyContact(channel)(withSender(deps))(callerOf(ctx), ctx.params, bodyOf(ctx)), TE.map(onboardingSessionView))()),
  },
})

/** Onboarding sessions (spec §4.2). */
export const onboardingSessionRoutes = (deps: AppDeps): Routes => ({
  ...contactRoutes(deps, 'phone', { submit: 'submitOnboardingPhone', retry: 'retryOnboardingPhoneVerification', verify: 'verifyOnboardingPhone' }),
  ...contactRoutes(deps, 'email', { submit: 'submitOnboardingEmail', retry: 'retryOnboardingEmailVerification', verify: 'verifyOnboardingEmail' }),
  createOnboardingSession: {
    handle: async (ctx) =>
      respond(ctx, 201, await pipe(createOnboardingSession(deps)(callerOf(ctx), bodyOf(ctx)), TE.map(onboardingSessionView))()),
  },
  getOnboardingSession: {
    handle: async (ctx) =>
      respond(ctx, 200, await pipe(getOnboardingSession(deps)(callerOf(ctx), ctx.params), TE.map(onboardingSessionView))()),
  },
  upsertApplicantProfile: {
    handle: async (ctx) =>
      respond(ctx, 200, await pipe(upsertApplicantProfile(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), TE.map(applicantProfileView))()),
  },
  listOnboardingAddresses: {
    handle: async (ctx) =>
      respond(ctx, 200, await pipe(listOnboardingAddresses(deps)(callerOf(ctx), ctx.params, ctx.query), TE.map(envelope(addressView)))()),
  },
  createOnboardingAddress: {
    handle: async (ctx) =>
      respond(ctx, 201, await pipe(createOnboardingAddress(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), TE.map(addressView))()),
  },
  updateOnboardingAddress: {
    handle: async (ctx) =>
      respond(ctx, 200, await pipe(updateOnboardingAddress(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), TE.map(addressView))()),
  },
  createOnboardingDocumentMetadata: {
    handle: async (ctx) =>
      respond(ctx, 201, await pipe(createOnboardingDocumentMetadata(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), TE.map(documentView))()),
  },
  listDocumentsForOnboardingSession: {
    handle: async (ctx) =>
      respond(ctx, 200, await pipe(listDocumentsForOnboardingSession(deps)(callerOf(ctx), ctx.params, ctx.query), TE.map(envelope(documentView)))()),
  },
  submitOnboardingForReview: {
    handle: async (ctx) =>
      respond(ctx, 201, await pipe(submitOnboardingForReview(deps)(callerOf(ctx), ctx.params), TE.map(onboardingSessionView))()),
  },
  getPartyBySessionId: {
    handle: async (ctx) => respond(ctx, 200, await pipe(getPartyBySessionId(deps)(callerOf(ctx), ctx.params), TE.map(partyView))()),
  },
  registerOnboardingSessionWebhook: {
    handle: async (ctx) => {
      const webhookSecrets = deps.webhookSecrets ?? fail(serverMisconfigured('WEBHOOK_SECRET_KEY'))
      respond(
        ctx,
        200,
        await pipe(
          registerOnboardingSessionWebhook({ ...deps, webhookSecrets })(callerOf(ctx), ctx.params, bodyOf(ctx)),
          TE.map(({ endpoint, generatedSecret }) => webhookEndpointView(endpoint, generatedSecret)),
        )(),
      )
    },
    // The generated signing secret is shown once: a replay tells the registration, not the secret.
    forReplay: (body) => {
      const { webhook_secret: _secret, ...rest } = body as Record<string, unknown>
      return rest
    },
  },
  listOnboardingSessionWebhookDeliveries: {
    handle: async (ctx) =>
      respond(ctx, 200, await pipe(listOnboardingSessionWebhookDeliveries(deps)(callerOf(ctx), ctx.params, ctx.query), TE.map(envelope(webhookDeliveryView)))()),
  },
  retryOnboardingSessionWebhookDelivery: {
    handle: async (ctx) =>
      respond(
        ctx,
        200,
        await pipe(
          retryWebhookDelivery(deps)(callerOf(ctx), ctx.params),
          TE.map(webhookEventView),
        )(),
      ),
  },
  listPendingOnboardingRequirements: {
    handle: async (ctx) =>
      respond(
        ctx,
        200,
        await pipe(
          listPendingOnboardingRequirements(deps)(callerOf(ctx), ctx.params, ctx.query),
          TE.map((data) => ({ data, next_cursor: null })),
        )(),
      ),
  },
})
