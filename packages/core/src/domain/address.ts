import * as t from 'io-ts'
import { boundedString, oneOf, strictObject } from './codecs.js'
import { CountryCode } from './country-codes.js'

/**
 * Postal addresses, one model for onboarding sessions and parties. `registered` is the
 * address on the business's registration; `operating` where it trades; `mailing` for post.
 */

export const ADDRESS_TYPES = ['registered', 'operating', 'mailing'] as const
export type AddressType = (typeof ADDRESS_TYPES)[number]


const fields = {
  type: oneOf('AddressType', ADDRESS_TYPES),
  line1: boundedString('Line1', 1, 200),
  city: boundedString('City', 1, 100),
  postal_code: boundedString('PostalCode', 1, 20),
  country: CountryCode,
}
const optionalFields = { line2: boundedString('Line2', 1, 200), region: boundedString('Region', 1, 100) }

export const AddressInput = strictObject('AddressInput', fields, optionalFields)
export type AddressInput = t.TypeOf<typeof AddressInput>

/** A partial update: any subset of the fields, at least one. */
export const AddressPatch = strictObject('AddressPatch', {}, { ...fields, ...optionalFields })
export type AddressPatch = t.TypeOf<typeof AddressPatch>

export type Address = {
  readonly id: string
  readonly type: AddressType
  readonly line1: string
  readonly line2: string | null
  readonly city: string
  readonly region: string | null
  readonly postalCode: string
  readonly country: string
  readonly createdAt: Date
  readonly updatedAt: Date
}

export const newAddress = (input: AddressInput, id: string, now: Date): Address => ({
  id,
  type: input.type,
  line1: input.line1,
  line2: input.line2 ?? null,
  city: input.city,
  region: input.region ?? null,
  postalCode: input.postal_code,
  country: input.country,
  createdAt: now,
  updatedAt: now,
})

export const patchAddress = (address: Address, patch: AddressPatch, now: Date): Address => ({
  ...address,
  type: patch.type ?? address.type,
  line1: patch.line1 ?? address.line1,
  line2: patch.line2 ?? address.line2,
  city: patch.city ?? address.city,
  region: patch.region ?? address.region,
  postalCode: patch.postal_code ?? address.postalCode,
  country: patch.country ?? address.country,
  updatedAt: now,
})

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

export const addressView = (a: Address): AddressView => ({
  address_id: a.id,
  type: a.type,
  line1: a.line1,
  line2: a.line2,
  city: a.city,
  region: a.region,
  postal_code: a.postalCode,
  country: a.country,
  created_at: a.createdAt.toISOString(),
  updated_at: a.updatedAt.toISOString(),
})
