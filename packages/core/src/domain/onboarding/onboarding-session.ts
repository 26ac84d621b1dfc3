import * as t from 'io-ts'
import type { Address } from './address.js'
import type { ApplicantProfile } from './applicant-profile.js'
import { oneOf, strictObject, withSchema } from '../foundations/codecs.js'
import { CountryCode, ISO_COUNTRY_CODES } from './country-codes.js'
import { currentStepOf, requirementsOf, type OnboardingProgress, type OnboardingStatus, type OnboardingStep, type Requirement } from './onboarding-state.js'
import type { ClientId, PartyId, SessionId } from '../foundations/ids.js'

/**
 * Onboarding sessions (spec §2, §3): the aggregate a partner fills in, with its contacts,
 * applicant profile and addresses. A new session is `IN_PROGRESS` at `PHONE_VERIFICATION`;
 * `currentStep` is recomputed from the session's contents on every change (`withContents`),
 * never set by hand. The state machine is in onboarding-state.ts and docs/onboarding.md.
 */

/** Borrower types Lendgate onboards. Only businesses today. */
export const SESSION_TYPES = ['business'] as const
/** Where the borrower entered the flow. */
export const ENTRY_CHANNELS = ['partner_portal', 'partner_api', 'partner_mobile_app', 'assisted'] as const

/** Who decided, when, and (for a rejection) why. */
export type Review = {
  readonly decision: 'APPROVED' | 'REJECTED'
  readonly reviewedBy: string
  readonly reason: string | null
  readonly decidedAt: Date
}

/** A phone number or email address and when it was verified (null: not yet). */
export type Contact = { readonly value: string; readonly verifiedAt: Date | null }

/**
 * An onboarding session (spec §2, §3): the aggregate a partner fills in, with its contacts,
 * applicant profile and addresses. A new session is `IN_PROGRESS` at `PHONE_VERIFICATION`;
 * `currentStep` is recomputed from the contents on every change, never set by hand.
 */
export type OnboardingSession = {
  readonly id: SessionId
  /** The API client that created the session; only it can see the session. */
  readonly clientId: ClientId
  readonly type: (typeof SESSION_TYPES)[number]
  /** ISO 3166-1 alpha-2 code. */
  readonly countryOfIncorporation: string
  readonly entryChannel: (typeof ENTRY_CHANNELS)[number]
  /** Language-region tag such as `en-US`. */
  readonly locale: string
  readonly status: OnboardingStatus
  /** The step of the first outstanding requirement; `REVIEW` once none is outstanding. */
  readonly currentStep: OnboardingStep
  readonly phone: Contact | null
  readonly email: Contact | null
  readonly profile: ApplicantProfile | null
  /** In creation order. */
  readonly addresses: readonly Address[]
  /** When the partner submitted the session for review. */
  readonly submittedAt: Date | null
  /** The internal decision, once made. */
  readonly review: Review | null
  /** The party created at approval. */
  readonly partyId: PartyId | null
  /** Bumped by every save; a save based on an older version is refused (optimistic locking). */
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

/** Outstanding requirements of the session (computed, never stored). */
export const sessionRequirements = (session: OnboardingSession): readonly Requirement[] => requirementsOf(progressOf(session))

/**
 * The session with new contents at `now`: `updatedAt` moves and `currentStep` is recomputed,
 * so the step always names the first unmet requirement.
 */
export const withContents = (
  session: OnboardingSession,
  changes: Partial<Pick<OnboardingSession, 'phone' | 'email' | 'profile' | 'addresses'>>,
  now: Date,
): OnboardingSession => {
  const next = { ...session, ...changes, updatedAt: now }
  return { ...next, currentStep: currentStepOf(progressOf(next)) }
}

/** Language-region tag (`xx-XX`): a BCP 47 language of 2-3 letters and an ISO country. */
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

/**
 * The fields of a new session: `country_of_incorporation` and `locale` (required), `type`
 * (`business` when left out) and `entry_channel` (`partner_portal` when left out).
 */
export const CreateOnboardingSessionInput = strictObject(
  'CreateOnboardingSessionInput',
  { country_of_incorporation: CountryCode, locale: Locale },
  { type: oneOf('SessionType', SESSION_TYPES), entry_channel: oneOf('EntryChannel', ENTRY_CHANNELS) },
)
/** A decoded `CreateOnboardingSessionInput`. */
export type CreateOnboardingSessionInput = t.TypeOf<typeof CreateOnboardingSessionInput>

/** A new session of `clientId` from decoded input: `IN_PROGRESS` at `PHONE_VERIFICATION`, version 1. */
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
