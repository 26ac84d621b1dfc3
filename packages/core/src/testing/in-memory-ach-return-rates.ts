import * as TE from 'fp-ts/lib/TaskEither.js'
import type { ClientId } from '../domain/foundations/ids.js'
import type { AchReturnRecord } from '../ports/ach-inbound.js'
import type { AchEntry } from '../ports/ach-originations.js'
import type { AchReturnRates, ClientReturnCounts } from '../ports/ach-return-rates.js'

/** The counts of return rates over in-memory entries and returns, as the database counts them. */
export const inMemoryAchReturnRates = (entries: () => readonly AchEntry[], returns: () => readonly AchReturnRecord[]): AchReturnRates => ({
  countsSince: (since) =>
    TE.fromIO(() => {
      const counts = new Map<ClientId, { debits: number; unauthorized: number; administrative: number; overall: number }>()
      const of = (clientId: ClientId) => counts.get(clientId) ?? counts.set(clientId, { debits: 0, unauthorized: 0, administrative: 0, overall: 0 }).get(clientId)!
      for (const e of entries()) if (e.status !== 'claimed' && e.status !== 'dropped' && e.submittedOn !== null && e.submittedOn >= since) of(e.clientId).debits += 1
      for (const r of returns()) {
        if (r.paymentId === null || r.clientId === null || r.receivedOn < since) continue
        const c = of(r.clientId)
        c.overall += 1
        if (r.category === 'unauthorized') c.unauthorized += 1
        if (r.category === 'administrative') c.administrative += 1
      }
      return [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([clientId, c]): ClientReturnCounts => ({ clientId, ...c }))
    }),
})
