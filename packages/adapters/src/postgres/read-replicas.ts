import { sql, type Kysely } from 'kysely'
import { describeUrl, pgKysely } from './database.js'
import type { Database } from './schema.js'

/**
 * Read replicas (`DATABASE_READ_URL`, decision 156): streaming standbys of the primary that serve
 * the reads allowed to be a little behind. A probe every `probeMs` learns, for each replica, the
 * newest instant before which every commit on the primary is on it (its `asOf`); a read goes to a
 * replica only when that instant is recent enough for it, and otherwise to the primary. A replica
 * that does not answer, is not a standby, or falls too far behind is skipped until a probe finds
 * it well again: it is never an error.
 */
export type ReadReplicas = {
  /** Each replica's database, in the order of the URLs. */
  readonly replicas: readonly ReadReplica[]
  /**
   * A replica to read from, in turn among those that are up, lag at most `maxLagMs` and hold
   * every commit made before `notBefore` (the reader's own last write, for read-your-writes);
   * undefined when none does: read the primary.
   */
  readonly choose: (notBefore?: Date) => ReplicaChoice | undefined
  /** A read on replica `index` failed: it is skipped until the next probe finds it answering. */
  readonly failed: (index: number) => void
  /** Each replica as the last probe left it, with its lag now, for the metrics. */
  readonly states: () => readonly ReplicaState[]
  /** Probes every replica once (so a healthy one serves from the first request), then every `probeMs`. */
  readonly start: () => Promise<void>
  /** Stops the probes and closes every replica's pool. */
  readonly close: () => Promise<void>
}

export type ReadReplica = {
  readonly db: Kysely<Database>
  /** Host, port and database, for logs and metric labels: never a password. */
  readonly description: string
}

/** The replica a read goes to, and the instant its data is current to. */
export type ReplicaChoice = { readonly index: number; readonly asOf: Date }

export type ReplicaState = {
  readonly description: string
  /** Answering, and a standby (in recovery). */
  readonly up: boolean
  /** Every commit made on the primary before this instant is on the replica; undefined until a probe has learnt it. */
  readonly asOf: Date | undefined
  /** How far behind the primary a read from it may be: now less `asOf`; undefined when `asOf` is. */
  readonly lagMs: number | undefined
}

/** What changed for a replica, for the logs: it went down (and why), came back, or crossed `maxLagMs`. */
export type ReplicaChange =
  | { readonly _tag: 'down'; readonly reason: string }
  | { readonly _tag: 'up' }
  | { readonly _tag: 'behind'; readonly lagMs: number }
  | { readonly _tag: 'caughtUp'; readonly lagMs: number }

export type ReadReplicaOptions = {
  readonly urls: readonly string[]
  /** The primary itself (not a pooler), whose WAL position each probe compares with the replicas', on a connection of the probes' own. */
  readonly primaryUrl: string
  /** A replica further behind than this is skipped. */
  readonly maxLagMs: number
  /** Connections each replica's pool opens at most. */
  readonly poolSize: number
  /** How often the replicas are probed; default every second. */
  readonly probeMs?: number
  readonly now?: () => Date
  /** Told of each replica's changes, for the logs. */
  readonly onChange?: (replica: string, change: ReplicaChange) => void
}

/** How often the replicas are probed when not told otherwise. */
export const REPLICA_PROBE_MS = 1_000

/** A read on a replica that has not answered in this long fails (and runs again on the primary): a replica stopped or cut off mid-query. */
const REPLICA_QUERY_TIMEOUT_MS = 10_000

/**
 * A replica as probed: `up` undefined until its first probe; `replayLsn`, how far it had replayed
 * at its last probe (a replica restarted from an older point replays from there again).
 */
type Probed = { up: boolean | undefined; asOf: Date | undefined; replayLsn: string | undefined; behind: boolean; probing: boolean }

/** Where the primary is: its WAL insert position (past every acknowledged commit), and its cluster's identifier. */
type PrimaryPosition = { readonly lsn: string; readonly system_id: string }

/**
 * What one replica's probe answers: whether it is a standby, of which cluster, how far it has
 * replayed (and whether that is before `previousLsn`), whether that reaches the primary's
 * `primaryLsn`, and the commit time of the last transaction it replayed.
 */
const probeReplica = async (db: Kysely<Database>, primaryLsn: string, previousLsn: string | undefined) => {
  const { rows } = await sql<{ standby: boolean; system_id: string; replay_lsn: string | null; went_back: boolean | null; caught_up: boolean | null; replayed_at: Date | null }>`
    select pg_is_in_recovery() as standby,
           (pg_control_system()).system_identifier::text as system_id,
           pg_last_wal_replay_lsn()::text as replay_lsn,
           pg_last_wal_replay_lsn() < ${previousLsn ?? '0/0'}::pg_lsn as went_back,
           pg_last_wal_replay_lsn() >= ${primaryLsn}::pg_lsn as caught_up,
           pg_last_xact_replay_timestamp() as replayed_at`.execute(db)
  const [row] = rows
  if (row === undefined) throw new Error('the probe returned no row')
  return row
}

/** `answer`, or an error once `ms` have passed without it. */
const within = async <A>(ms: number, answer: Promise<A>): Promise<A> => {
  let timeout: NodeJS.Timeout | undefined
  try {
    return await Promise.race([answer, new Promise<never>((_, reject) => (timeout = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)))])
  } finally {
    clearTimeout(timeout)
  }
}

/** The later of two instants, either perhaps unknown. */
const later = (a: Date | undefined, b: Date | undefined): Date | undefined => (a === undefined ? b : b === undefined || a >= b ? a : b)

/**
 * Opens a pool on each replica and returns them with the routing of reads among them
 * (`ReadReplicas`). Nothing is probed until `start`.
 */
export const openReadReplicas = (options: ReadReplicaOptions): ReadReplicas => {
  const now = options.now ?? (() => new Date())
  const probeMs = options.probeMs ?? REPLICA_PROBE_MS
  // A probe waits for its answers at least `REPLICA_PROBE_MS`, however often probes run; rounds never overlap.
  const answerMs = Math.max(probeMs, REPLICA_PROBE_MS)
  const opened = options.urls.map((url) => ({ ...pgKysely(url, options.poolSize, undefined, { queryTimeoutMs: REPLICA_QUERY_TIMEOUT_MS }), description: describeUrl(url) }))
  // The probes' own connection to the primary: a request pool that is full must not hold them up.
  const primary = pgKysely(options.primaryUrl, 1, undefined, { queryTimeoutMs: answerMs }).db
  const probed: Probed[] = opened.map(() => ({ up: undefined, asOf: undefined, replayLsn: undefined, behind: false, probing: false }))
  let turn = 0
  let timer: NodeJS.Timeout | undefined
  let closed = false

  const tell = (index: number, change: ReplicaChange): void => options.onChange?.(opened[index]?.description ?? '', change)
  const lagOf = (state: Probed, at: Date): number | undefined => (state.asOf === undefined ? undefined : Math.max(0, at.getTime() - state.asOf.getTime()))
  const markDown = (index: number, reason: string): void => {
    const state = probed[index]
    if (state === undefined) return
    // What it held before is not known to hold when it answers again: it may restart from an
    // older point, or be another server.
    state.asOf = undefined
    state.replayLsn = undefined
    if (state.up === false) return
    state.up = false
    tell(index, { _tag: 'down', reason })
  }

  /** Probes replica `index` against the primary's position read at `startedAt`; a probe still running is left to finish. */
  const probeOne = async (index: number, primaryAt: PrimaryPosition, startedAt: Date): Promise<void> => {
    const state = probed[index]
    const replica = opened[index]
    if (state === undefined || replica === undefined || state.probing) return
    state.probing = true
    const answer = probeReplica(replica.db, primaryAt.lsn, state.replayLsn)
    try {
      const row = await within(answerMs, answer)
      if (!row.standby) return markDown(index, 'it is not a standby (pg_is_in_recovery() is false): reads there could miss what the primary has')
      if (row.system_id !== primaryAt.system_id) return markDown(index, "it is not a replica of the primary: its cluster's system identifier differs")
      // Caught up with the primary's position read after `startedAt`: it holds every commit made
      // before `startedAt`. Behind it: every commit up to the last one it replayed. While it
      // replays forward the instant only moves forward; replaying from an older point (a restart)
      // forgets it.
      const known = row.went_back === true ? undefined : state.asOf
      state.asOf = later(known, row.caught_up === true ? startedAt : (row.replayed_at ?? undefined))
      state.replayLsn = row.replay_lsn ?? undefined
      if (state.up !== true) {
        state.up = true
        tell(index, { _tag: 'up' })
      }
      const lagMs = lagOf(state, now())
      const behind = lagMs === undefined || lagMs > options.maxLagMs
      if (behind !== state.behind && lagMs !== undefined) tell(index, behind ? { _tag: 'behind', lagMs } : { _tag: 'caughtUp', lagMs })
      state.behind = behind
    } catch (error) {
      markDown(index, error instanceof Error ? error.message : String(error))
    } finally {
      // A probe that timed out still holds its connection until it ends; the next waits for it.
      void answer.catch(() => undefined).finally(() => (state.probing = false))
    }
  }

  /**
   * One round: the primary's WAL insert position, then every replica against it. When the primary does
   * not answer, nothing is learnt: the replicas' `asOf` stand still, so their lag grows, and past
   * `maxLagMs` they are skipped as well.
   */
  const probeAll = async (): Promise<void> => {
    const startedAt = now()
    let primaryAt: PrimaryPosition
    try {
      const { rows } = await within(
        answerMs,
        sql<PrimaryPosition>`select pg_current_wal_insert_lsn()::text as lsn, (pg_control_system()).system_identifier::text as system_id`.execute(primary),
      )
      const [row] = rows
      if (row === undefined) return
      primaryAt = row
    } catch {
      return
    }
    await Promise.all(opened.map((_, index) => probeOne(index, primaryAt, startedAt)))
  }

  const schedule = (): void => {
    if (closed) return
    timer = setTimeout(() => void probeAll().finally(schedule), probeMs)
    timer.unref()
  }

  return {
    replicas: opened.map(({ db, description }) => ({ db, description })),
    choose: (notBefore) => {
      const at = now()
      const fresh = probed.flatMap((state, index) => {
        const lagMs = lagOf(state, at)
        const usable = state.up === true && state.asOf !== undefined && lagMs !== undefined && lagMs <= options.maxLagMs && (notBefore === undefined || state.asOf >= notBefore)
        return usable && state.asOf !== undefined ? [{ index, asOf: state.asOf }] : []
      })
      if (fresh.length === 0) return undefined
      turn = (turn + 1) % fresh.length
      return fresh[turn]
    },
    failed: (index) => markDown(index, 'a read on it failed'),
    states: () => {
      const at = now()
      return probed.map((state, index) => ({ description: opened[index]?.description ?? '', up: state.up === true, asOf: state.asOf, lagMs: lagOf(state, at) }))
    },
    start: async () => {
      await probeAll()
      schedule()
    },
    close: async () => {
      closed = true
      clearTimeout(timer)
      await Promise.all([...opened.map(({ db }) => db.destroy()), primary.destroy()])
    },
  }
}
