import type { Address, AddressType } from '../domain/onboarding/address.js'
import { maskTaxId, type ApplicantProfile } from '../domain/onboarding/applicant-profile.js'
import type { DocumentMetadata, DocumentType } from '../domain/onboarding/document.js'
import type { OnboardingSession } from '../domain/onboarding/onboarding-session.js'
import type { OnboardingStatus, OnboardingStep } from '../domain/onboarding/onboarding-state.js'
import type { Party } from '../domain/onboarding/party.js'
import { instantText } from '../domain/foundations/instant.js'

/** Spec §3.2; contacts, profile and addresses have routes of their own. */
export type OnboardingSessionView = {
  readonly session_id: string
  readonly type: string
  readonly country_of_incorporation: string
  readonly entry_channel: string
  readonly locale: string
  readonly status: OnboardingStatus
  readonly current_step: OnboardingStep
  readonly created_at: string
  readonly updated_at: string
}

/** The API's view of a session. */
export const onboardingSessionView = (session: OnboardingSession): OnboardingSessionView => ({
  session_id: session.id,
  type: session.type,
  country_of_incorporation: session.countryOfIncorporation,
  entry_channel: session.entryChannel,
  locale: session.locale,
  status: session.status,
  current_step: session.currentStep,
  created_at: instantText(session.createdAt),
  updated_at: instantText(session.updatedAt),
})

/** The full tax id is never returned. */
export type ApplicantProfileView = {
  readonly legal_name: string
  readonly trading_name: string | null
  readonly legal_form: string | null
  readonly registration_number: string | null
  readonly incorporation_date: string | null
  readonly industry_code: string | null
  readonly website: string | null
  readonly tax_id_masked: string | null
  readonly updated_at: string
}

const profileFieldsView = (p: Pick<Party, 'legalName' | 'tradingName' | 'legalForm' | 'registrationNumber' | 'incorporationDate' | 'industryCode' | 'website' | 'taxId'>): Omit<ApplicantProfileView, 'updated_at'> => ({
  legal_name: p.legalName,
  trading_name: p.tradingName,
  legal_form: p.legalForm,
  registration_number: p.registrationNumber,
  incorporation_date: p.incorporationDate,
  industry_code: p.industryCode,
  website: p.website,
  tax_id_masked: p.taxId === null ? null : maskTaxId(p.taxId),
})

/** The API's view of a profile, tax id masked. */
export const applicantProfileView = (p: ApplicantProfile): ApplicantProfileView => ({
  ...profileFieldsView(p),
  updated_at: instantText(p.updatedAt),
})

/** An address as the API returns it. */
export type AddressView = {
  readonly address_id: string
  readonly type: AddressType
  readonly line1: string
  readonly line2: string | null
  readonly city: string
  readonly region: string | null
  readonly postal_code: string
  readonly country: string
  readonly created_at: string
  readonly updated_at: string
}

/** The API's view of an address. */
export const addressView = (a: Address): AddressView => ({
  address_id: a.id,
  type: a.type,
  line1: a.line1,
  line2: a.line2,
  city: a.city,
  region: a.region,
  postal_code: a.postalCode,
  country: a.country,
  created_at: instantText(a.createdAt),
  updated_at: instantText(a.updatedAt),
})

/** A document's metadata as the API returns it. */
export type DocumentView = {
  readonly document_id: string
  readonly type: DocumentType
  readonly storage_ref: string
  readonly file_name: string | null
  readonly content_type: string | null
  readonly description: string | null
  readonly created_at: string
}

/** The API's view of a document's metadata. */
export const documentView = (d: DocumentMetadata): DocumentView => ({
  document_id: d.id,
  type: d.type,
  storage_ref: d.storageRef,
  file_name: d.fileName,
  content_type: d.contentType,
  description: d.description,
  created_at: instantText(d.createdAt),
})

/** A party as partners see it, tax id masked. */
export type PartyView = {
  readonly party_id: string
  readonly session_id: string
  readonly type: 'business'
} & Omit<ApplicantProfileView, 'updated_at'> & {
  readonly country_of_incorporation: string
  readonly email: string | null
  readonly phone: string | null
  readonly addresses: readonly AddressView[]
  readonly created_at: string
}

/** getPartyBySessionId and the party.ready payload: tax id masked. */
export const partyView = (p: Party): PartyView => ({
  party_id: p.id,
  session_id: p.sessionId,
  type: p.type,
  ...profileFieldsView(p),
  country_of_incorporation: p.countryOfIncorporation,
  email: p.email,
  phone: p.phone,
  addresses: p.addresses.map(addressView),
  created_at: instantText(p.createdAt),
})
