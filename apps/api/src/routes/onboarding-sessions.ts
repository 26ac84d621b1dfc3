import {
  addressView,
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
import { respond } from '../http/respond.js'
import { callerOf, type Routes } from './route.js'

/** Onboarding sessions (spec §4.2). */
export const onboardingSessionRoutes = (deps: AppDeps): Routes => ({
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
