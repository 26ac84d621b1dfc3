import {
  approveOnboardingSession,
  envelope,
  listOnboardingSessionsForReview,
  partyView,
  rejectOnboardingSession,
  reviewView,
} from '@lendgate/core'
import type { AppDeps } from '../deps.js'
import { operatorContext } from '../http/audit-context.js'
import { bodyOf } from '../http/body.js'
import { answer } from '../http/respond.js'
import type { Routes } from './route.js'

/** Internal review of onboarding sessions (CONTRACT.md, pinned; INTERNAL_API_TOKEN only). */
export const internalReviewRoutes = (deps: AppDeps): Routes => ({
  listOnboardingSessionsForReview: {
    handle: (ctx) => answer(ctx, 200, listOnboardingSessionsForReview(deps)(ctx.query), envelope(reviewView)),
  },
  approveOnboardingSession: {
    handle: (ctx) =>
      answer(
        ctx,
        200,
        approveOnboardingSession(deps)(ctx.params, bodyOf(ctx), operatorContext(ctx)),
        ({ session, party }) => ({ session: reviewView(session), party: partyView(party) }),
      ),
  },
  rejectOnboardingSession: {
    handle: (ctx) => answer(ctx, 200, rejectOnboardingSession(deps)(ctx.params, bodyOf(ctx), operatorContext(ctx)), reviewView),
  },
})
