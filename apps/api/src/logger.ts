import { pino, type DestinationStream, type Logger } from 'pino'

/**
 * Header and field names whose values are secrets. Nothing logs request headers or bodies today;
 * this is the net under that rule.
 */
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["x-partner-mint-key"]',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers["x-partner-mint-key"]',
  '*.api_key',
  '*.apiKey',
  '*.webhook_secret',
  '*.secret',
  '*.token',
  '*.password',
  'api_key',
  'webhook_secret',
  'secret',
  'token',
  'password',
]

/** How long a log line may wait in the buffer when traffic is light. */
const LOG_FLUSH_MS = 250

/**
 * Standard output, buffered: lines are written in batches of at least 8 KiB, or every 250 ms,
 * and what is pending when the process exits. A write per line cost a system call
 * per request. The batch is written synchronously (pino's own default): one `write` of 8 KiB
 * costs the server's core about 6 µs, where handing it to libuv's thread pool cost 20 to 35 µs
 * of the same core in thread hand-offs, and the authenticated GET served 5% more (docs/benchmarks.md,
 * "Ninth pass"). The cost of that choice: a log reader that stops reading a full pipe stalls the
 * API, as with pino's default, where the thread pool would have buffered without bound
 * (docs/decisions.md). Bigger batches are not better: sonic-boom measures the pending batch
 * (`Buffer.byteLength`, which flattens the concatenated string) on every line, so each line
 * costs time in proportion to the batch; 8 KiB batches of at most 16 KiB cost about 2 µs a line
 * less than 32/64 KiB and less than 4 KiB.
 */
const bufferedStdout = (): DestinationStream => {
  const destination = pino.destination({ dest: 1, sync: true, minLength: 8 * 1024, maxWrite: 16 * 1024 })
  setInterval(() => destination.flush(), LOG_FLUSH_MS).unref()
  // pino flushes an asynchronous destination at exit by itself, a synchronous one never: it
  // takes every line to be written already, which batching makes untrue.
  process.once('exit', () => destination.flushSync())
  return destination
}

/**
 * pino's `isoTime`, made once per millisecond: under load a dozen lines share a millisecond, and
 * formatting the date was a microsecond of every request's access line (docs/benchmarks.md).
 */
export const isoTimeEachMillisecond = (): (() => string) => {
  let millisecond = Number.NaN
  let stamp = ''
  return () => {
    const now = Date.now()
    if (now !== millisecond) {
      millisecond = now
      stamp = `,"time":"${new Date(now).toISOString()}"`
    }
    return stamp
  }
}

/** A logger writing to `destination` (tests capture it), by default buffered standard output. */
export const createLogger = (level: string, destination: DestinationStream = bufferedStdout()): Logger =>
  pino(
    {
      level,
      base: { service: 'lendgate-api' },
      timestamp: isoTimeEachMillisecond(),
      redact: { paths: REDACT, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  )
