import autocannon from 'autocannon'

export type Load = {
  readonly url: string
  readonly method?: 'GET' | 'POST'
  readonly headers?: Record<string, string>
  readonly body?: string
  /** Called for every request: a fresh Idempotency-Key, say. */
  readonly perRequest?: () => Record<string, string>
  /**
   * Called for every request: its path (on `url`'s origin), body and headers in place of `url`'s
   * path, `body` and beside `headers`, say a loan picked at random and its payment method, or the
   * next read of a mixed load with the key it takes.
   */
  readonly perRequestTarget?: () => { readonly path: string; readonly body?: string; readonly headers?: Record<string, string> }
  /** The status every response must have. */
  readonly expect: number
}

export type Measured = {
  readonly requests: number
  readonly rps: number
  readonly p50: number
  readonly p99: number
  /** Responses with another status than expected, by status, plus socket errors and timeouts. */
  readonly unexpected: Readonly<Record<string, number>>
}

/**
 * One figure for a case measured in several rounds: the median of each of req/s, p50 and p99
 * (the rounds are taken apart in time, so one disturbed round cannot move the result), the
 * requests and unexpected answers of all rounds added up.
 */
export const medianOf = (rounds: readonly Measured[]): Measured => {
  const of = (pick: (m: Measured) => number): number => median(rounds.map(pick))
  const unexpected: Record<string, number> = {}
  for (const m of rounds) for (const [what, n] of Object.entries(m.unexpected)) unexpected[what] = (unexpected[what] ?? 0) + n
  return { requests: rounds.reduce((sum, m) => sum + m.requests, 0), rps: of((m) => m.rps), p50: of((m) => m.p50), p99: of((m) => m.p99), unexpected }
}

/** The middle value (the mean of the two middle ones for an even count). */
export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

export type Drive = { readonly connections: number; readonly seconds: number; readonly warmupSeconds: number }

/** The value below which `q` of the sorted samples fall (nearest rank). */
export const percentile = (sorted: readonly number[], q: number): number =>
  sorted.length === 0 ? Number.NaN : (sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number)

/**
 * One autocannon run. Latencies are taken from its `response` events (milliseconds with
 * sub-millisecond precision, every status), not from its histogram, which rounds to whole
 * milliseconds and leaves out non-2xx answers (the 401 case is all non-2xx).
 */
const run = async (load: Load, connections: number, stop: { readonly seconds: number } | { readonly amount: number }): Promise<Measured> => {
  const { url, method = 'GET', headers = {}, body, perRequest, perRequestTarget } = load
  const json = body !== undefined || (perRequestTarget !== undefined && method !== 'GET')
  const latencies: number[] = []
  const statuses = new Map<number, number>()
  const options: autocannon.Options = {
    url,
    connections,
    ...('amount' in stop ? { amount: stop.amount } : { duration: stop.seconds }),
    requests: [
      {
        method,
        headers: { ...headers, ...(json ? { 'content-type': 'application/json' } : {}) },
        ...(body === undefined ? {} : { body }),
        ...(perRequest === undefined && perRequestTarget === undefined
          ? {}
          : {
              setupRequest: (req) => {
                const { headers: targetHeaders, ...target } = perRequestTarget?.() ?? {}
                return { ...req, ...target, headers: { ...req.headers, ...targetHeaders, ...perRequest?.() } }
              },
            }),
      },
    ],
  }
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(options, (error, done) => (error === null || error === undefined ? resolve(done) : reject(error)))
    instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
      latencies.push(responseTime)
      statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1)
    })
  })
  const unexpected: Record<string, number> = {}
  for (const [status, count] of statuses) if (status !== load.expect) unexpected[String(status)] = count
  if (result.errors > 0) unexpected['socket errors'] = result.errors
  if (result.timeouts > 0) unexpected['timeouts'] = result.timeouts
  latencies.sort((a, b) => a - b)
  return {
    requests: latencies.length,
    rps: latencies.length / result.duration,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    unexpected,
  }
}

/** A warm-up run (discarded), then the measured run, with autocannon in this process. */
export const drive = async (load: Load, how: Drive): Promise<Measured> => {
  if (how.warmupSeconds > 0) await run(load, how.connections, { seconds: how.warmupSeconds })
  return run(load, how.connections, { seconds: how.seconds })
}

/** Exactly `amount` requests over `connections` connections, as fast as they are answered. */
export const fire = (load: Load, connections: number, amount: number): Promise<Measured> => run(load, connections, { amount })
