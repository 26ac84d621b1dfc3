import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Caller } from '../../domain/keys/api-key.js'
import { decode } from '../../domain/foundations/codecs.js'
import type { AlreadyExists, InvalidRequest, StoreUnavailable } from '../../domain/foundations/errors.js'
import { CreateOnboardingSessionInput, newOnboardingSession, type OnboardingSession } from '../../domain/onboarding/onboarding-session.js'
import type { Clock } from '../../ports/clock.js'
import type { IdGenerator } from '../../ports/id-generator.js'
import type { OnboardingSessionRepository } from '../../ports/onboarding-session-repository.js'
import { newId } from '../../domain/foundations/ids.js'

/** What `createOnboardingSession` needs. */
export type CreateOnboardingSessionDeps = {
  readonly sessions: Pick<OnboardingSessionRepository, 'insert'>
  readonly ids: IdGenerator
  readonly clock: Clock
}
/** An invalid command, or the store. */
export type CreateOnboardingSessionError = InvalidRequest | StoreUnavailable | AlreadyExists

/** A session owned by the caller's client (spec §4.2). Not idempotent. */
export const createOnboardingSession =
  (deps: CreateOnboardingSessionDeps) =>
  (caller: Caller, command: unknown): TE.TaskEither<CreateOnboardingSessionError, OnboardingSession> =>
    pipe(
      TE.fromEither(decode(CreateOnboardingSessionInput)(command)),
      TE.map((cmd) => newOnboardingSession(cmd, caller.clientId, newId(deps.ids), deps.clock.now())),
      TE.chainFirstW(deps.sessions.insert),
    )
