import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { boundedString, oneOf, strictObject, stringMatching } from '../foundations/codecs.js'
import { invalidRequest, type InvalidRequest } from '../foundations/errors.js'
import { utcDate } from '../foundations/instant.js'


/** The legal forms a business can declare. */
export const LEGAL_FORMS = ['corporation', 'llc', 'partnership', 'sole_proprietorship', 'nonprofit', 'other'] as const

const IsoDate = stringMatching('IsoDate', /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, 'must be a date in the form YYYY-MM-DD')

/** `legal_name` required; `incorporation_date` real and not in the future. */
export const ApplicantProfileInput = strictObject(
  'ApplicantProfileInput',
  { legal_name: boundedString('LegalName', 1, 200) },
  {
    trading_name: boundedString('TradingName', 1, 200),
    legal_form: oneOf('LegalForm', LEGAL_FORMS),
    registration_number: boundedString('RegistrationNumber', 1, 50),
    incorporation_date: IsoDate,
    industry_code: stringMatching('IndustryCode', /^\d{2,6}$/, 'must be a NAICS code of 2 to 6 digits'),
    website: stringMatching('Website', /^https?:\/\/[^\s/$.?#].[^\s]*$/i, 'must be an http(s) URL'),
    /** Stored; only ever shown masked. */
    tax_id: stringMatching('TaxId', /^[A-Za-z0-9-]{4,30}$/, 'must be 4 to 30 letters, digits or dashes'),
  },
)
/** A decoded `ApplicantProfileInput`. */
export type ApplicantProfileInput = t.TypeOf<typeof ApplicantProfileInput>

/** Fields the partner left out are null. */
export type ApplicantProfile = {
  readonly legalName: string
  readonly tradingName: string | null
  readonly legalForm: (typeof LEGAL_FORMS)[number] | null
  readonly registrationNumber: string | null
  readonly incorporationDate: string | null
  readonly industryCode: string | null
  readonly website: string | null
  readonly taxId: string | null
  readonly updatedAt: Date
}

/** An incorporation date that is not a real past date is refused. */
export const applicantProfileOf = (input: ApplicantProfileInput, now: Date): E.Either<InvalidRequest, ApplicantProfile> => {
  const date = input.incorporation_date
  if (date !== undefined) {
    const parsed = new Date(`${date}T00:00:00.000Z`)
    if (Number.isNaN(parsed.getTime()) || utcDate(parsed) !== date) {
      return E.left(invalidRequest('incorporation_date is not a real calendar date', 'incorporation_date'))
    }
    if (parsed.getTime() > now.getTime()) return E.left(invalidRequest('incorporation_date must not be in the future', 'incorporation_date'))
  }
  return E.right({
    legalName: input.legal_name,
    tradingName: input.trading_name ?? null,
    legalForm: input.legal_form ?? null,
    registrationNumber: input.registration_number ?? null,
    incorporationDate: date ?? null,
    industryCode: input.industry_code ?? null,
    website: input.website ?? null,
    taxId: input.tax_id ?? null,
    updatedAt: now,
  })
}

/** `updatedAt` aside: a PUT of what is stored changes nothing. */
export const sameProfile = (a: ApplicantProfile, b: ApplicantProfile): boolean =>
  a.legalName === b.legalName &&
  a.tradingName === b.tradingName &&
  a.legalForm === b.legalForm &&
  a.registrationNumber === b.registrationNumber &&
  a.incorporationDate === b.incorporationDate &&
  a.industryCode === b.industryCode &&
  a.website === b.website &&
  a.taxId === b.taxId

/** All but the last four characters hidden; short values entirely. */
export const maskTaxId = (taxId: string): string =>
  taxId.length <= 4 ? '*'.repeat(taxId.length) : `${'*'.repeat(taxId.length - 4)}${taxId.slice(-4)}`
