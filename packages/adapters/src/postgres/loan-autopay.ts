import type { AutopaySettings, ClientId } from '@lendgate/core'
import * as O from 'fp-ts/lib/Option.js'
import { sql, type Kysely } from 'kysely'
import type { Database } from './schema.js'
import { query } from './store-errors.js'

/**
 * Loans' autopay settings, on the loan's row (migration 0028), and the installments their debits
 * are owed for: one query over the active loans whose autopay is on (a partial index holds them)
 * and their installments in the window, less those whose debit exists (the payments' unique
 * (client, key) index answers each).
 */
export const postgresAutopaySettings = (db: Kysely<Database>): AutopaySettings => ({
  of: (loanId) =>
    query(async () => {
      const row = await db.selectFrom('loans').select(['id', 'autopay_client_id', 'autopay_enabled_at']).where('id', '=', loanId).executeTakeFirst()
      return row?.autopay_client_id == null || row.autopay_enabled_at === null ? O.none : O.some({ loanId: row.id, clientId: row.autopay_client_id, enabledAt: row.autopay_enabled_at })
    }),
  turnOn: (setting) =>
    query(async () => {
      // One statement: of two requests at once, the first to write wins and the second reads it.
      const turned = await db
        .updateTable('loans')
        .set({ autopay_client_id: setting.clientId, autopay_enabled_at: setting.enabledAt })
        .where('id', '=', setting.loanId)
        .where('autopay_client_id', 'is', null)
        .returning('id')
        .executeTakeFirst()
      if (turned !== undefined) return setting
      const row = await db.selectFrom('loans').select(['autopay_client_id', 'autopay_enabled_at']).where('id', '=', setting.loanId).executeTakeFirst()
      return row?.autopay_client_id == null || row.autopay_enabled_at === null ? setting : { loanId: setting.loanId, clientId: row.autopay_client_id, enabledAt: row.autopay_enabled_at }
    }),
  turnOff: (loanId) =>
    query(async () => {
      await db.updateTable('loans').set({ autopay_client_id: null, autopay_enabled_at: null }).where('id', '=', loanId).where('autopay_client_id', 'is not', null).execute()
    }),
  due: (window, from, limit) =>
    query(async () => {
      let q = db
        .selectFrom('loans as l')
        .innerJoin('loan_installments as i', 'i.loan_id', 'l.id')
        .select(['l.id as loanId', 'l.party_id as partyId', 'l.autopay_client_id as clientId', 'i.due_date as dueDate'])
        .where('l.autopay_client_id', 'is not', null)
        .where('l.status', '=', 'ACTIVE')
        .where('i.due_date', '>', window.after)
        .where('i.due_date', '<=', window.through)
        // Due after the loan's date when autopay was turned on: it collects from then on.
        .where(sql<boolean>`i.due_date > (l.autopay_enabled_at at time zone l.time_zone)::date`)
        // A party's cut-off on its test clock takes its loans; the world's, those of parties on no test clock.
        .where((eb) =>
          window.partyId === null
            ? eb.not(eb.exists(eb.selectFrom('test_clocks').select('test_clocks.id').whereRef('test_clocks.party_id', '=', 'l.party_id')))
            : eb('l.party_id', '=', window.partyId),
        )
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('payments as p')
                .select('p.id')
                .whereRef('p.client_id', '=', 'l.autopay_client_id')
                // `autopayKey`, written in SQL.
                .where('p.idempotency_key', '=', sql<string>`'autopay ' || l.id || ' ' || to_char(i.due_date, 'YYYY-MM-DD')`),
            ),
          ),
        )
      // After the installment `from`: the loan id bound alone too, so the loans' index starts there.
      if (from !== null) q = q.where('l.id', '>=', from.loanId).where(sql<boolean>`(l.id, i.due_date) > (${from.loanId}::uuid, ${from.dueDate}::date)`)
      const rows = await q.orderBy('l.id').orderBy('i.due_date').limit(limit).execute()
      return rows.map((row) => ({ loanId: row.loanId, partyId: row.partyId, clientId: row.clientId as ClientId, dueDate: row.dueDate }))
    }),
})
