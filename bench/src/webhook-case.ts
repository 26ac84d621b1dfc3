import { performance } from 'node:perf_hooks'
import { bearer, type Api } from './client.js'
import { percentile } from './load.js'
import type { Delivery, Receiver } from './receiver.js'

export type WebhookIdle = { readonly approvals: number; readonly p50: number; readonly p99: number; readonly lost: number }

export type WebhookBurst = {
  readonly approvals: number
  readonly delivered: number
  readonly lost: number
  /** Deliveries beyond the first of one event (the same webhook-id twice). */
  readonly duplicates: number
  /** From the first approval sent to the last delivery received. */
  readonly seconds: number
  readonly p50: number
  readonly p99: number
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const within = <A>(promise: Promise<A>, ms: number): Promise<A | undefined> =>
  Promise.race([promise, sleep(ms).then(() => undefined)])

/**
 * Approves `sessions` one at a time, each after a random pause (so the worker is idle and its
 * poll phase is not in step with the approvals), and times approval → signed delivery at the
 * receiver: the time from sending the approval to receiving the event.
 */
export const idleLatency = async (api: Api, internalToken: string, receiver: Receiver, sessions: readonly string[]): Promise<WebhookIdle> => {
  const latencies: number[] = []
  let lost = 0
  for (const sessionId of sessions) {
    await sleep(100 + Math.random() * 300)
    const sent = performance.now()
    await api.call('POST', `/internal/onboarding-sessions/${sessionId}/approve`, { headers: bearer(internalToken), expect: 200 })
    const delivery = await within(receiver.deliveredFor(sessionId), 10_000)
    if (delivery === undefined) lost += 1
    else latencies.push(delivery.at - sent)
  }
  latencies.sort((a, b) => a - b)
  return { approvals: sessions.length, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), lost }
}

/**
 * Approves every session in `sessions` as fast as `concurrency` operators can, then waits (up
 * to `timeoutMs`) until each event has reached the receiver: how long the whole batch takes,
 * approval → delivery per event, and whether any event was lost or delivered twice.
 */
export const burst = async (
  api: Api,
  internalToken: string,
  receiver: Receiver,
  sessions: readonly string[],
  concurrency: number,
  timeoutMs: number,
): Promise<WebhookBurst> => {
  const sentAt = new Map<string, number>()
  const queue = [...sessions]
  const started = performance.now()
  const operator = async (): Promise<void> => {
    for (let sessionId = queue.shift(); sessionId !== undefined; sessionId = queue.shift()) {
      sentAt.set(sessionId, performance.now())
      await api.call('POST', `/internal/onboarding-sessions/${sessionId}/approve`, { headers: bearer(internalToken), expect: 200 })
    }
  }
  await Promise.all(Array.from({ length: concurrency }, operator))
  const arrived = await within(Promise.all(sessions.map((id) => receiver.deliveredFor(id))), timeoutMs)
  const ours = new Set(sessions)
  const received: Delivery[] = receiver.deliveries.filter((d) => ours.has(d.sessionId))
  const firstBySession = new Map<string, Delivery>()
  for (const d of received) if (!firstBySession.has(d.sessionId)) firstBySession.set(d.sessionId, d)
  const latencies = [...firstBySession.values()].map((d) => d.at - (sentAt.get(d.sessionId) as number)).sort((a, b) => a - b)
  const last = Math.max(...[...firstBySession.values()].map((d) => d.at))
  return {
    approvals: sessions.length,
    delivered: firstBySession.size,
    lost: sessions.length - firstBySession.size,
    duplicates: received.length - new Set(received.map((d) => d.webhookId)).size,
    seconds: ((arrived === undefined ? performance.now() : last) - started) / 1000,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
  }
}
