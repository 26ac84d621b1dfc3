import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { currentStepOf, ONBOARDING_STATUSES, requirementsOf, transition, type OnboardingAction, type OnboardingProgress } from '../src/domain/onboarding/onboarding-state.js'
import { invalidState } from '../src/domain/foundations/errors.js'

const nothing: OnboardingProgress = {
  phoneGiven: false,
  phoneVerified: false,
  emailGiven: false,
  emailVerified: false,
  hasProfile: false,
  addressTypes: [],
}
const complete: OnboardingProgress = {
  phoneGiven: true,
  phoneVerified: true,
  emailGiven: true,
  emailVerified: true,
  hasProfile: true,
  addressTypes: ['registered'],
}

describe('onboarding state machine', () => {
  describe('transition', () => {
    const allowed: Record<OnboardingAction, { from: string; to: string }> = {
      edit: { from: 'IN_PROGRESS', to: 'IN_PROGRESS' },
      submit: { from: 'IN_PROGRESS', to: 'SUBMITTED' },
      approve: { from: 'SUBMITTED', to: 'APPROVED' },
      reject: { from: 'SUBMITTED', to: 'REJECTED' },
    }
    for (const status of ONBOARDING_STATUSES) {
      for (const [action, rule] of Object.entries(allowed) as [OnboardingAction, { from: string; to: string }][]) {
        if (status === rule.from) {
          it(`allows ${action} from ${status}, leading to ${rule.to}`, () => {
            expect(transition(status, action)).to.deep.equal(E.right(rule.to))
          })
        } else {
          it(`refuses ${action} from ${status} as InvalidState`, () => {
            expect(transition(status, action)).to.deep.equal(E.left(invalidState('onboarding_session', status, action)))
          })
        }
      }
    }
  })

  describe('requirementsOf and currentStepOf', () => {
    it('lists every requirement, in step order, for a new session whose step is PHONE_VERIFICATION', () => {
      expect(requirementsOf(nothing).map((r) => r.code)).to.deep.equal([
        'phone_missing',
        'email_missing',
        'applicant_profile_missing',
        'registered_address_missing',
      ])
      expect(currentStepOf(nothing)).to.equal('PHONE_VERIFICATION')
    })

    it('asks to verify a phone that was given but not verified', () => {
      const progress = { ...nothing, phoneGiven: true }
      expect(requirementsOf(progress)[0]).to.deep.equal({
        code: 'phone_unverified',
        step: 'PHONE_VERIFICATION',
        description: 'Verify the phone number with the code sent to it.',
      })
    })

    it('moves to the first unmet step, whatever order the partner filled things in', () => {
      expect(currentStepOf({ ...complete, emailVerified: false })).to.equal('EMAIL_VERIFICATION')
      expect(currentStepOf({ ...complete, hasProfile: false })).to.equal('APPLICANT_PROFILE')
      expect(currentStepOf({ ...complete, addressTypes: ['mailing', 'operating'] })).to.equal('ADDRESSES')
      expect(currentStepOf({ ...nothing, hasProfile: true, addressTypes: ['registered'] })).to.equal('PHONE_VERIFICATION')
    })

    it('has nothing outstanding and stands at REVIEW once everything is met', () => {
      expect(requirementsOf(complete)).to.deep.equal([])
      expect(currentStepOf(complete)).to.equal('REVIEW')
    })
  })
})
