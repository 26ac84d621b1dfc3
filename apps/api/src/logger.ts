import { loggableDatabaseError } from '@lendgate/adapters'
import { pino, type DestinationStream, type Logger } from 'pino'
import sonicBoom, { type SonicBoom as SonicBoomClass } from 'sonic-boom'

/** The package's export is the class itself (`module.exports = SonicBoom`); its types describe an ES module with the class as a member. */
const SonicBoom = sonicBoom as unknown as typeof SonicBoomClass

/**
 * Header and field names whose values are secrets. Nothing logs request headers or bodies today;
 * this is the net under that rule.
 */
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["x-partner-mint-key"]',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'headers.authorization',
  'headers.cookie',
  'headers["x-csrf-token"]',
  'headers["set-cookie"]',
  'headers["x-api-key"]',
  'headers["x-partner-mint-key"]',
  '*.api_key',
  '*.apiKey',
  '*.webhook_secret',
  '*.secret',
  '*.token',
  '*.password',
  '*.csrf_token',
  '*.csrfToken',
  '*.password_hash',
  '*.passwordHash',
  '*.account_number',
  '*.accountNumber',
  '*.sealed',
  'api_key',
  'webhook_secret',
  'secret',
  'token',
  'password',
  'account_number',
  'accountNumber',
  'sealed',
]

/** How long a log line may wait in the buffer when traffic is light. */
const LOG_FLUSH_MS = 250

/**
 * Lines written to `fd` in batches of at least 8 KiB, or every 250 ms, and what is pending when
 * the process exits; a write per line cost a system call a request. Each batch is one
 * synchronous write, pino's own default: handed to libuv's thread pool, which shares the
 * server's core, it cost that core three times as much (decision 43 has the trade-off).
 *
 * Each line is handed over as UTF-8 bytes, in sonic-boom's buffer mode, which adds the line's
 * length to the batch's (given text, sonic-boom would measure the whole pending batch again on
 * every line).
 *
 * A broken pipe (whatever read standard output has gone) ends logging, as `pino.destination`
 * does: the lines are dropped rather than the process failing. The destination is sonic-boom 5
 * itself rather than `pino.destination` (pino 10 depends on sonic-boom 4): sonic-boom 4's
 * synchronous flush retries a failed write forever unless the error is EAGAIN or EBUSY, so a
 * broken pipe first met by the flush at exit kept the process from ever exiting; 5 throws it.
 */
export const bufferedDestination = (fd: number): DestinationStream & Pick<SonicBoomClass, 'flush'> => {
  const batches = new SonicBoom({
    fd,
    sync: true,
    minLength: 8 * 1024,
    maxWrite: 16 * 1024,
    periodicFlush: LOG_FLUSH_MS,
    contentMode: 'buffer',
  })
  let broken = false
  batches.on('error', (err: NodeJS.ErrnoException) => {
    // Any other failure to write the log is not one to run on without: it stops the process, as
    // under `pino.destination`.
    if (err.code !== 'EPIPE') throw err
    broken = true
  })
  // A synchronous destination is never flushed by pino at exit (it takes every line to be
  // written already, which batching makes untrue).
  process.once('exit', () => {
    if (broken) return
    try {
      batches.flushSync()
    } catch {
      // Nothing is left to report it to: the log is what failed.
    }
  })
  return {
    // sonic-boom's buffer mode takes bytes, though its type declares `write(string)` only.
    write: (line: string) => broken || batches.write(Buffer.from(line) as unknown as string),
    // What `logger.flush()` calls.
    flush: (callback) => (broken ? callback?.() : batches.flush(callback)),
  }
}

/** pino's `isoTime`, formatted once per millisecond (lines written in the same millisecond share it). */
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

/**
 * How an `err` is written: a database error by its SQLSTATE, names and a message cut at its
 * first quote, never its detail, context or stack (`loggableDatabaseError`: they can hold a
 * statement's parameters, such as an applicant's name); any other error as pino writes it.
 */
const errorForLog = (error: unknown): unknown => loggableDatabaseError(error) ?? pino.stdSerializers.err(error as Error)

/** The processes that log, each under its own name (every line's `service`). */
export type ServiceName = 'lendgate-api' | 'lendgate-worker'

/**
 * A logger for the process `service` (every line names it), writing to `destination` (tests
 * capture it), by default buffered standard output.
 */
export const createLogger = (service: ServiceName, level: string, destination: DestinationStream = bufferedDestination(1)): Logger =>
  pino(
    {
      level,
      base: { service },
      timestamp: isoTimeEachMillisecond(),
      redact: { paths: REDACT, censor: '[redacted]' },
      serializers: { err: errorForLog },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  )
