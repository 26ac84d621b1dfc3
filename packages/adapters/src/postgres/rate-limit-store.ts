import { HEARTBEAT_RETENTION_MS, type RateLimitStore } from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { sql, type Kysely } from 'kysely'
import type { Database } from './schema.js'
import { query } from './store-errors.js'

/**
 * Rate-limit counts in PostgreSQL (issue 9). `add` is one statement for a whole sync, however
 * many buckets it carries: it upserts the instance's heartbeat, the counts go in as parallel
 * arrays (`unnest`), each row is created or added to (`ON CONFLICT … DO UPDATE`), `RETURNING`
 * gives the totals of every instance, and a count of the other recent heartbeats rides along.
 * `takeIfBelow` is one conditional upsert: concurrent takes queue on the row lock and each
 * re-reads the count, so exactly `limit` succeed. `attemptIfBelow` is a transaction holding the
 * bucket's row lock while it decides (`RateLimitStore`).
 */
export const postgresRateLimitStore = (db: Kysely<Database>): RateLimitStore => ({
  add: (counts, heartbeat) =>
    query(async () => {
      const from = new Date(heartbeat.at.getTime() - heartbeat.ttlMs)
      const to = new Date(heartbeat.at.getTime() + heartbeat.ttlMs)
      // One row per total, or one row without a bucket when there are none; each carries the
      // count of instances. The statement's snapshot does not see its own heartbeat: it adds one.
      const result = await sql<{ instances: number; bucket: string | null; window_start: Date; window_end: Date; count: number }>`
        with beat as (
          insert into rate_limit_instances as i (instance, seen_at)
          values (${heartbeat.instance}, ${heartbeat.at})
          on conflict (instance) do update set seen_at = greatest(i.seen_at, excluded.seen_at)
        ), added as (
          insert into rate_limits as r (bucket, window_start, window_end, count)
          select * from unnest(
            ${counts.map((c) => c.bucket)}::text[],
            ${counts.map((c) => c.window.start.toISOString())}::timestamptz[],
            ${counts.map((c) => c.window.end.toISOString())}::timestamptz[],
            ${counts.map((c) => c.count)}::int8[]
          )
          on conflict (bucket, window_start) do update set count = r.count + excluded.count
          returning bucket, window_start, window_end, count
        )
        select seen.instances, added.*
        from (
          select count(*)::int + 1 as instances from rate_limit_instances
          where instance <> ${heartbeat.instance} and seen_at > ${from} and seen_at < ${to}
        ) seen
        left join added on true`.execute(db)
      return {
        totals: result.rows.flatMap((row) => (row.bucket === null ? [] : [{ bucket: row.bucket, window: { start: row.window_start, end: row.window_end }, count: row.count }])),
        instances: result.rows[0]!.instances,
      }
    }),

  leave: (instance) =>
    query(async () => {
      await db.deleteFrom('rate_limit_instances').where('instance', '=', instance).execute()
    }),

  takeIfBelow: (bucket, window, limit) =>
    query(async () => {
      const row = await db
        .insertInto('rate_limits')
        .values({ bucket, window_start: window.start, window_end: window.end, count: 1 })
        .onConflict((oc) =>
          oc
            .columns(['bucket', 'window_start'])
            .doUpdateSet({ count: (eb) => eb('rate_limits.count', '+', 1) })
            .where('rate_limits.count', '<', limit),
        )
        .returning('count')
        .executeTakeFirst()
      return row === undefined ? O.none : O.some(row.count)
    }),

  attemptIfBelow: (bucket, window, limit, attempt) =>
    query(() =>
      db.transaction().execute(async (trx) => {
        // Creates the window's row, or takes the existing one's lock: concurrent attempts on the
        // bucket wait here, each then reading the count the one before it left.
        const { count } = (
          await sql<{ count: number }>`
            insert into rate_limits as r (bucket, window_start, window_end, count)
            values (${bucket}, ${window.start}, ${window.end}, 0)
            on conflict (bucket, window_start) do update set count = r.count
            returning count`.execute(trx)
        ).rows[0]!
        if (count >= limit) return O.none
        const outcome = attempt()
        if (E.isRight(outcome)) return O.some({ outcome, total: count })
        await trx
          .updateTable('rate_limits')
          .set({ count: count + 1 })
          .where('bucket', '=', bucket)
          .where('window_start', '=', window.start)
          .execute()
        return O.some({ outcome, total: count + 1 })
      }),
    ),

  purgeEnded: (now) =>
    query(async () => {
      const result = await db.deleteFrom('rate_limits').where('window_end', '<=', now).executeTakeFirst()
      await db.deleteFrom('rate_limit_instances').where('seen_at', '<=', new Date(now.getTime() - HEARTBEAT_RETENTION_MS)).execute()
      return Number(result.numDeletedRows)
    }),
})
