import type { Address } from '@lendgate/core'
import type { Selectable } from 'kysely'
import type { OnboardingAddressesTable } from './schema.js'

/** An address row of a session or a party (its owner's column not read), as the domain's Address. */
export const toAddress = (row: Omit<Selectable<OnboardingAddressesTable>, 'session_id'>): Address => ({
  id: row.id,
  type: row.type,
  line1: row.line1,
  line2: row.line2,
  city: row.city,
  region: row.region,
  postalCode: row.postal_code,
  country: row.country,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

/** The columns of an address row shared by sessions and parties (without its owner). */
export const addressFields = (a: Address) => ({
  id: a.id,
  type: a.type,
  line1: a.line1,
  line2: a.line2,
  city: a.city,
  region: a.region,
  postal_code: a.postalCode,
  country: a.country,
  created_at: a.createdAt,
  updated_at: a.updatedAt,
})
