import { sql, type Kysely } from 'kysely'

/**
 * Scheduled jobs (issue 38): one row per job, holding the lease on the run under way (its
 * holder, until when, and the progress saved so far) and the latest completed run. A lease whose
 * `leased_until` has passed may be taken by another process, which resumes from `progress`.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .createTable('job_leases')
    .addColumn('job', 'text', (c) => c.primaryKey())
    .addColumn('run_key', 'text', (c) => c.notNull())
    .addColumn('holder', 'text')
    .addColumn('leased_until', 'timestamptz')
    .addColumn('progress', 'text')
    .addColumn('completed_run_key', 'text')
    .addColumn('completed_at', 'timestamptz')
    .addCheckConstraint('job_leases_held', sql`(holder is null) = (leased_until is null)`)
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('job_leases').execute()
}
