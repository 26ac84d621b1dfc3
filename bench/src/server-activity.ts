/**
 * Where the time of a run went, seen from PostgreSQL (`pg_stat_activity`) and from the kernel's
 * scheduler (`/proc`).
 */
import { readFileSync } from 'node:fs'
import type pg from 'pg'
import { median } from './load.js'
import { everyTenthOfASecond } from './processes.js'

/**
 * Where the server connections of one side (the API's pool and its LISTEN connection, or
 * pgbench's clients) were, averaged over samples of `pg_stat_activity` every 100 ms: running,
 * waiting on a lock (a loan's row), waiting on WAL or I/O (a commit's flush), idle inside a
 * transaction (holding its locks while the client works), and idle (waiting for the client's
 * next statement outside a transaction).
 */
export type Activity = { readonly running: number; readonly lock: number; readonly wal: number; readonly inTransaction: number; readonly idle: number }

/** Samples `database`'s connections of one side (pgbench's, by their `application_name`, or the others) until `stop`. */
export const sampleActivity = (pool: pg.Pool, database: string, side: 'api' | 'pgbench'): { readonly stop: () => Promise<Activity> } => {
  const totals = { running: 0, lock: 0, wal: 0, inTransaction: 0, idle: 0 }
  let samples = 0
  const poll = everyTenthOfASecond(async () => {
    const { rows } = await pool.query<Record<keyof Activity, string>>(
      `select count(*) filter (where state = 'active' and wait_event_type is null) as running,
         count(*) filter (where state = 'active' and wait_event_type = 'Lock') as lock,
         count(*) filter (where state = 'active' and wait_event_type in ('IO', 'LWLock')) as wal,
         count(*) filter (where state = 'idle in transaction') as "inTransaction",
         count(*) filter (where state = 'idle') as idle
       from pg_stat_activity
       where datname = $1 and backend_type = 'client backend' and pid <> pg_backend_pid() and (application_name = 'pgbench') = $2`,
      [database, side === 'pgbench'],
    )
    const row = rows[0]
    if (row !== undefined) for (const k of Object.keys(totals) as (keyof Activity)[]) totals[k] += Number(row[k])
    samples++
  })
  return {
    stop: async () => {
      await poll.stop()
      const of = (n: number) => n / Math.max(1, samples)
      return { running: of(totals.running), lock: of(totals.lock), wal: of(totals.wal), inTransaction: of(totals.inTransaction), idle: of(totals.idle) }
    },
  }
}

/**
 * Nanoseconds a process's main thread (a Node server's event loop) has spent on a CPU and
 * waiting in a run queue for one (`/proc/<pid>/task/<pid>/schedstat`); NaN where it cannot be read.
 */
export const mainThread = (pid: number): { readonly onCpu: number; readonly waiting: number } => {
  try {
    const [onCpu, waiting] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ').map(Number)
    return { onCpu: onCpu ?? Number.NaN, waiting: waiting ?? Number.NaN }
  } catch {
    return { onCpu: Number.NaN, waiting: Number.NaN }
  }
}

/** Each figure of `all` the median of its rounds. */
export const medianActivity = (all: readonly Activity[]): Activity => {
  const of = (k: keyof Activity) => median(all.map((a) => a[k]))
  return { running: of('running'), lock: of('lock'), wal: of('wal'), inTransaction: of('inTransaction'), idle: of('idle') }
}
