import { storeFailureKind } from '@lendgate/adapters'
import type { Clock } from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import type { Middleware } from 'koa'
import type { ReplicaReads } from '../deps.js'
import type { Metrics, ReadServedBy } from '../metrics.js'
import type { Route } from '../routes/route.js'
import type { AppContext, AppState } from './context.js'

/**
 * The header that says how fresh an answer is (decision 156). On an operation that may read
 * behind: every change committed before this instant (RFC 3339, UTC, milliseconds) is in the
 * answer; from the primary it is when the request was served, from a replica the instant that
 * replica was last known to be current to. On a write: an instant after the write committed, so
 * that a read whose own `Lendgate-Data-As-Of` is not before it includes the write.
 */
export const DATA_AS_OF_HEADER = 'Lendgate-Data-As-Of'

/** Who wrote, for read-your-writes: the partner key, the operator's console session, or the internal token. */
const writerOf = (state: AppState): string | undefined =>
  state.caller !== undefined ? `key:${state.caller.keyId}` : state.operator !== undefined ? `session:${state.operator.session.id}` : undefined

/** The internal token's writer: every request with it is one writer. */
const INTERNAL_WRITER = 'internal'

export type ReadsBehind = {
  /**
   * Middleware of every write of a known writer: once it has answered, `DATA_AS_OF_HEADER` says
   * when, and its writer's next reads on this instance wait for a replica that holds it.
   */
  readonly noteWrite: Middleware<AppState>
  /**
   * Runs a read that may be behind: on a replica current enough for its reader (one that holds
   * the reader's last write on this instance), else on the primary; a read that fails on a
   * replica, or finds there no record by the id it names, runs again on the primary. Sets
   * `DATA_AS_OF_HEADER` and counts where it was served. Without `onReplica` (a request at a
   * test clock's time, which it read from the primary) it runs on the primary.
   */
  readonly run: (ctx: AppContext, onReplica: ((index: number) => Route['run']) | undefined, onPrimary: Route['run']) => Route['run']
}

/**
 * Read-your-writes on this instance (decision 156): each writer's last write, kept for `maxLagMs`
 * (after that every replica that may serve holds it), oldest first, so the expired ones are
 * dropped from the front.
 */
export const readsBehind = (replicas: ReplicaReads | undefined, clock: Clock, metrics: Pick<Metrics, 'readServed'>): ReadsBehind => {
  const lastWrites = new Map<string, Date>()
  const forget = (at: Date): void => {
    const expired = at.getTime() - (replicas?.maxLagMs ?? 0)
    for (const [writer, wrote] of lastWrites) {
      if (wrote.getTime() >= expired) return
      lastWrites.delete(writer)
    }
  }
  return {
    noteWrite: async (ctx, next) => {
      try {
        await next()
      } finally {
        // Whatever the answer, even a thrown one: a write may have committed before it.
        const at = clock.now()
        ctx.set(DATA_AS_OF_HEADER, at.toISOString())
        if (replicas !== undefined) {
          const writer = writerOf(ctx.state) ?? INTERNAL_WRITER
          lastWrites.delete(writer)
          lastWrites.set(writer, at)
          forget(at)
        }
      }
    },
    run: (ctx, onReplica, onPrimary) => (context, command) => async () => {
      const servedBy = (where: ReadServedBy, asOf: Date): void => {
        ctx.set(DATA_AS_OF_HEADER, asOf.toISOString())
        metrics.readServed(where)
      }
      const chosen = replicas?.choose(lastWrites.get(writerOf(ctx.state) ?? INTERNAL_WRITER))
      if (replicas === undefined || onReplica === undefined || chosen === undefined) {
        servedBy('primary', clock.now())
        return onPrimary(context, command)()
      }
      const read = await onReplica(chosen.index)(context, command)()
      if (E.isRight(read) || (read.left._tag !== 'StoreUnavailable' && read.left._tag !== 'NotFound')) {
        servedBy('replica', chosen.asOf)
        return read
      }
      if (read.left._tag === 'NotFound') {
        // What the replica does not hold may have been made since its as-of (a loan another
        // writer just booked): the primary says whether it exists.
        servedBy('primary_after_replica_not_found', clock.now())
        return onPrimary(context, command)()
      }
      // Any store failure on a replica is answered from the primary: a lost connection (the
      // replica is then skipped until it answers a probe again), or a query the standby
      // cancelled to replay the primary's changes.
      if (storeFailureKind(read.left.cause) === 'failure') replicas.failed(chosen.index)
      ctx.state.log.warn({ err: read.left.cause, replica: replicas.replicas[chosen.index]?.description }, 'a read failed on a replica; answered from the primary')
      servedBy('primary_after_replica_failed', clock.now())
      return onPrimary(context, command)()
    },
  }
}
