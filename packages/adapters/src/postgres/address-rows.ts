import type { Address } from '@lendgate/core'
import type { Selectable } from 'kysely'
import type { OnboardingAddressesTable, PartyAddressesTable } from './schema.js'

/** An address row of a session or a party, as the domain's Address. */
export const toAddress = (row: Selectable<OnboardingAddressesTable> | Selectable<PartyAddressesTable>): Address => ({
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
