import * as E from 'fp-ts/lib/Either.js'
import { invalidState, type InvalidState } from '../foundations/errors.js'

/**
 * The onboarding state machine (docs/onboarding.md): `IN_PROGRESS` → `SUBMITTED` → `APPROVED` |
 * `REJECTED`; `current_step` is the first outstanding requirement's step, or `REVIEW`.
 */

export const ONBOARDING_STATUSES = ['IN_PROGRESS', 'SUBMITTED', 'APPROVED', 'REJECTED'] as const
/** One of `ONBOARDING_STATUSES`. */
export type OnboardingStatus = (typeof ONBOARDING_STATUSES)[number]

/** In order. */
export const ONBOARDING_STEPS = ['PHONE_VERIFICATION', 'EMAIL_VERIFICATION', 'APPLICANT_PROFILE', 'ADDRESSES', 'REVIEW'] as const
/** One of `ONBOARDING_STEPS`. */
export type OnboardingStep = (typeof ONBOARDING_STEPS)[number]

export type OnboardingProgress = {
  readonly phoneVerified: boolean
  readonly phoneGiven: boolean
  readonly emailVerified: boolean
  readonly emailGiven: boolean
  readonly hasProfile: boolean
  readonly addressTypes: readonly string[]
}

/** Stable, for partners to switch on. */
export type RequirementCode =
  | 'phone_missing'
  | 'phone_unverified'
  | 'email_missing'
  | 'email_unverified'
  | 'applicant_profile_missing'
  | 'registered_address_missing'

/** What a session lacks for submission, with its step and a sentence for people. */
export type Requirement = { readonly code: RequirementCode; readonly step: OnboardingStep; readonly description: string }

const REQUIREMENTS: readonly (Requirement & { readonly met: (p: OnboardingProgress) => boolean })[] = [
  { code: 'phone_missing', step: 'PHONE_VERIFICATION', description: "Submit the applicant's phone number.", met: (p) => p.phoneGiven },
  {
    code: 'phone_unverified',
    step: 'PHONE_VERIFICATION',
    description: 'Verify the phone number with the code sent to it.',
    met: (p) => !p.phoneGiven || p.phoneVerified,
  },
  { code: 'email_missing', step: 'EMAIL_VERIFICATION', description: "Submit the applicant's email address.", met: (p) => p.emailGiven },
  {
    code: 'email_unverified',
    step: 'EMAIL_VERIFICATION',
    description: 'Verify the email address with the code sent to it.',
    met: (p) => !p.emailGiven || p.emailVerified,
  },
  {
    code: 'applicant_profile_missing',
    step: 'APPLICANT_PROFILE',
    description: 'Submit the applicant profile (at least the legal name).',
    met: (p) => p.hasProfile,
  },
  {
    code: 'registered_address_missing',
    step: 'ADDRESSES',
    description: 'Add the registered address of the business.',
    met: (p) => p.addressTypes.includes('registered'),
  },
]

/** In step order; computed, never stored. */
export const requirementsOf = (progress: OnboardingProgress): readonly Requirement[] =>
  REQUIREMENTS.filter((r) => !r.met(progress)).map(({ code, step, description }) => ({ code, step, description }))

export const currentStepOf = (progress: OnboardingProgress): OnboardingStep => requirementsOf(progress)[0]?.step ?? 'REVIEW'

export type OnboardingAction = 'edit' | 'submit' | 'approve' | 'reject'

const ALLOWED_FROM: Readonly<Record<OnboardingAction, OnboardingStatus>> = {
  edit: 'IN_PROGRESS',
  submit: 'IN_PROGRESS',
  approve: 'SUBMITTED',
  reject: 'SUBMITTED',
}

/** `edit` keeps the status. */
const LEADS_TO: Readonly<Record<OnboardingAction, OnboardingStatus>> = {
  edit: 'IN_PROGRESS',
  submit: 'SUBMITTED',
  approve: 'APPROVED',
  reject: 'REJECTED',
}

export const transition = (status: OnboardingStatus, action: OnboardingAction): E.Either<InvalidState, OnboardingStatus> =>
  status === ALLOWED_FROM[action] ? E.right(LEADS_TO[action]) : E.left(invalidState('onboarding_session', status, action))
