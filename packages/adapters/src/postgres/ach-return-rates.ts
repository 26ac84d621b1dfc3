import { SENT_ENTRY_STATUSES, type AchReturnRates, type ClientId, type ClientReturnCounts } from '@lendgate/core'
import type { Kysely } from 'kysely'
import type { Database } from './schema.js'
import { query } from './store-errors.js'

/**
 * The counts of return rates in PostgreSQL (`db` is the world's): two grouped counts, each a range
 * of a partial index (`ach_entries_submitted_idx`, `ach_returns_received_idx`, migration 0024),
 * the debits kept to written files (the file id is in the index: a semi-join on the few files), merged by client.
 */
export const postgresAchReturnRates = (db: Kysely<Database>): AchReturnRates => ({
  countsBetween: (from, to) =>
    query(async () => {
      const [debits, returns] = await Promise.all([
        db
          .selectFrom('ach_entries')
          .select(['client_id', (eb) => eb.fn.countAll<string>().as('debits')])
          .where('status', 'in', SENT_ENTRY_STATUSES)
          .where('submitted_on', '>=', from)
          .where('submitted_on', '<=', to)
          // A debit whose file was never written has not left (a few files: the semi-join is cheap).
          .where('file_id', 'in', (eb) => eb.selectFrom('ach_files').select('id').where('status', '=', 'written'))
          .groupBy('client_id')
          .execute(),
        db
          .selectFrom('ach_returns')
          .select((eb) => [
            'client_id',
            eb.fn.countAll<string>().filterWhere('category', '=', 'unauthorized').as('unauthorized'),
            eb.fn.countAll<string>().filterWhere('category', '=', 'administrative').as('administrative'),
            eb.fn.countAll<string>().as('overall'),
          ])
          .where('payment_id', 'is not', null)
          .where('received_on', '>=', from)
          .where('received_on', '<=', to)
          .groupBy('client_id')
          .execute(),
      ])
      const counts = new Map<ClientId, ClientReturnCounts>()
      const blank = (clientId: ClientId): ClientReturnCounts => ({ clientId, debits: 0, unauthorized: 0, administrative: 0, overall: 0 })
      for (const d of debits) counts.set(d.client_id, { ...blank(d.client_id), debits: Number(d.debits) })
      for (const r of returns) {
        if (r.client_id === null) continue
        counts.set(r.client_id, { ...(counts.get(r.client_id) ?? blank(r.client_id)), unauthorized: Number(r.unauthorized), administrative: Number(r.administrative), overall: Number(r.overall) })
      }
      return [...counts.values()].sort((a, b) => (a.clientId < b.clientId ? -1 : a.clientId > b.clientId ? 1 : 0))
    }),
})
