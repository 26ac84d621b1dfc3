import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import type { ClientId } from '../domain/foundations/ids.js'
import type { AchReturnRecord } from '../ports/ach-inbound.js'
import { SENT_ENTRY_STATUSES, type AchEntry, type AchOriginations } from '../ports/ach-originations.js'
import type { AchReturnRates, ClientReturnCounts } from '../ports/ach-return-rates.js'

/** The counts of return rates over in-memory entries (of `written` files) and returns, as the database counts them. */
export const inMemoryAchReturnRates = (originations: Pick<AchOriginations, 'findFile'> & { readonly entries: () => readonly AchEntry[] }, returns: () => readonly AchReturnRecord[]): AchReturnRates => ({
  countsBetween: (from, to) => async () => {
      const counts = new Map<ClientId, { debits: number; unauthorized: number; administrative: number; overall: number }>()
      const of = (clientId: ClientId) => counts.get(clientId) ?? counts.set(clientId, { debits: 0, unauthorized: 0, administrative: 0, overall: 0 }).get(clientId)!
      for (const e of originations.entries()) {
        if (!(SENT_ENTRY_STATUSES as readonly string[]).includes(e.status) || e.submittedOn === null || e.submittedOn < from || e.submittedOn > to) continue
        const file = await originations.findFile(e.fileId)()
        if (E.isLeft(file)) return file
        if (O.isSome(file.right) && file.right.value.status === 'written') of(e.clientId).debits += 1
      }
      for (const r of returns()) {
        if (r.paymentId === null || r.clientId === null || r.receivedOn < from || r.receivedOn > to) continue
        const c = of(r.clientId)
        c.overall += 1
        if (r.category === 'unauthorized') c.unauthorized += 1
        if (r.category === 'administrative') c.administrative += 1
      }
      return E.right([...counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([clientId, c]): ClientReturnCounts => ({ clientId, ...c })))
  },
})
