import {
  approveOnboardingSession,
  documentView,
  envelope,
  getOnboardingSessionForReview,
  listOnboardingDocumentsForReview,
  reviewDetailView,
  listOnboardingSessionsForReview,
  partyView,
  rejectOnboardingSession,
  reviewView,
} from '@lendgate/core'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { AppDeps } from '../deps.js'
import { operatorContext } from '../http/audit-context.js'
import { routes } from './route.js'

/** Internal review of onboarding sessions (CONTRACT.md, pinned; INTERNAL_API_TOKEN only). */
export const internalReviewRoutes = (deps: AppDeps) =>
  routes({
  listOnboardingSessionsForReview: {
    run: (_ctx, command) => pipe(listOnboardingSessionsForReview(deps)(command), TE.map(envelope(reviewView))),
  },
  getOnboardingSessionForReview: {
    run: (_ctx, command) => pipe(getOnboardingSessionForReview(deps)(command), TE.map(reviewDetailView)),
  },
  listOnboardingDocumentsForReview: {
    run: (_ctx, command) => pipe(listOnboardingDocumentsForReview(deps)(command), TE.map(envelope(documentView))),
  },
  approveOnboardingSession: {
    run: (ctx, command) => pipe(approveOnboardingSession(deps)(command, operatorContext(ctx)), TE.map(({ session, party }) => ({ session: reviewView(session), party: partyView(party) }))),
  },
  rejectOnboardingSession: {
    run: (ctx, command) => pipe(rejectOnboardingSession(deps)(command, operatorContext(ctx)), TE.map(reviewView)),
  },
})
