import { performance } from 'node:perf_hooks'
import { bearer, type ApiClient } from './api-client.js'

/** What hammering one key across the APIs saw. */
export type Hammering = {
  /** 2xx answers, across every API. */
  readonly admitted: number
  /** 429 answers of a spent window, by API. */
  readonly refusedBy: ReadonlyMap<string, number>
  /** 429 answers for an instance's share while the window still had room (`Retry-After: 1`, decision 112): retried, as a client does. */
  readonly deferred: number
  /** Anything else: other statuses and requests that got no answer. */
  readonly unexpected: readonly string[]
  /** Requests sent, and how long the hammering took. */
  readonly requests: number
  readonly seconds: number
  /** The rate of admissions, from the start to the last one: the traffic the instances' syncs lag behind. */
  readonly admittedPerSecond: number
}

/**
 * Sends `GET path` with `key` from `concurrency` clients at once, each alternating between the
 * APIs, until every API has refused `refusals` requests for a spent window (429 with a
 * `Retry-After` above 1 s), or `maxMs` have passed. A 429 with `Retry-After: 1` refused the
 * request for its instance's share until the next sync, while the window had room: the client
 * goes on, as a partner retrying after a second would.
 */
export const hammer = async (
  apis: readonly ApiClient[],
  key: string,
  path: string,
  options: { readonly concurrency: number; readonly refusals: number; readonly maxMs: number },
): Promise<Hammering> => {
  let admitted = 0
  let lastAdmission = 0
  let requests = 0
  let deferred = 0
  const refusedBy = new Map(apis.map((api) => [api.name, 0]))
  const unexpected: string[] = []
  const started = performance.now()
  const done = () => [...refusedBy.values()].every((n) => n >= options.refusals) || performance.now() - started > options.maxMs || unexpected.length > 0
  const client = async (offset: number): Promise<void> => {
    for (let i = offset; !done(); i += 1) {
      const api = apis[i % apis.length] as ApiClient
      requests += 1
      try {
        const reply = await api.send('GET', path, { headers: bearer(key) })
        if (reply.status >= 200 && reply.status < 300) {
          admitted += 1
          lastAdmission = performance.now()
        }
        else if (reply.status === 429 && reply.headers.get('retry-after') === '1') deferred += 1
        else if (reply.status === 429) refusedBy.set(api.name, (refusedBy.get(api.name) ?? 0) + 1)
        else unexpected.push(`${api.name}: ${reply.status} ${reply.text}`)
      } catch (error) {
        unexpected.push(`${api.name}: no answer (${String(error)})`)
      }
    }
  }
  await Promise.all(Array.from({ length: options.concurrency }, (_, i) => client(i)))
  return {
    admitted,
    refusedBy,
    deferred,
    unexpected,
    requests,
    seconds: (performance.now() - started) / 1000,
    admittedPerSecond: admitted / Math.max((lastAdmission - started) / 1000, 0.001),
  }
}

/** The seconds until the `default` policy's window resets, from a `RateLimit` header (`"default";r=598;t=42`). */
export const secondsToReset = (rateLimitHeader: string | null): number | undefined => {
  const match = /"default";r=\d+;t=(\d+)/.exec(rateLimitHeader ?? '')
  return match === null ? undefined : Number(match[1])
}
