import type { Address, Party, PartyRepository } from '@lendgate/core'
import * as O from 'fp-ts/lib/Option.js'
import type { Kysely } from 'kysely'
import type { Database } from './schema.js'
import { addressFields, toAddress } from './address-rows.js'
import { attempt, asWriteError, query } from './store-errors.js'

export const postgresPartyRepository = (db: Kysely<Database>): PartyRepository => ({
  findById: (id) =>
    query(async () => {
      const row = await db.selectFrom('parties').selectAll().where('id', '=', id).executeTakeFirst()
      if (row === undefined) return O.none
      const addresses: Address[] = (
        await db.selectFrom('party_addresses').selectAll().where('party_id', '=', id).orderBy('created_at').orderBy('id').execute()
      ).map(toAddress)
      const party: Party = {
        id: row.id,
        sessionId: row.session_id,
        clientId: row.client_id,
        type: 'business',
        legalName: row.legal_name,
        tradingName: row.trading_name,
        legalForm: row.legal_form,
        registrationNumber: row.registration_number,
        incorporationDate: row.incorporation_date,
        industryCode: row.industry_code,
        website: row.website,
        taxId: row.tax_id,
        countryOfIncorporation: row.country_of_incorporation,
        email: row.email,
        phone: row.phone,
        addresses,
        createdAt: row.created_at,
      }
      return O.some(party)
    }),

  addAddress: (partyId, address) =>
    attempt(async () => {
      await db.insertInto('party_addresses').values({ ...addressFields(address), party_id: partyId }).execute()
    }, asWriteError('registered_address')),

  updateAddress: (partyId, address) =>
    attempt(async () => {
      const { id: _id, created_at: _created, ...changes } = addressFields(address)
      await db.updateTable('party_addresses').set(changes).where('id', '=', address.id).where('party_id', '=', partyId).execute()
    }, asWriteError('registered_address')),
})
