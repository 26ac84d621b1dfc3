import type { FleetProcess } from './fleet-process.js'
import { scrape, type Scrape } from './metrics.js'
import type { Delivery, PartnerReceiver } from './partner-receiver.js'
import { waitUntil } from './waiting.js'

export type MidDeliveryKill = {
  /** Sessions whose event had arrived when the worker was killed. */
  readonly deliveredBefore: number
  /** The deliveries the worker was in the middle of: received, never answered, so never recorded as delivered. */
  readonly cutShort: readonly Delivery[]
  /** The worker's metrics just before: its counters die with it. Undefined when it did not answer. */
  readonly metricsBefore: Scrape | undefined
}

/**
 * Once `afterSessions` sessions' events have arrived, the receiver stops answering until `worker`
 * is in the middle of a delivery (a request of its own is held, recognised by its connection: a
 * socket of the worker's from the port it came from to the receiver's); then the worker is
 * killed (`kill -9`), the receiver answers again, and the worker is restarted. The events it had
 * leased go out again only once their lease has expired.
 */
export const killMidDelivery = async (receiver: PartnerReceiver, worker: FleetProcess, internalToken: string, afterSessions: number): Promise<MidDeliveryKill> => {
  if (!(await waitUntil(() => receiver.deliveredSessions().size >= afterSessions, 120_000))) throw new Error(`fewer than ${afterSessions} events arrived`)
  receiver.holdAnswers()
  const sending = () => receiver.held().filter((d) => worker.tcpPortsTo(receiver.port).has(d.senderPort))
  const caught = await waitUntil(() => sending().length > 0, 10_000)
  const metricsBefore = await scrape(worker.url, internalToken).catch(() => undefined)
  const cutShort = sending()
  const deliveredBefore = receiver.deliveredSessions().size
  await worker.kill9()
  receiver.releaseAnswers()
  if (!caught) throw new Error(`${worker.name} had no delivery in flight within 10 s of the receiver holding its answers`)
  await worker.restart()
  return { deliveredBefore, cutShort, metricsBefore }
}
