import type { TestClock, TestClockRepository } from '@lendgate/core'
import * as O from 'fp-ts/lib/Option.js'
import type { Kysely, Selectable } from 'kysely'
import type { Database, TestClocksTable } from './schema.js'
import { asWriteError, attempt, query } from './store-errors.js'

const toClock = (row: Selectable<TestClocksTable>): TestClock => ({
  id: row.id,
  partyId: row.party_id,
  name: row.name,
  frozenTime: row.frozen_time,
  advancingTo: row.advancing_to,
  createdAt: row.created_at,
})

/**
 * Test clocks in PostgreSQL (decision 131). An advance is claimed with `FOR UPDATE SKIP LOCKED`
 * and a lease, so of several processes one works it, and another resumes it when the lease runs
 * out; each step writes the clock's new frozen time.
 */
export const postgresTestClockRepository = (db: Kysely<Database>): TestClockRepository => ({
  insert: (clock) =>
    attempt(async () => {
      await db
        .insertInto('test_clocks')
        .values({ id: clock.id, party_id: clock.partyId, name: clock.name, frozen_time: clock.frozenTime, advancing_to: clock.advancingTo, leased_until: null, created_at: clock.createdAt })
        .execute()
    }, asWriteError('test_clock')),

  findForParty: (partyId) =>
    query(async () => O.map(toClock)(O.fromNullable(await db.selectFrom('test_clocks').selectAll().where('party_id', '=', partyId).executeTakeFirst()))),

  partyTimes: () =>
    query(async () => (await db.selectFrom('test_clocks').select(['party_id', 'frozen_time']).execute()).map((row) => ({ partyId: row.party_id, now: row.frozen_time }))),

  startAdvance: (id, to) =>
    query(async () => {
      const row = await db
        .updateTable('test_clocks')
        .set({ advancing_to: to })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('advancing_to', 'is', null), eb('advancing_to', '=', to)]))
        .returningAll()
        .executeTakeFirst()
      return O.map(toClock)(O.fromNullable(row))
    }),

  claimAdvancing: (now, leaseUntil) =>
    query(async () => {
      const due = db
        .selectFrom('test_clocks')
        .select('id')
        .where('advancing_to', 'is not', null)
        .where((eb) => eb.or([eb('leased_until', 'is', null), eb('leased_until', '<=', now)]))
        .orderBy('leased_until')
        .limit(1)
        .forUpdate()
        .skipLocked()
      const row = await db.updateTable('test_clocks').set({ leased_until: leaseUntil }).where('id', 'in', due).returningAll().executeTakeFirst()
      return O.map(toClock)(O.fromNullable(row))
    }),

  moveTo: (id, frozenTime, leaseUntil) =>
    query(async () => {
      const row = await db
        .updateTable('test_clocks')
        .set((eb) => ({
          frozen_time: frozenTime,
          advancing_to: eb.case().when('advancing_to', '<=', frozenTime).then(null).else(eb.ref('advancing_to')).end(),
          leased_until: eb.case().when('advancing_to', '<=', frozenTime).then(null).else(eb.cast<Date>(eb.val(leaseUntil), 'timestamptz')).end(),
        }))
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst()
      return O.map(toClock)(O.fromNullable(row))
    }),
})
