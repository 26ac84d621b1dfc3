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
 * Standard output, buffered: lines are written asynchronously in batches of at least 8 KiB, or
 * every 250 ms, and pino writes what is pending synchronously when the process exits. A write
 * per line cost a system call per request. Bigger is not better: sonic-boom measures the pending
 * batch (`Buffer.byteLength`, which flattens the concatenated string) on every line, so each
 * line costs time in proportion to the batch; 8 KiB batches of at most 16 KiB cost about 2 µs
 * a line less than 32/64 KiB and less than 4 KiB (docs/benchmarks.md).
 */
const bufferedStdout = (): DestinationStream => {
  const destination = pino.destination({ dest: 1, sync: false, minLength: 8 * 1024, maxWrite: 16 * 1024 })
  setInterval(() => destination.flush(), LOG_FLUSH_MS).unref()
  return destination
}

/** A logger writing to `destination` (tests capture it), by default buffered standard output. */
export const createLogger = (level: string, destination: DestinationStream = bufferedStdout()): Logger =>
  pino(
    {
      level,
      base: { service: 'lendgate-api' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  )
