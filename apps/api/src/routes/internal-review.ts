import {
  approveOnboardingSession,
  envelope,
  listOnboardingSessionsForReview,
  partyView,
  rejectOnboardingSession,
  reviewView,
} from '@lendgate/core'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { AppDeps } from '../deps.js'
import { operatorContext } from '../http/audit-context.js'
import { bodyOf } from '../http/body.js'
import { routes } from './route.js'

/** Internal review of onboarding sessions (CONTRACT.md, pinned; INTERNAL_API_TOKEN only). */
export const internalReviewRoutes = (deps: AppDeps) =>
  routes({
  listOnboardingSessionsForReview: {
    run: (ctx) => pipe(listOnboardingSessionsForReview(deps)(ctx.query), TE.map(envelope(reviewView))),
  },
  approveOnboardingSession: {
    run: (ctx) => pipe(approveOnboardingSession(deps)(ctx.params, bodyOf(ctx), operatorContext(ctx)), TE.map(({ session, party }) => ({ session: reviewView(session), party: partyView(party) }))),
  },
  rejectOnboardingSession: {
    run: (ctx) => pipe(rejectOnboardingSession(deps)(ctx.params, bodyOf(ctx), operatorContext(ctx)), TE.map(reviewView)),
  },
})
