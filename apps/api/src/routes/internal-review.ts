import {
  approveOnboardingSession,
  envelope,
  listOnboardingSessionsForReview,
  partyView,
  rejectOnboardingSession,
  reviewView,
} from '@lendgate/core'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { AppDeps } from '../deps.js'
import { operatorContext } from '../http/audit-context.js'
import { bodyOf } from '../http/body.js'
import { respond } from '../http/respond.js'
import type { Routes } from './route.js'

/** Internal review of onboarding sessions (CONTRACT.md, pinned; INTERNAL_API_TOKEN only). */
export const internalReviewRoutes = (deps: AppDeps): Routes => ({
  listOnboardingSessionsForReview: {
    handle: async (ctx) => respond(ctx, 200, await pipe(listOnboardingSessionsForReview(deps)(ctx.query), TE.map(envelope(reviewView)))()),
  },
  approveOnboardingSession: {
    handle: async (ctx) =>
      respond(
        ctx,
        200,
        await pipe(
          approveOnboardingSession(deps)(ctx.params, bodyOf(ctx), operatorContext(ctx)),
          TE.map(({ session, party }) => ({ session: reviewView(session), party: partyView(party) })),
        )(),
      ),
  },
  rejectOnboardingSession: {
    handle: async (ctx) => respond(ctx, 200, await pipe(rejectOnboardingSession(deps)(ctx.params, bodyOf(ctx), operatorContext(ctx)), TE.map(reviewView))()),
  },
})
