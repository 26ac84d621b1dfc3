import * as t from 'io-ts'
import type { Address } from './address.js'
import type { ApplicantProfile } from './applicant-profile.js'
import { oneOf, strictObject, withSchema } from '../foundations/codecs.js'
import { CountryCode, ISO_COUNTRY_CODES } from './country-codes.js'
import { currentStepOf, requirementsOf, type OnboardingProgress, type OnboardingStatus, type OnboardingStep, type Requirement } from './onboarding-state.js'
import type { ClientId, PartyId, SessionId } from '../foundations/ids.js'


/** Only businesses today. */
export const SESSION_TYPES = ['business'] as const
/** Where the borrower entered the flow. */
export const ENTRY_CHANNELS = ['partner_portal', 'partner_api', 'partner_mobile_app', 'assisted'] as const

/** Who decided, when, and why for a rejection. */
export type Review = {
  readonly decision: 'APPROVED' | 'REJECTED'
  readonly reviewedBy: string
  readonly reason: string | null
  readonly decidedAt: Date
}

/** `verifiedAt` null: not yet verified. */
export type Contact = { readonly value: string; readonly verifiedAt: Date | null }

/**
 * The aggregate a partner fills in (spec §2, §3). `currentStep` is recomputed from the contents on
 * every change (`withContents`), never set by hand (docs/onboarding.md).
 */
export type OnboardingSession = {
  readonly id: SessionId
  /** Only this client sees the session. */
  readonly clientId: ClientId
  readonly type: (typeof SESSION_TYPES)[number]
  readonly countryOfIncorporation: string
  readonly entryChannel: (typeof ENTRY_CHANNELS)[number]
  readonly locale: string
  readonly status: OnboardingStatus
  readonly currentStep: OnboardingStep
  readonly phone: Contact | null
  readonly email: Contact | null
  readonly profile: ApplicantProfile | null
  readonly addresses: readonly Address[]
  readonly submittedAt: Date | null
  readonly review: Review | null
  readonly partyId: PartyId | null
  /** A save based on an older version is refused (optimistic locking). */
  readonly version: number
  readonly createdAt: Date
  readonly updatedAt: Date
}

const progressOf = (session: OnboardingSession): OnboardingProgress => ({
  phoneGiven: session.phone !== null,
  phoneVerified: session.phone?.verifiedAt != null,
  emailGiven: session.email !== null,
  emailVerified: session.email?.verifiedAt != null,
  hasProfile: session.profile !== null,
  addressTypes: session.addresses.map((a) => a.type),
})

export const sessionRequirements = (session: OnboardingSession): readonly Requirement[] => requirementsOf(progressOf(session))

export const withContents = (
  session: OnboardingSession,
  changes: Partial<Pick<OnboardingSession, 'phone' | 'email' | 'profile' | 'addresses'>>,
  now: Date,
): OnboardingSession => {
  const next = { ...session, ...changes, updatedAt: now }
  return { ...next, currentStep: currentStepOf(progressOf(next)) }
}

/** `xx-XX`: a 2-3 letter language and an ISO country. */
const Locale = withSchema(new t.Type<string, string, unknown>(
  'Locale',
  (u): u is string => typeof u === 'string',
  (u, c) => {
    const match = typeof u === 'string' ? /^([a-z]{2,3})-([A-Z]{2})$/.exec(u) : null
    return match !== null && ISO_COUNTRY_CODES.has(match[2]!)
      ? t.success(u as string)
      : t.failure(u, c, 'must be a language-region tag such as en-US')
  },
  t.identity,
), { type: 'string', pattern: '^[a-z]{2,3}-[A-Z]{2}$', description: 'a language-region tag such as en-US' })

/** `type` defaults to `business`, `entry_channel` to `partner_portal`. */
export const CreateOnboardingSessionInput = strictObject(
  'CreateOnboardingSessionInput',
  { country_of_incorporation: CountryCode, locale: Locale },
  { type: oneOf('SessionType', SESSION_TYPES), entry_channel: oneOf('EntryChannel', ENTRY_CHANNELS) },
)
export type CreateOnboardingSessionInput = t.TypeOf<typeof CreateOnboardingSessionInput>

/** `IN_PROGRESS` at `PHONE_VERIFICATION`, version 1. */
export const newOnboardingSession = (
  input: CreateOnboardingSessionInput,
  clientId: ClientId,
  id: SessionId,
  now: Date,
): OnboardingSession => ({
  id,
  clientId,
  type: input.type ?? 'business',
  countryOfIncorporation: input.country_of_incorporation,
  entryChannel: input.entry_channel ?? 'partner_portal',
  locale: input.locale,
  status: 'IN_PROGRESS',
  currentStep: 'PHONE_VERIFICATION',
  phone: null,
  email: null,
  profile: null,
  addresses: [],
  submittedAt: null,
  review: null,
  partyId: null,
  version: 1,
  createdAt: now,
  updatedAt: now,
})
