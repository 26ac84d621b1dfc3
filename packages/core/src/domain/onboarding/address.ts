import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { boundedString, merged, mergePatch, oneOf, strictObject, withSchema } from '../foundations/codecs.js'
import { CountryCode } from './country-codes.js'
import { invalidRequest, type InvalidRequest } from '../foundations/errors.js'
import type { AddressId } from '../foundations/ids.js'


/** `registered` (one per holder), `operating` where it trades, `mailing` for post. */
export const ADDRESS_TYPES = ['registered', 'operating', 'mailing'] as const
/** One of `ADDRESS_TYPES`. */
export type AddressType = (typeof ADDRESS_TYPES)[number]

const AddressTypeCodec = withSchema(oneOf('AddressType', ADDRESS_TYPES), {
  type: 'string',
  enum: [...ADDRESS_TYPES],
  description: "A holder has at most one registered address. Left out when adding, the holder's first address is registered and any later one operating.",
})
const fields = {
  line1: boundedString('Line1', 1, 200),
  city: boundedString('City', 1, 100),
  postal_code: boundedString('PostalCode', 1, 20),
  country: CountryCode,
}
const emptiable = { line2: boundedString('Line2', 1, 200), region: boundedString('Region', 1, 100) }

/** `line1`, `city`, `postal_code` and `country` required. */
export const AddressInput = strictObject('AddressInput', fields, { type: AddressTypeCodec, ...emptiable })
/** A decoded `AddressInput`. */
export type AddressInput = t.TypeOf<typeof AddressInput>

/** RFC 7396: `null` clears `line2` or `region`; the other fields cannot be emptied. */
export const AddressPatch = mergePatch('AddressPatch', { type: AddressTypeCodec, ...fields }, emptiable)
export type AddressPatch = t.TypeOf<typeof AddressPatch>

/** By default the holder's first address is `registered`, any later one `operating`. */
const addressTypeFor = (asked: AddressType | undefined, existing: readonly Address[]): AddressType =>
  asked ?? (existing.length === 0 ? 'registered' : 'operating')

/** One model for sessions and parties. */
export type Address = {
  readonly id: AddressId
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

export const newAddress = (input: AddressInput, existing: readonly Address[], id: AddressId, now: Date): Address => ({
  id,
  type: addressTypeFor(input.type, existing),
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
  type: merged(patch.type, address.type),
  line1: merged(patch.line1, address.line1),
  line2: merged(patch.line2, address.line2),
  city: merged(patch.city, address.city),
  region: merged(patch.region, address.region),
  postalCode: merged(patch.postal_code, address.postalCode),
  country: merged(patch.country, address.country),
  updatedAt: now,
})

const MAX_ADDRESSES = 20

/** One registered address per holder: a second is refused, the first can be updated. */
export const oneRegistered = (owner: 'session' | 'party', addresses: readonly Address[], candidate: Address): E.Either<InvalidRequest, Address> =>
  candidate.type === 'registered' && addresses.some((a) => a.type === 'registered' && a.id !== candidate.id)
    ? E.left(invalidRequest(`The ${owner} already has a registered address; update that one instead.`, 'type'))
    : E.right(candidate)

export const roomForAnother = (owner: 'session' | 'party', addresses: readonly Address[]): E.Either<InvalidRequest, void> =>
  addresses.length < MAX_ADDRESSES ? E.right(undefined) : E.left(invalidRequest(`A ${owner} holds at most ${MAX_ADDRESSES} addresses.`))
