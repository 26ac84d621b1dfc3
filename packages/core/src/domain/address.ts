import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { boundedString, oneOf, strictObject } from './codecs.js'
import { CountryCode } from './country-codes.js'
import { invalidRequest, type InvalidRequest } from './errors.js'
import { instantText } from './instant.js'

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
  created_at: instantText(a.createdAt),
  updated_at: instantText(a.updatedAt),
})

/** A session or a party holds at most this many addresses. */
export const MAX_ADDRESSES = 20

/**
 * A business has one registered address: a second one is refused, the first can be updated.
 * `owner` names what holds the addresses, for the message.
 */
export const oneRegistered = (owner: 'session' | 'party', addresses: readonly Address[], candidate: Address): E.Either<InvalidRequest, Address> =>
  candidate.type === 'registered' && addresses.some((a) => a.type === 'registered' && a.id !== candidate.id)
    ? E.left(invalidRequest(`The ${owner} already has a registered address; update that one instead.`, 'type'))
    : E.right(candidate)

/** Room for one more address, or `InvalidRequest`. */
export const roomForAnother = (owner: 'session' | 'party', addresses: readonly Address[]): E.Either<InvalidRequest, void> =>
  addresses.length < MAX_ADDRESSES ? E.right(undefined) : E.left(invalidRequest(`A ${owner} holds at most ${MAX_ADDRESSES} addresses.`))
