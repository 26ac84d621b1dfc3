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

/** sonic-boom in buffer mode takes each line as bytes, though its type declares `write(string)` only. */
type BufferModeSonicBoom = ReturnType<typeof pino.destination> & { write(line: string | Buffer): boolean }

/**
 * Lines written to `fd` in batches of at least 8 KiB, or every 250 ms, and what is pending when
 * the process exits; a write per line cost a system call a request. Each batch is one
 * synchronous write, pino's own default: handed to libuv's thread pool, which shares the
 * server's core, it cost that core three times as much (decision 43 has the trade-off).
 *
 * Each line is handed over as UTF-8 bytes, in sonic-boom's buffer mode, which adds the line's
 * length to the batch's. Given text, sonic-boom appends the line to the pending batch and
 * measures the whole batch again (`Buffer.byteLength`, which copies it flat): on every line,
 * the largest allocation of a request and a quarter of the line's cost (3.0 against 2.2 µs a
 * line, docs/benchmarks.md "Eleventh pass"). The destination is still `pino.destination`, so
 * pino's handling of a broken pipe stays.
 */
export const bufferedDestination = (fd: number): DestinationStream & Pick<BufferModeSonicBoom, 'flush'> => {
  const batches = pino.destination({
    dest: fd,
    sync: true,
    minLength: 8 * 1024,
    maxWrite: 16 * 1024,
    periodicFlush: LOG_FLUSH_MS,
    contentMode: 'buffer',
  }) as BufferModeSonicBoom
  // pino flushes an asynchronous destination at exit by itself, a synchronous one never: it
  // takes every line to be written already, which batching makes untrue.
  process.once('exit', () => batches.flushSync())
  return {
    // Looked up on each line: on a broken pipe pino replaces `batches.write` with a no-op.
    write: (line: string) => batches.write(Buffer.from(line)),
    // What `logger.flush()` calls.
    flush: (callback) => batches.flush(callback),
  }
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
export const createLogger = (level: string, destination: DestinationStream = bufferedDestination(1)): Logger =>
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
