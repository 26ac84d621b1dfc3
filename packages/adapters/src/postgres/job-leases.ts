import type { JobLease, JobLeases } from '@lendgate/core'
import * as O from 'fp-ts/lib/Option.js'
import { sql, type Kysely } from 'kysely'
import type { Database } from './schema.js'
import { query } from './store-errors.js'

/**
 * Job leases in PostgreSQL (issue 38), one row per job. `acquire` is one conditional upsert: the
 * row is taken only when its lease is free or has run out and the run has not completed, so of
 * concurrent callers (queued on the row lock, each re-checking) exactly one gets it. Run keys
 * compare byte by byte (`collate "C"`), whatever the database's collation.
 */
export const postgresJobLeases = (db: Kysely<Database>): JobLeases => {
  /** The row of `lease`, while its holder still holds it. */
  const held = (lease: JobLease) =>
    db
      .updateTable('job_leases')
      .where('job', '=', lease.job)
      .where('run_key', '=', lease.runKey)
      .where('holder', '=', lease.holder)
  return {
    acquire: (job, runKey, holder, now, leaseMs) =>
      query(async () => {
        const { rows } = await sql<{ readonly progress: string | null }>`
          insert into job_leases as l (job, run_key, holder, leased_until)
          values (${job}, ${runKey}, ${holder}, ${new Date(now.getTime() + leaseMs)})
          on conflict (job) do update set
            run_key = excluded.run_key,
            holder = excluded.holder,
            leased_until = excluded.leased_until,
            progress = case when l.run_key = excluded.run_key then l.progress end
          where (l.leased_until is null or l.leased_until <= ${now})
            and (l.completed_run_key is null or l.completed_run_key collate "C" < excluded.run_key collate "C")
          returning l.progress`.execute(db)
        const row = rows[0]
        return row === undefined ? O.none : O.some({ job, runKey, holder, progress: row.progress })
      }),
    renew: (lease, progress, now, leaseMs) =>
      query(async () => {
        const result = await held(lease).set({ progress, leased_until: new Date(now.getTime() + leaseMs) }).executeTakeFirst()
        return result.numUpdatedRows === 1n
      }),
    complete: (lease, now) =>
      query(async () => {
        const result = await held(lease)
          .set({ holder: null, leased_until: null, progress: null, completed_run_key: lease.runKey, completed_at: now })
          .executeTakeFirst()
        return result.numUpdatedRows === 1n
      }),
    release: (lease, progress) =>
      query(async () => {
        await held(lease).set({ holder: null, leased_until: null, progress }).execute()
      }),
    lastCompleted: (job) =>
      query(async () => {
        const row = await db.selectFrom('job_leases').select(['completed_run_key', 'completed_at']).where('job', '=', job).executeTakeFirst()
        return row?.completed_run_key == null || row.completed_at === null ? O.none : O.some({ runKey: row.completed_run_key, finishedAt: row.completed_at })
      }),
  }
}
