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
 * and what is pending when the process exits; a write per line cost a system call a request.
 * Each batch is one synchronous write, pino's own default: handed to libuv's thread pool, which
 * shares the server's core, it cost that core three times as much (decision 43 has the
 * trade-off). Bigger batches are not better: sonic-boom measures the whole pending batch on
 * every line, so a line costs time in proportion to the batch (docs/benchmarks.md).
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
