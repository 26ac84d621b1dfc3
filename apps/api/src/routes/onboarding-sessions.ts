import { createOnboardingSession, getOnboardingSession, onboardingSessionView } from '@lendgate/core'
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
})
