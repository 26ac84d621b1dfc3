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
 * Standard output, buffered: lines are written asynchronously in batches of at least 32 KiB, or
 * every 250 ms, and pino writes what is pending synchronously when the process exits. A write
 * per line cost a system call per request; 4 KiB batches still cost 4% of a 401
 * (docs/benchmarks.md).
 */
const bufferedStdout = (): DestinationStream => {
  const destination = pino.destination({ dest: 1, sync: false, minLength: 32 * 1024, maxWrite: 64 * 1024 })
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
