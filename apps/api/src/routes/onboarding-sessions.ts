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
      run: (ctx, command) => pipe(withSender((d) => submitContact(channel)(d)(callerOf(ctx), command)), TE.map(contactVerificationView)),
    }),
    retry: (channel: ContactChannel): Route => ({
      run: (ctx, command) => pipe(withSender((d) => retryContactVerification(channel)(d)(callerOf(ctx), command)), TE.map(contactVerificationView)),
    }),
    verify: (channel: ContactChannel): Route => ({
      run: (ctx, command) => pipe(withSender((d) => verifyContact(channel)(d)(callerOf(ctx), command)), TE.map(onboardingSessionView)),
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
      run: (ctx, command) => pipe(createOnboardingSession(deps)(callerOf(ctx), command), TE.map(onboardingSessionView)),
    },
    getOnboardingSession: {
      run: (ctx, command) => pipe(getOnboardingSession(deps)(callerOf(ctx), command), TE.map(onboardingSessionView)),
    },
    upsertApplicantProfile: {
      run: (ctx, command) => pipe(upsertApplicantProfile(deps)(callerOf(ctx), command), TE.map(applicantProfileView)),
    },
    listOnboardingAddresses: {
      run: (ctx, command) => pipe(listOnboardingAddresses(deps)(callerOf(ctx), command), TE.map(envelope(addressView))),
    },
    createOnboardingAddress: {
      run: (ctx, command) => pipe(createOnboardingAddress(deps)(callerOf(ctx), command), TE.map(addressView)),
    },
    updateOnboardingAddress: {
      run: (ctx, command) => pipe(updateOnboardingAddress(deps)(callerOf(ctx), command), TE.map(addressView)),
    },
    createOnboardingDocumentMetadata: {
      run: (ctx, command) => pipe(createOnboardingDocumentMetadata(deps)(callerOf(ctx), command), TE.map(documentView)),
    },
    listDocumentsForOnboardingSession: {
      run: (ctx, command) => pipe(listDocumentsForOnboardingSession(deps)(callerOf(ctx), command), TE.map(envelope(documentView))),
    },
    submitOnboardingForReview: {
      run: (ctx, command) => pipe(submitOnboardingForReview(deps)(callerOf(ctx), command), TE.map(onboardingSessionView)),
    },
    getPartyBySessionId: {
      run: (ctx, command) => pipe(getPartyBySessionId(deps)(callerOf(ctx), command), TE.map(partyView)),
    },
    registerOnboardingSessionWebhook: {
      run: (ctx, command) =>
        sealing === undefined
          ? TE.left(serverMisconfigured('WEBHOOK_SECRET_KEY'))
          : pipe(
              registerOnboardingSessionWebhook(sealing)(callerOf(ctx), command),
              TE.map(({ endpoint, generatedSecret }) => webhookEndpointView(endpoint, generatedSecret)),
            ),
      // The generated signing secret is shown once: a replay tells the registration, not the secret.
      forReplay: (body) => {
        const { webhook_secret: _secret, ...rest } = body as Record<string, unknown>
        return rest
      },
    },
    listOnboardingSessionWebhookDeliveries: {
      run: (ctx, command) => pipe(listOnboardingSessionWebhookDeliveries(deps)(callerOf(ctx), command), TE.map(envelope(webhookDeliveryView))),
    },
    retryOnboardingSessionWebhookDelivery: {
      run: (ctx, command) => pipe(retryWebhookDelivery(deps)(callerOf(ctx), command), TE.map(webhookEventView)),
    },
    listPendingOnboardingRequirements: {
      run: (ctx, command) => pipe(listPendingOnboardingRequirements(deps)(callerOf(ctx), command), TE.map((data) => ({ data, next_cursor: null }))),
    },
  })
}
