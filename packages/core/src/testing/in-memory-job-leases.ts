import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { JobLease, JobLeases } from '../ports/job-leases.js'

type Row = {
  runKey: string
  holder: string | null
  leasedUntil: number | null
  progress: string | null
  completed: { readonly runKey: string; readonly finishedAt: Date } | null
}

/** Same semantics as the PostgreSQL job leases, for use-case tests and embedders running one process. */
export const inMemoryJobLeases = (): JobLeases => {
  const rows = new Map<string, Row>()
  /** The row of `lease`, while its holder still holds it. */
  const heldRow = (lease: JobLease): Row | undefined => {
    const row = rows.get(lease.job)
    return row !== undefined && row.runKey === lease.runKey && row.holder === lease.holder ? row : undefined
  }
  return {
    acquire: (job, runKey, holder, now, leaseMs) =>
      TE.fromIO(() => {
        const row = rows.get(job)
        const leasedUntil = now.getTime() + leaseMs
        if (row === undefined) {
          rows.set(job, { runKey, holder, leasedUntil, progress: null, completed: null })
          return O.some({ job, runKey, holder, progress: null })
        }
        const free = row.leasedUntil === null || row.leasedUntil <= now.getTime()
        const due = row.completed === null || row.completed.runKey < runKey
        if (!free || !due) return O.none
        const progress = row.runKey === runKey ? row.progress : null
        Object.assign(row, { runKey, holder, leasedUntil, progress })
        return O.some({ job, runKey, holder, progress })
      }),
    renew: (lease, progress, now, leaseMs) =>
      TE.fromIO(() => {
        const row = heldRow(lease)
        if (row === undefined) return false
        Object.assign(row, { progress, leasedUntil: now.getTime() + leaseMs })
        return true
      }),
    complete: (lease, now) =>
      TE.fromIO(() => {
        const row = heldRow(lease)
        if (row === undefined) return false
        Object.assign(row, { holder: null, leasedUntil: null, progress: null, completed: { runKey: lease.runKey, finishedAt: now } })
        return true
      }),
    release: (lease, progress) =>
      TE.fromIO(() => {
        const row = heldRow(lease)
        if (row !== undefined) Object.assign(row, { holder: null, leasedUntil: null, progress })
      }),
    lastCompleted: (job) => TE.fromIO(() => O.fromNullable(rows.get(job)?.completed)),
  }
}
