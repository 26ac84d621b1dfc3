import { eventDraft, eventRetentionJob, EVENT_DAYS_READIED_AHEAD, type EventLog, type Party, type World } from '@lendgate/core'
import { freshId, right } from '@lendgate/core/testing/contracts'
import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import { sql, type Kysely } from 'kysely'
import { postgresEventDeliveryQueue } from '../src/postgres/event-delivery-queue.js'
import { insertEvents, postgresEventLog } from '../src/postgres/event-log.js'
import { partitionsOf } from '../src/postgres/event-partitions.js'
import { migrateTo, migrateToLatest } from '../src/postgres/migrate.js'
import { postgresOnboardingSessionRepository } from '../src/postgres/onboarding-session-repository.js'
import type { Database } from '../src/postgres/schema.js'
import { worldDb, worldSchema } from '../src/postgres/worlds.js'
import { scratchDatabase, testDatabases, type ScratchDatabase } from '../src/testing/test-databases.js'
import { clientOwner, partyMaker } from './support/database-fixtures.js'

/**
 * The event log partitioned by day (issue 61, item 4; decision 158): events land in their UTC
 * day's partition, the retention job readies the days ahead and drops a day past retention whole
 * with its deliveries, and a day it cannot lock in time is left for its next run, never waited on.
 */

const DAY_MS = 86_400_000
const dayName = (at: Date): string => `events_p${at.toISOString().slice(0, 10).replaceAll('-', '')}`

for (const database of testDatabases()) {
  for (const world of ['live', 'test'] as const satisfies readonly World[]) {
    describe(`the event log's day partitions on ${database.name}, ${world} world`, function () {
      this.timeout(60_000)
      let scratch: ScratchDatabase
      let db: Kysely<Database>
      let log: EventLog
      let party: Party
      /** Taken after the scratch database's template was migrated, so the migration's days cover today's month back and week ahead. */
      let now: Date

      const qualified = (name: string) => (worldSchema(world) === undefined ? name : `${worldSchema(world)}.${name}`)
      const partitions = (): Promise<string[]> => partitionsOf(scratch.database.db, qualified('events'))
      /** The partition that holds event `id`, or undefined when it is gone. */
      const holder = async (id: string): Promise<string | undefined> =>
        (await sql<{ name: string }>`select tableoid::regclass::text as name from ${sql.table(qualified('events'))} where id = ${id}`.execute(scratch.database.db)).rows[0]?.name.replace(/^.*\./, '')
      const countOf = async (table: string, where = sql`true`): Promise<number> =>
        Number((await sql<{ n: string }>`select count(*)::text as n from ${sql.table(qualified(table))} where ${where}`.execute(scratch.database.db)).rows[0]?.n)

      /** Writes an event of the party at `at`, delivered to the party's endpoint with one attempt; its id. */
      const eventAt = async (at: Date): Promise<string> => {
        const draft = eventDraft(freshId(), 'party.ready', { partyId: party.id, loanId: null, resourceId: party.id }, { at: at.toISOString() }, at)
        await db.transaction().execute((trx) => insertEvents(trx, [draft]))
        await sql`
          insert into ${sql.table(qualified('event_delivery_attempts'))} (delivery_id, attempt_number, url, started_at, duration_ms, status_code)
          select id, 1, 'https://93.184.216.34/hooks', now(), 120, 204 from ${sql.table(qualified('event_deliveries'))} where event_id = ${draft.id}`.execute(scratch.database.db)
        return draft.id
      }

      before(async () => {
        scratch = await scratchDatabase(database.kind)
        now = new Date()
        db = worldDb(scratch.database.db, world)
        log = postgresEventLog(db, world)
        party = await partyMaker(postgresOnboardingSessionRepository(db), clientOwner(scratch.database.db))()
        await sql`
          insert into ${sql.table(qualified('event_endpoints'))} (id, client_id, party_id, url, enabled_events, status, sealed_secret, created_at, updated_at)
          values (gen_random_uuid(), ${party.clientId}::uuid, ${party.id}::uuid, 'https://93.184.216.34/hooks', array['*'], 'enabled', 'sealed', now(), now())`.execute(scratch.database.db)
      })

      after(async () => {
        await scratch?.drop()
      })

      it('has a partition a day from a month back to a week ahead and a default one, and an event lands in its day', async () => {
        const days = Array.from({ length: 37 }, (_, k) => dayName(new Date(now.getTime() + (k - 30) * DAY_MS)))
        expect(await partitions()).to.include.members(['events_default', ...days])
        expect(await holder(await eventAt(now))).to.equal(dayName(now))
        expect(await holder(await eventAt(new Date(now.getTime() + 400 * DAY_MS))), 'a day no partition was made for').to.equal('events_default')
      })

      it('readies the days ahead, moving into a new day the events the default partition held for it, once', async () => {
        const ahead = new Date(now.getTime() + 20 * DAY_MS)
        const id = await eventAt(ahead)
        expect(await holder(id)).to.equal('events_default')
        const readied = await right(log.prepare(now, new Date(now.getTime() + 21 * DAY_MS)))
        expect(readied).to.be.at.least(13)
        expect(await holder(id)).to.equal(dayName(ahead))
        expect(await right(log.prepare(now, new Date(now.getTime() + 21 * DAY_MS)))).to.equal(0)
        const listed = await right(log.list({ clientId: party.clientId, partyId: party.id }, { from: new Date(ahead.getTime() - 1) }, { limit: 10, after: O.none }))
        expect(listed.map((e) => e.id)).to.include(id)
      })

      it('drops a day past retention whole with its deliveries and their attempts, deletes older events the default partition holds, and keeps the rest', async () => {
        const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS
        const before = new Date(now.getTime() - 30 * DAY_MS)
        const pastDay = new Date(today - 31 * DAY_MS + 3_600_000)
        const dropped = await eventAt(pastDay)
        const straggler = await eventAt(new Date(today - 45 * DAY_MS))
        const boundary = await eventAt(new Date(today - 30 * DAY_MS))
        const kept = await eventAt(new Date(now.getTime() - 29 * DAY_MS))
        const doomed = [dropped, straggler]
        expect(await holder(dropped), 'in its day before the drop').to.equal(dayName(pastDay))
        expect(await holder(straggler)).to.equal('events_default')
        expect(await countOf('event_deliveries', sql`event_id in (${sql.join(doomed)})`)).to.equal(2)
        const attemptsBefore = await countOf('event_delivery_attempts')

        let steps = 0
        let deleted = 0
        for (let more = true; more; steps++) {
          const step = await right(log.prune(before, 1_000))
          deleted += step.deleted
          more = step.more
        }
        expect(await partitions()).not.to.include(dayName(pastDay))
        expect(await partitions(), 'the day that ends after the cut').to.include(dayName(new Date(today - 30 * DAY_MS)))
        for (const id of doomed) expect(await holder(id), id).to.equal(undefined)
        expect(await holder(boundary), 'a day is never thinned').to.equal(dayName(new Date(today - 30 * DAY_MS)))
        expect(await holder(kept)).to.not.equal(undefined)
        expect(deleted).to.equal(2)
        expect(steps, 'each day a step, then the default partition, then nothing').to.be.at.least(2)
        expect(await countOf('event_deliveries', sql`event_id in (${sql.join(doomed)})`)).to.equal(0)
        expect(await countOf('event_delivery_attempts')).to.equal(attemptsBefore - 2)
        expect(await right(log.prune(before, 1_000))).to.deep.equal({ deleted: 0, more: false, deferred: false })
      })

      it('leaves a day it cannot lock within its timeout whole, for the next run, without failing the run', async () => {
        const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS
        const day = new Date(today - 31 * DAY_MS)
        const before = new Date(now.getTime() - 30 * DAY_MS)
        await right(log.prepare(day, day))
        const id = await eventAt(new Date(day.getTime() + 60_000))
        // A long reader of the log (a backup, say) holds it; the drop must not queue every write behind it.
        await scratch.database.db.connection().execute(async (reader) => {
          await sql`begin`.execute(reader)
          try {
            await sql`select count(*) from ${sql.table(qualified('events'))}`.execute(reader)
            const started = Date.now()
            expect(await right(log.prune(before, 1_000))).to.deep.equal({ deleted: 0, more: false, deferred: true })
            expect(Date.now() - started).to.be.below(10_000)
            expect(await holder(id)).to.equal(dayName(day))
          } finally {
            await sql`rollback`.execute(reader)
          }
        })
        expect(await right(log.prune(before, 1_000))).to.deep.equal({ deleted: 1, more: true, deferred: false })
        expect(await holder(id)).to.equal(undefined)
      })

      it('lets the delivery queue delete a delivery whose event is gone, never sending or claiming it again', async () => {
        const orphan = `evt_${freshId().replaceAll('-', '')}`
        await sql`
          insert into ${sql.table(qualified('event_deliveries'))} (endpoint_id, event_id, status, next_attempt_at, created_at)
          select id, ${orphan}, 'pending', now() - interval '1 minute', now() from ${sql.table(qualified('event_endpoints'))} where party_id = ${party.id}::uuid`.execute(scratch.database.db)
        const queue = postgresEventDeliveryQueue(db, world)
        const claimed = await right(queue.claimDue(new Date(Date.now() + 60_000), 1_000, 60_000))
        expect(claimed.map((d) => d.eventId)).not.to.include(orphan)
        expect(await countOf('event_deliveries', sql`event_id = ${orphan}`)).to.equal(0)
      })

      it('runs as the retention job: readies the coming week first, then prunes until a step finds nothing', async () => {
        const runAt = new Date()
        const job = eventRetentionJob({ eventLog: log, clock: { now: () => runAt } }, world)('run')
        const first = await right(job.step(job.initial))
        expect(first.done).to.equal(false)
        expect(first.progress.readied).to.be.a('number')
        expect(await partitions()).to.include(dayName(new Date(runAt.getTime() + EVENT_DAYS_READIED_AHEAD * DAY_MS)))
        let progress = first.progress
        let done = false
        for (let n = 0; n < 100 && !done; n++) ({ progress, done } = await right(job.step(progress)))
        expect(done, 'a step finds nothing').to.equal(true)
        expect(progress).to.deep.include({ deleted: 0, deferred: false })
      })
    })
  }
}

for (const database of testDatabases()) {
  describe(`migration 0034 (the event log partitioned by day) on ${database.name}`, function () {
    this.timeout(60_000)

    it('copies the log into its days and the default partition, in both worlds, its numbering going on; and back', async () => {
      const scratch = await scratchDatabase(database.kind)
      try {
        const { db } = scratch.database
        const party = await partyMaker(postgresOnboardingSessionRepository(db), clientOwner(db))()
        const at = [new Date(), new Date(Date.now() - 40 * DAY_MS), new Date(Date.now() - 2 * DAY_MS)]
        await migrateTo(db, '0033-operator-loan-orders')
        for (const when of at) {
          await sql`insert into events (id, type, party_id, client_id, resource_id, data, created_at)
            values (${`evt_${freshId().replaceAll('-', '')}`}, 'party.ready', ${party.id}::uuid, ${party.clientId}::uuid, ${party.id}, '{}', ${when})`.execute(db)
        }
        const rowsOf = async () => (await sql<{ seq: string; id: string; created_at: Date; place: string }>`select seq::text, id, created_at, tableoid::regclass::text as place from events order by seq`.execute(db)).rows
        const before = await rowsOf()
        expect(before.length).to.be.at.least(3)

        await migrateToLatest(db)
        const after = await rowsOf()
        expect(after.map(({ place: _, ...row }) => row)).to.deep.equal(before.map(({ place: _, ...row }) => row))
        expect(after.find((r) => r.created_at.getTime() === at[0]!.getTime())?.place).to.equal(dayName(at[0]!))
        expect(after.find((r) => r.created_at.getTime() === at[1]!.getTime())?.place).to.equal('events_default')
        const written = eventDraft(freshId(), 'party.ready', { partyId: party.id, loanId: null, resourceId: party.id }, {}, new Date())
        await db.transaction().execute((trx) => insertEvents(trx, [written]))
        const last = await rowsOf()
        expect(Number(last.at(-1)!.seq)).to.be.greaterThan(Number(before.at(-1)!.seq))
        const testWorldDays = (await sql<{ n: string }>`select count(*)::text as n from pg_inherits where inhparent = 'lendgate_test.events'::regclass`.execute(db)).rows[0]?.n
        expect(Number(testWorldDays)).to.be.at.least(39)

        await migrateTo(db, '0033-operator-loan-orders')
        const down = await rowsOf()
        expect(down.map((r) => r.id)).to.deep.equal(last.map((r) => r.id))
        expect(new Set(down.map((r) => r.place))).to.deep.equal(new Set(['events']))
        await migrateToLatest(db)
        expect((await rowsOf()).map((r) => r.id)).to.deep.equal(last.map((r) => r.id))
      } finally {
        await scratch.drop()
      }
    })
  })
}
