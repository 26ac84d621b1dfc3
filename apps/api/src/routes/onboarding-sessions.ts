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
import { serverMisconfigured, type Problem } from '../http/problems.js'
import { callerOf, routes, type Route } from './route.js'

/**
 * The contact routes of `channel`: submitting, resending and checking a code. They need a
 * sender; in production without VERIFICATION_DELIVERY_URL there is none, and each of their
 * requests answers that the server is misconfigured. Their deps are built once, with the routes.
 */
const contactRoute = (deps: AppDeps) => {
  const sending = deps.sender === undefined ? undefined : { ...deps, sender: deps.sender }
  const withSender = <A>(run: (withDeps: NonNullable<typeof sending>) => TE.TaskEither<Problem, A>): TE.TaskEither<Problem, A> =>
    sending === undefined ? TE.left(serverMisconfigured('VERIFICATION_DELIVERY_URL')) : run(sending)
  return {
    submit: (channel: ContactChannel): Route => ({
      run: (ctx) => pipe(withSender((d) => submitContact(channel)(d)(callerOf(ctx), ctx.params, bodyOf(ctx))), TE.map(contactVerificationView)),
    }),
    retry: (channel: ContactChannel): Route => ({
      run: (ctx) => pipe(withSender((d) => retryContactVerification(channel)(d)(callerOf(ctx), ctx.params)), TE.map(contactVerificationView)),
    }),
    verify: (channel: ContactChannel): Route => ({
      run: (ctx) => pipe(withSender((d) => verifyContact(channel)(d)(callerOf(ctx), ctx.params, bodyOf(ctx))), TE.map(onboardingSessionView)),
    }),
  }
}

/** Onboarding sessions (spec §4.2). */
export const onboardingSessionRoutes = (deps: AppDeps) => {
  const contact = contactRoute(deps)
  // Registering a webhook seals its secret: without WEBHOOK_SECRET_KEY each request answers that the server is misconfigured.
  const sealing = deps.webhookSecrets === undefined ? undefined : { ...deps, webhookSecrets: deps.webhookSecrets }
  return routes({
    submitOnboardingPhone: contact.submit('phone'),
    retryOnboardingPhoneVerification: contact.retry('phone'),
    verifyOnboardingPhone: contact.verify('phone'),
    submitOnboardingEmail: contact.submit('email'),
    retryOnboardingEmailVerification: contact.retry('email'),
    verifyOnboardingEmail: contact.verify('email'),
    createOnboardingSession: {
      run: (ctx) => pipe(createOnboardingSession(deps)(callerOf(ctx), bodyOf(ctx)), TE.map(onboardingSessionView)),
    },
    getOnboardingSession: {
      run: (ctx) => pipe(getOnboardingSession(deps)(callerOf(ctx), ctx.params), TE.map(onboardingSessionView)),
    },
    upsertApplicantProfile: {
      run: (ctx) => pipe(upsertApplicantProfile(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), TE.map(applicantProfileView)),
    },
    listOnboardingAddresses: {
      run: (ctx) => pipe(listOnboardingAddresses(deps)(callerOf(ctx), ctx.params, ctx.query), TE.map(envelope(addressView))),
    },
    createOnboardingAddress: {
      run: (ctx) => pipe(createOnboardingAddress(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), TE.map(addressView)),
    },
    updateOnboardingAddress: {
      run: (ctx) => pipe(updateOnboardingAddress(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), TE.map(addressView)),
    },
    createOnboardingDocumentMetadata: {
      run: (ctx) => pipe(createOnboardingDocumentMetadata(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), TE.map(documentView)),
    },
    listDocumentsForOnboardingSession: {
      run: (ctx) => pipe(listDocumentsForOnboardingSession(deps)(callerOf(ctx), ctx.params, ctx.query), TE.map(envelope(documentView))),
    },
    submitOnboardingForReview: {
      run: (ctx) => pipe(submitOnboardingForReview(deps)(callerOf(ctx), ctx.params), TE.map(onboardingSessionView)),
    },
    getPartyBySessionId: {
      run: (ctx) => pipe(getPartyBySessionId(deps)(callerOf(ctx), ctx.params), TE.map(partyView)),
    },
    registerOnboardingSessionWebhook: {
      run: (ctx) =>
        sealing === undefined
          ? TE.left(serverMisconfigured('WEBHOOK_SECRET_KEY'))
          : pipe(
              registerOnboardingSessionWebhook(sealing)(callerOf(ctx), ctx.params, bodyOf(ctx)),
              TE.map(({ endpoint, generatedSecret }) => webhookEndpointView(endpoint, generatedSecret)),
            ),
      // The generated signing secret is shown once: a replay tells the registration, not the secret.
      forReplay: (body) => {
        const { webhook_secret: _secret, ...rest } = body as Record<string, unknown>
        return rest
      },
    },
    listOnboardingSessionWebhookDeliveries: {
      run: (ctx) => pipe(listOnboardingSessionWebhookDeliveries(deps)(callerOf(ctx), ctx.params, ctx.query), TE.map(envelope(webhookDeliveryView))),
    },
    retryOnboardingSessionWebhookDelivery: {
      run: (ctx) => pipe(retryWebhookDelivery(deps)(callerOf(ctx), ctx.params, bodyOf(ctx)), TE.map(webhookEventView)),
    },
    listPendingOnboardingRequirements: {
      run: (ctx) => pipe(listPendingOnboardingRequirements(deps)(callerOf(ctx), ctx.params, ctx.query), TE.map((data) => ({ data, next_cursor: null }))),
    },
  })
}
