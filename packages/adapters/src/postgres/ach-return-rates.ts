import type { AchReturnRates, ClientId, ClientReturnCounts } from '@lendgate/core'
import type { Kysely } from 'kysely'
import type { Database } from './schema.js'
import { query } from './store-errors.js'

/**
 * The counts of return rates in PostgreSQL (`db` is the world's): two grouped counts, each a range
 * of a partial index (`ach_entries_submitted_idx`, `ach_returns_received_idx`, migration 0024),
 * merged by client.
 */
export const postgresAchReturnRates = (db: Kysely<Database>): AchReturnRates => ({
  countsSince: (since) =>
    query(async () => {
      const [debits, returns] = await Promise.all([
        db
          .selectFrom('ach_entries')
          .select(['client_id', (eb) => eb.fn.countAll<string>().as('debits')])
          .where('status', 'in', ['sent', 'settled', 'returned'])
          .where('submitted_on', '>=', since)
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
          .where('received_on', '>=', since)
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
