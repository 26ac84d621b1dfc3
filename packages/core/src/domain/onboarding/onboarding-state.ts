import * as E from 'fp-ts/lib/Either.js'
import { invalidState, type InvalidState } from '../foundations/errors.js'

/**
 * The onboarding state machine (docs/onboarding.md), as pure functions.
 *
 * Status: `IN_PROGRESS` → `SUBMITTED` → `APPROVED` | `REJECTED`. Only an `IN_PROGRESS` session
 * can be edited by the partner; submission needs every requirement met; only a `SUBMITTED`
 * session can be approved or rejected. `current_step` is never stored as a fact of its own: it
 * is the step of the first outstanding requirement, or `REVIEW` when none is outstanding.
 */

/** A session's statuses: `IN_PROGRESS` → `SUBMITTED` → `APPROVED` | `REJECTED`. */
export const ONBOARDING_STATUSES = ['IN_PROGRESS', 'SUBMITTED', 'APPROVED', 'REJECTED'] as const
/** One of `ONBOARDING_STATUSES`. */
export type OnboardingStatus = (typeof ONBOARDING_STATUSES)[number]

/** The steps of onboarding, in order; a session's `currentStep` is the step of its first outstanding requirement. */
export const ONBOARDING_STEPS = ['PHONE_VERIFICATION', 'EMAIL_VERIFICATION', 'APPLICANT_PROFILE', 'ADDRESSES', 'REVIEW'] as const
/** One of `ONBOARDING_STEPS`. */
export type OnboardingStep = (typeof ONBOARDING_STEPS)[number]

/** What the requirements and the current step are computed from. */
export type OnboardingProgress = {
  readonly phoneVerified: boolean
  readonly phoneGiven: boolean
  readonly emailVerified: boolean
  readonly emailGiven: boolean
  readonly hasProfile: boolean
  readonly addressTypes: readonly string[]
}

/** The stable code of an outstanding requirement, for partners to switch on. */
export type RequirementCode =
  | 'phone_missing'
  | 'phone_unverified'
  | 'email_missing'
  | 'email_unverified'
  | 'applicant_profile_missing'
  | 'registered_address_missing'

/**
 * Something a session still lacks before it can be submitted, with the step it belongs to and a
 * sentence for people.
 */
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

/** Outstanding requirements, in step order. Computed, never stored, so they cannot drift. */
export const requirementsOf = (progress: OnboardingProgress): readonly Requirement[] =>
  REQUIREMENTS.filter((r) => !r.met(progress)).map(({ code, step, description }) => ({ code, step, description }))

/** The step of the first outstanding requirement; `REVIEW` once all are met. */
export const currentStepOf = (progress: OnboardingProgress): OnboardingStep => requirementsOf(progress)[0]?.step ?? 'REVIEW'

export type OnboardingAction = 'edit' | 'submit' | 'approve' | 'reject'

/** From which status each action is allowed. */
const ALLOWED_FROM: Readonly<Record<OnboardingAction, OnboardingStatus>> = {
  edit: 'IN_PROGRESS',
  submit: 'IN_PROGRESS',
  approve: 'SUBMITTED',
  reject: 'SUBMITTED',
}

/** The status an action leads to (`edit` keeps the status). */
const LEADS_TO: Readonly<Record<OnboardingAction, OnboardingStatus>> = {
  edit: 'IN_PROGRESS',
  submit: 'SUBMITTED',
  approve: 'APPROVED',
  reject: 'REJECTED',
}

/** The status after `action`, or `InvalidState` when the session's status forbids it. */
export const transition = (status: OnboardingStatus, action: OnboardingAction): E.Either<InvalidState, OnboardingStatus> =>
  status === ALLOWED_FROM[action] ? E.right(LEADS_TO[action]) : E.left(invalidState('onboarding_session', status, action))
