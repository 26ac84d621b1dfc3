import type { Address } from './address.js'
import type { OnboardingSession } from './onboarding-session.js'
import type { AddressId, ClientId, PartyId, SessionId } from '../foundations/ids.js'

/** The approved borrower, made at approval; its addresses are copies, so later changes leave the session's record alone. */
export type Party = {
  readonly id: PartyId
  readonly sessionId: SessionId
  readonly clientId: ClientId
  readonly type: 'business'
  readonly legalName: string
  readonly tradingName: string | null
  readonly legalForm: string | null
  readonly registrationNumber: string | null
  readonly incorporationDate: string | null
  readonly industryCode: string | null
  readonly website: string | null
  /** Partners only ever see it masked. */
  readonly taxId: string | null
  readonly countryOfIncorporation: string
  /** As of approval. */
  readonly email: string | null
  readonly phone: string | null
  readonly addresses: readonly Address[]
  readonly createdAt: Date
}

/** The session must have a profile (submission guarantees it). */
export const partyFromSession = (session: OnboardingSession, partyId: PartyId, addressIds: () => AddressId, now: Date): Party => {
  const profile = session.profile
  if (profile === null) throw new Error('partyFromSession: a submitted session always has a profile')
  return {
    id: partyId,
    sessionId: session.id,
    clientId: session.clientId,
    type: session.type,
    legalName: profile.legalName,
    tradingName: profile.tradingName,
    legalForm: profile.legalForm,
    registrationNumber: profile.registrationNumber,
    incorporationDate: profile.incorporationDate,
    industryCode: profile.industryCode,
    website: profile.website,
    taxId: profile.taxId,
    countryOfIncorporation: session.countryOfIncorporation,
    email: session.email?.value ?? null,
    phone: session.phone?.value ?? null,
    // Copies keep their times, so the party lists them in the session's order.
    addresses: session.addresses.map((a) => ({ ...a, id: addressIds() })),
    createdAt: now,
  }
}
