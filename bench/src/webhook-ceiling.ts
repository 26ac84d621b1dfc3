/**
 * The ceiling of `bench:webhooks` (issue 61): the work of draining a webhook backlog, done by a
 * plain script: the workers' SQL and their signed POSTs to the same receiver, with nothing else.
 *
 * A delivery worker (`apps/api/src/webhook-worker.ts` running the core's `deliverDueWebhooks` over
 * `postgresWebhookDeliveryQueue`) runs, per round, one claim statement (an `update … from (select …
 * for update skip locked limit 25) … returning`) and then, for each claimed event, after its HTTP
 * attempt, one statement recording it (an update of the event whose CTE inserts the attempt into
 * `webhook_attempts`); it starts the next round at once while rounds come back full. `captureDelivery`
 * runs that very code in this process (the same use case and adapter, with Kysely's query log on)
 * on a copy of the backlog for one event, with a sender that answers 204 without a request and a
 * fixed clock, and keeps the statements it ran. `drainCeiling` replays them with `pg` alone: the
 * same SQL text, in the same order, with its own parameters where the capture's
 * were the clock's (now, the lease's end, an attempt's start) or the captured event's id, and the
 * worker's batch size as the claim's limit; one loop per worker, each claiming and, for each
 * claimed event, signing its body (`signWebhook`), POSTing it to the event's URL with the workers'
 * HTTP client (`httpWebhookSender`, one per loop as one per worker) and recording it, with a
 * worker's concurrency (a pool of 10, every event of the batch sent and recorded at once over it,
 * the next claim when the last is recorded) or, for comparison, over one connection.
 * It runs no unsealing (it signs with the receiver's secret as given), no domain code, and none
 * of the worker's background statements (key usage, rate-limit counts, the scheduler's leases),
 * which are not the backlog's work. An answer other than 204 fails the run.
 */
import { DEFAULT_POOL_SIZE, httpWebhookSender, openDatabase, postgresWebhookDeliveryQueue, signWebhook } from '@lendgate/adapters'
import { WEBHOOK_BATCH } from '@lendgate/api/webhook-worker'
import type { LoggedStatement } from '@lendgate/adapters/testing'
import { deliverDueWebhooks } from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import pg from 'pg'

/** Events a worker claims per round. */
export const WORKER_BATCH = WEBHOOK_BATCH
/** A worker's connections to the database: `openDatabase`'s default pool size, which the worker keeps. */
export const WORKER_POOL = DEFAULT_POOL_SIZE

/** The statements of one worker round for one event: its claim, then those recording its attempt. */
export type CapturedDelivery = {
  readonly claim: LoggedStatement
  readonly record: readonly LoggedStatement[]
  readonly eventId: string
  /** The capture's clock: every Date parameter was this instant or the lease's end after it. */
  readonly at: number
  readonly leaseEnd: number
}

/**
 * One event delivered by the core's own worker round on `url` (a copy of the backlog), with the
 * statements it ran. The sender answers 204 at once, as the bench's receiver does.
 */
export const captureDelivery = async (url: string): Promise<CapturedDelivery> => {
  const logged: LoggedStatement[] = []
  const database = await openDatabase({ url, dataDir: '', log: (event) => void (event.level === 'query' && logged.push(event.query)) })
  try {
    const at = Date.now()
    logged.length = 0
    const round = deliverDueWebhooks({
      queue: postgresWebhookDeliveryQueue(database.db),
      sender: { send: () => async () => ({ statusCode: 204, error: null, durationMs: 1 }) },
      sign: signWebhook,
      webhookSecrets: { open: () => O.some('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw') },
      clock: { now: () => new Date(at) },
      schedule: [0, 5],
      random: () => 0,
    })
    // One event, so that its record's statements are not interleaved with another's in the log.
    const outcomes = await round(1)
    if (E.isLeft(outcomes) || outcomes.right.length !== 1 || outcomes.right[0]?._tag !== 'Delivered') throw new Error(`capturing a delivery: ${JSON.stringify(outcomes)}`)
    const [claim, ...record] = logged
    const eventId = record.flatMap((s) => s.parameters).find((p): p is string => typeof p === 'string' && p.startsWith('evt_'))
    const leaseEnd = claim?.parameters.find((p): p is Date => p instanceof Date && p.getTime() !== at)?.getTime()
    if (claim === undefined || !/for update of "?ev"? skip locked/.test(claim.sql) || !record.some((s) => /insert into "webhook_attempts"/.test(s.sql)))
      throw new Error(`capturing a delivery: unexpected statements ${JSON.stringify(logged.map((s) => s.sql))}`)
    if (eventId === undefined || leaseEnd === undefined) throw new Error('capturing a delivery: the event id or the lease was not among the parameters')
    return { claim, record, eventId, at, leaseEnd }
  } finally {
    await database.close()
  }
}

/** `parameters` with the capture's instants replaced by `now` (and the lease's end by `now` plus the lease) and its event id by `eventId`. */
const replayed = (captured: CapturedDelivery, parameters: readonly unknown[], now: number, eventId: string): unknown[] =>
  parameters.map((p) =>
    p instanceof Date ? new Date(p.getTime() === captured.at ? now : now + (captured.leaseEnd - captured.at)) : p === captured.eventId ? eventId : p,
  )

/** The claim as a worker's round runs it now: the same text, the clock's instants of now, the worker's batch as its limit. */
const claimNow = (captured: CapturedDelivery): unknown[] => {
  const parameters = replayed(captured, captured.claim.parameters, Date.now(), captured.eventId)
  const limit = parameters.findIndex((p) => typeof p === 'number')
  return parameters.map((p, i) => (i === limit ? WORKER_BATCH : p))
}

export type Drained = { readonly events: number; readonly seconds: number }

/** What the worker's claim returns of an event that the delivery needs. */
type ClaimedEvent = { readonly id: string; readonly url: string; readonly body: string }

/**
 * The ceiling: `loops` concurrent loops on `url` (as many as workers), each with a `pg` pool of
 * `connections`, claiming a batch with the worker's claim and, for every claimed event, POSTing it
 * signed with `secret` to its URL and recording it with the worker's statements on a connection of
 * the pool (at most `connections` at once, as a worker's round records its batch over its pool),
 * until a claim comes back short (nothing left to claim). Timed from the first claim to the last
 * record.
 */
export const drainCeiling = async (url: string, captured: CapturedDelivery, loops: number, connections: number, secret: string): Promise<Drained> => {
  const pools = Array.from({ length: loops }, () => new pg.Pool({ connectionString: url, max: connections }))
  // Connected before the clock starts, as a worker's pool is by the time its backlog drains.
  await Promise.all(pools.map(async (pool) => (await Promise.all(Array.from({ length: connections }, () => pool.connect()))).forEach((c) => c.release())))
  try {
    const deliver = async (pool: pg.Pool, sender: ReturnType<typeof httpWebhookSender>, event: ClaimedEvent): Promise<void> => {
      const sent = await sender.send({ url: event.url, headers: signWebhook(secret, event.id, new Date(), event.body), body: event.body })()
      if (sent.statusCode !== 204) throw new Error(`the ceiling's POST of ${event.id}: ${sent.statusCode ?? sent.error}`)
      const client = await pool.connect()
      try {
        const now = Date.now()
        for (const s of captured.record) await client.query(s.sql, replayed(captured, s.parameters, now, event.id))
      } finally {
        client.release()
      }
    }
    const loop = async (pool: pg.Pool): Promise<number> => {
      const sender = httpWebhookSender({ allowPrivateNetworks: true })
      let events = 0
      for (;;) {
        const { rows } = await pool.query<ClaimedEvent>(captured.claim.sql, claimNow(captured))
        await Promise.all(rows.map((event) => deliver(pool, sender, event)))
        events += rows.length
        if (rows.length < WORKER_BATCH) return events
      }
    }
    const started = performance.now()
    const counts = await Promise.all(pools.map(loop))
    return { events: counts.reduce((a, b) => a + b, 0), seconds: (performance.now() - started) / 1000 }
  } finally {
    await Promise.all(pools.map((p) => p.end()))
  }
}
