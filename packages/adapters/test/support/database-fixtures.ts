import {
  keyMintedEvent,
  newOnboardingSession,
  OPERATOR_CONTEXT,
  partyFromSession,
  partyReady,
  partyView,
  sessionApprovedEvent,
  type OnboardingSession,
  type OnboardingSessionRepository,
  type Party,
  type ClientId,
  type SessionId,
} from '@lendgate/core'
import { freshId, right } from '@lendgate/core/testing/contracts'
import { postgresApiKeyRepository } from '../../src/postgres/api-key-repository.js'
import { postgresOnboardingSessionRepository } from '../../src/postgres/onboarding-session-repository.js'
import { testId } from '@lendgate/core/testing'

/**
 * Rows the contract suites need before the rows under test can exist (foreign keys): API
 * clients, onboarding sessions, approved parties. Shared by every suite run on a database.
 */

/** A session of `clientId` with verified contacts and a profile, submitted for review (not stored). */
export const submittedSession = (clientId: string, now: Date): OnboardingSession => ({
  ...newOnboardingSession({ country_of_incorporation: 'US', locale: 'en-US' }, testId(clientId), freshId(), now),
  status: 'SUBMITTED',
  phone: { value: '+14155550123', verifiedAt: now },
  email: { value: 'owner@acme.example', verifiedAt: now },
  profile: {
    legalName: 'Acme Widgets LLC',
    tradingName: 'Acme',
    legalForm: 'llc',
    registrationNumber: 'R-1',
    incorporationDate: '2019-04-30',
    industryCode: '332510',
    website: 'https://acme.example',
    taxId: '12-3456789',
    updatedAt: now,
  },
  submittedAt: now,
})

/** What approving `submitted` writes: the approved session and its new party (not stored). */
export const approvalOf = (submitted: OnboardingSession, now: Date): { readonly approved: OnboardingSession; readonly party: Party } => {
  const party = partyFromSession(submitted, freshId(), freshId, now)
  const approved: OnboardingSession = {
    ...submitted,
    status: 'APPROVED',
    partyId: party.id,
    review: { decision: 'APPROVED', reviewedBy: 'contract', reason: null, decidedAt: now },
    updatedAt: now,
  }
  return { approved, party }
}

/**
 * Creates parties on demand the only way there is: approving a submitted session (the party
 * has no addresses). Applications and loans reference their party.
 */
export function partyMaker(sessions: OnboardingSessionRepository, owner: () => Promise<ClientId>): () => Promise<Party> {
  return async () => {
    const now = new Date()
    const submitted = submittedSession(await owner(), now)
    await right(sessions.insert(submitted))
    const { approved, party } = approvalOf(submitted, now)
    await right(sessions.saveApproved(approved, party, partyReady(freshId(), submitted.id, partyView(party), now, 'live'), sessionApprovedEvent(freshId(), OPERATOR_CONTEXT, approved, freshId(), now)))
    return party
  }
}

/** Creates sessions on demand in the world of `world` (challenges and documents reference their session), their clients through `db`. */
export function sessionMaker(db: Parameters<typeof postgresApiKeyRepository>[0], world = db): () => Promise<SessionId> {
  const sessions = postgresOnboardingSessionRepository(world)
  const owner = clientOwner(db)
  return async () => {
    const s = newOnboardingSession({ country_of_incorporation: 'US', locale: 'en-US' }, testId(await owner()), freshId(), new Date())
    await right(sessions.insert(s))
    return s.id
  }
}

/** Creates API clients on demand (sessions reference their client). */
export function clientOwner(db: Parameters<typeof postgresApiKeyRepository>[0]): () => Promise<ClientId> {
  const keys = postgresApiKeyRepository(db)
  return async () => {
    const partyId = freshId()
    const segment = freshId().replace(/-/g, '').slice(0, 16)
    const minted = await right(
      keys.mint({
        client: { id: freshId(), partyId, name: 'contract', createdAt: new Date() },
        key: {
          id: freshId(), partyId, idSegment: segment, prefix: `lgk_test_${segment}`, hash: '0'.repeat(64), environment: 'test',
          scopes: ['*'], status: 'active', createdAt: new Date(), revokedAt: null, lastUsedAt: null,
        },
      }, ({ client, key }) => keyMintedEvent(freshId(), OPERATOR_CONTEXT, client, key)),
    )
    return minted.client.id
  }
}
