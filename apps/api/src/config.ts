import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import type { AchOriginator } from '@lendgate/adapters'
import { isAbaRoutingNumber } from '@lendgate/core'
import { base64Key, baseUrl, boolean, bounded, byDefault, dates, type Env, integer, integerRule, limit, list, nachaText, none, OPENSSL_KEY, operationIds, origins, otherwise, renamed, schedule, secret, serverUrl, setting, type SettingDoc, text, timeOfDay, timesOfDay } from './config-settings.js'

/**
 * Configuration (CONTRACT.md "Running"), read from the environment once at start and
 * validated; the process refuses to start on an invalid value rather than guess.
 */
export type Config = {
  readonly port: number
  readonly host: string
  /** Unset: embedded database under `dataDir`. May be a pooler (PgBouncer in transaction mode). */
  readonly databaseUrl: string | undefined
  /**
   * The server itself, for what needs a session of its own: LISTEN/NOTIFY and migrations with
   * their lock. Undefined: `databaseUrl`.
   */
  readonly databaseDirectUrl: string | undefined
  /** Streaming replicas of the primary for the reads that may be a little behind (decision 156); empty: every read on the primary. */
  readonly databaseReadUrls: readonly string[]
  /** A replica further behind the primary than this is skipped. */
  readonly replicaMaxLagMs: number
  readonly dataDir: string
  readonly partnerMintSecret: string | undefined
  readonly internalApiToken: string | undefined
  /** How long a console session lasts (decision 149). */
  readonly operatorSessionMinutes: number
  /** 32 bytes that seal webhook signing secrets at rest. */
  readonly webhookSecretKey: Uint8Array | undefined
  readonly webhookAllowHttp: boolean
  readonly webhookAllowPrivateNetworks: boolean
  /** Delays in seconds between webhook delivery attempts. */
  readonly webhookRetrySchedule: readonly number[]
  readonly verificationDeliveryUrl: string | undefined
  readonly placeholderOperations: ReadonlySet<string>
  /** Where partners reach the API (PUBLIC_BASE_URL, required in production): the partner OpenAPI document's `servers`; unset, the address a request reached. */
  readonly publicBaseUrl: string | undefined
  /** Exact origins allowed to call the API from a browser; `*` allows any. Empty: none. */
  readonly corsOrigins: readonly string[]
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
  readonly production: boolean
  /** How often buffered `last_used_at` updates are written. */
  readonly keyUsageFlushMs: number
  /** Whether this process runs the background jobs: webhook delivery and the daily servicing job. */
  readonly runJobs: boolean
  /** The worker's port (`pnpm worker`): health probes and metrics. */
  readonly workerPort: number
  /** When the daily servicing job runs, each day: minutes after 00:00 UTC. */
  readonly servicingJobAtMinute: number
  readonly rateLimits: RateLimitSettings
  /**
   * How many proxies in front of the API append the address they saw to `X-Forwarded-For`; the
   * client address (the mint limit's bucket) is the one the outermost of them saw. 0: the
   * socket's peer address, and the header is ignored.
   */
  readonly trustedProxyHops: number
  readonly connections: ConnectionLimits
  /** Bank debits on the ACH rails (`ACH_ENABLED`); undefined: bank accounts are charged on the sandbox rails. */
  readonly ach: AchSettings | undefined
}

/** The ACH rails (docs/ach.md, docs/configuration.md "ACH"): who originates (the ODFI and company), when files are cut, where they go. */
export type AchSettings = AchOriginator & {
  /** `HH:MM`, New York time, sorted: a file per cut-off of each banking day. */
  readonly cutoffs: readonly string[]
  /** `HH:MM`, New York time: when debits past their return window are settled, each banking day. */
  readonly settlementAt: string
  /** `YYYY-MM-DD`: days the network is closed besides the Federal Reserve's holidays. */
  readonly extraClosures: readonly string[]
  /** The folder files are written to, for the bank or its connector to collect. */
  readonly outboxDir: string
}

/**
 * What one instance's HTTP server allows a connection (docs/configuration.md, docs/security.md):
 * a client that sends its headers or its request too slowly, sits idle, or finds the instance
 * full is cut off instead of holding a socket and memory.
 */
export type ConnectionLimits = {
  /** Time to receive a request's headers. */
  readonly headersTimeoutMs: number
  /** Time to receive a whole request, body included. */
  readonly requestTimeoutMs: number
  /** How long an idle keep-alive connection is kept open. */
  readonly keepAliveTimeoutMs: number
  /** Open connections at most; more are closed as they arrive. */
  readonly maxConnections: number
  /**
   * Open connections from one peer address at most; a request on a connection past it is
   * answered 429 and the connection closed, and one that sends nothing is closed soon.
   */
  readonly maxConnectionsPerAddress: number
}

/** Rate limits (issue 9, docs/configuration.md): requests per fixed window, per bucket. */
export type RateLimitSettings = {
  /** Every partner route, per API key. */
  readonly requests: number
  /** The length of every window. */
  readonly windowSeconds: number
  /** The verification routes (sending and checking codes), per API key, on top of `requests`. */
  readonly verificationRequests: number
  /** Manual retries of one webhook event (exact), per event, on top of `requests`. */
  readonly webhookRetries: number
  /** Failed key mint attempts (a wrong or empty mint secret), per client address; a right secret never counts (decision 109). */
  readonly mintRequests: number
  /**
   * Lookups in the key store of partner keys this instance does not hold in its key cache, per
   * client address: each forged key with a valid checksum costs one (docs/decisions.md).
   */
  readonly keyLookups: number
  /**
   * Requests that present no credential worth checking (none, or a junk one), per client
   * address; the health probes are exempt (docs/decisions.md).
   */
  readonly keylessRequests: number
  /** How often each instance pushes its counts to the database and learns the others'. */
  readonly syncMs: number
  /**
   * The fewest instances taken to share the synced limits (decision 112): each counts the
   * instances that synced recently and takes the larger number; between two syncs, each admits
   * into a bucket at most its share of what the bucket had left.
   */
  readonly instances: number
}

export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = [0, 5, 300, 1800, 7200, 18000, 36000, 36000] as const

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
type LogLevel = (typeof LOG_LEVELS)[number]

/**
 * One peer address's share of the connections when `HTTP_MAX_CONNECTIONS_PER_ADDRESS` is not set:
 * a tenth of the maximum, at most 100 (far above what a partner's client pool opens), so one
 * client holding connections leaves the rest to everyone else. Behind proxies every peer is a
 * proxy carrying many clients, so a peer may use them all: the proxy limits each client (docs/deployment.md).
 */
const defaultConnectionsPerAddress = (maxConnections: number, trustedProxyHops: number): number =>
  trustedProxyHops > 0 ? maxConnections : Math.max(1, Math.min(100, Math.floor(maxConnections / 10)))

/** Every setting with its rule, default and meaning (CONTRACT.md "Running"). */
const Environment = t.type({
  PORT: bounded('PORT', 0, 65535, 3000, 'The port the API listens on (0: any free port).'),
  HOST: setting('HOST', 'must be a host name or address', text, () => '127.0.0.1', byDefault('127.0.0.1', 'The address the API and a worker listen on: 0.0.0.0 or :: for every interface.')),
  DATABASE_URL: setting(
    'DATABASE_URL',
    'must be a postgres:// or postgresql:// URL, or pglite://memory',
    (raw) => serverUrl(raw) ?? (raw === 'pglite://memory' ? raw : undefined),
    none,
    otherwise(
      'unset: the embedded PostgreSQL server under DATA_DIR',
      'A PostgreSQL server (postgres://… or postgresql://…), or a pooler in front of it (PgBouncer in transaction mode). Unset: the embedded server under DATA_DIR, on a Unix socket, started by the first Lendgate process that needs it and stopped by the last to leave. pglite://memory: a throwaway embedded server, gone at exit.',
    ),
  ),
  DATABASE_DIRECT_URL: setting(
    'DATABASE_DIRECT_URL',
    'must be a postgres:// or postgresql:// URL',
    serverUrl,
    none,
    otherwise('unset: DATABASE_URL', 'The server itself, when DATABASE_URL is a pooler: LISTEN (key revocations) and migrations need a session of their own.'),
  ),
  DATABASE_READ_URL: setting(
    'DATABASE_READ_URL',
    'must be postgres:// or postgresql:// URLs, comma-separated',
    (raw) => {
      const urls = list(raw)
      return urls.every((url) => serverUrl(url) !== undefined) ? urls : undefined
    },
    () => [],
    otherwise(
      'unset: every read on the primary',
      'Streaming replicas of the primary (hot standbys), comma-separated: the lists, the event list, schedules and ledgers, the operators\' queues, portfolio, audit log and deliveries read from one that is current enough (docs/deployment.md "4. With read replicas"). A replica that is down or too far behind is skipped.',
    ),
  ),
  REPLICA_MAX_LAG_MS: bounded(
    'REPLICA_MAX_LAG_MS',
    2_000,
    600_000,
    5_000,
    'How far behind the primary, in milliseconds, a replica may be and still serve reads; it is measured every second, so 2,000 is the least.',
  ),
  DATA_DIR: setting(
    'DATA_DIR',
    'must be a path',
    text,
    () => './.data',
    byDefault('./.data', 'The embedded database and the generated development secrets. Made 0700; refused when it holds a database group or others can reach, or when it is a symbolic link.'),
  ),
  PARTNER_MINT_SECRET: setting(
    'PARTNER_MINT_SECRET',
    'must be at least 16 characters',
    (raw) => (raw.length >= 16 ? raw : undefined),
    none,
    secret('The root credential partners send in X-Partner-Mint-Key to mint API keys (16 characters or more).', OPENSSL_KEY),
  ),
  INTERNAL_API_TOKEN: setting(
    'INTERNAL_API_TOKEN',
    'must be at least 16 characters',
    (raw) => (raw.length >= 16 ? raw : undefined),
    none,
    secret('The bearer token of /internal/* and /metrics (16 characters or more).', OPENSSL_KEY),
  ),
  OPERATOR_SESSION_MINUTES: bounded(
    'OPERATOR_SESSION_MINUTES',
    5,
    1_440,
    480,
    "How long an operator's console session lasts after signing in, in minutes; then the operator signs in again.",
  ),
  WEBHOOK_SECRET_KEY: setting(
    'WEBHOOK_SECRET_KEY',
    'must be 32 bytes, base64-encoded',
    base64Key,
    none,
    secret('32 bytes, base64: seals webhook signing secrets and bank account numbers at rest and keys the MAC of list cursors. Every API instance and worker must have the same one.', OPENSSL_KEY),
  ),
  WEBHOOK_ALLOW_HTTP: setting('WEBHOOK_ALLOW_HTTP', 'must be true or false', boolean, () => false, byDefault('false', 'Allow plain-http webhook URLs.')),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: setting(
    'WEBHOOK_ALLOW_PRIVATE_NETWORKS',
    'must be true or false',
    boolean,
    () => false,
    byDefault('false', 'Allow webhook URLs on private networks (loopback, private and link-local addresses).'),
  ),
  WEBHOOK_RETRY_SCHEDULE: setting(
    'WEBHOOK_RETRY_SCHEDULE',
    'must be comma-separated whole seconds, such as 0,5,300',
    schedule,
    () => [...DEFAULT_WEBHOOK_RETRY_SCHEDULE],
    byDefault(DEFAULT_WEBHOOK_RETRY_SCHEDULE.join(','), 'Seconds between webhook delivery attempts.'),
  ),
  VERIFICATION_DELIVERY_URL: setting(
    'VERIFICATION_DELIVERY_URL',
    'must be an http(s) URL',
    (raw) => (/^https?:\/\//.test(raw) && URL.canParse(raw) ? raw : undefined),
    none,
    otherwise('unset: codes are logged outside production, refused (500) in production', 'Where verification codes are POSTed.'),
  ),
  PLACEHOLDER_OPERATIONS: setting(
    'PLACEHOLDER_OPERATIONS',
    'must list known operationIds, comma-separated',
    operationIds,
    () => new Set<string>(),
    { ...byDefault('', 'Comma-separated operationIds forced to answer the 501 placeholder.'), shown: 'empty' },
  ),
  PUBLIC_BASE_URL: setting(
    'PUBLIC_BASE_URL',
    'must be an http(s) URL without credentials, query or fragment, not ending in /public, such as https://api.example.com',
    baseUrl,
    none,
    otherwise('unset: the address each request reached (required in production)', 'Where partners reach the API (a path allowed; required, and https, in production): the partner OpenAPI document names `<it>/public/v1` as its server.'),
  ),
  CORS_ORIGINS: setting(
    'CORS_ORIGINS',
    'must be * or origins such as https://app.example.com, comma-separated',
    origins,
    () => [],
    { ...byDefault('', 'Comma-separated exact origins allowed to call the API from a browser (CORS), or *.'), shown: 'empty: no browser access' },
  ),
  LOG_LEVEL: setting(
    'LOG_LEVEL',
    `must be one of ${LOG_LEVELS.join(', ')}`,
    (raw) => (LOG_LEVELS as readonly string[]).includes(raw) ? (raw as LogLevel) : undefined,
    (): LogLevel => 'info',
    byDefault('info', 'The least severe level of the log lines written (pino, JSON lines on standard output).'),
  ),
  NODE_ENV: setting(
    'NODE_ENV',
    'may be anything: only production changes anything',
    text,
    none,
    otherwise(
      'unset',
      'production turns off generated secrets (a missing secret makes its routes answer 500 server_misconfigured) and requires PUBLIC_BASE_URL, an https URL.',
    ),
  ),
  RUN_JOBS: setting(
    'RUN_JOBS',
    'must be true or false',
    boolean,
    () => true,
    byDefault('true', 'Run the background jobs (webhook delivery, the daily servicing and event retention jobs) in the API process. false leaves them to worker processes, on a PostgreSQL server.'),
  ),
  WEBHOOK_WORKER: renamed('WEBHOOK_WORKER', 'RUN_JOBS'),
  WORKER_PORT: bounded('WORKER_PORT', 0, 65535, 3001, "A worker's port for /health, /health/ready and /metrics (on HOST)."),
  SERVICING_JOB_AT: setting(
    'SERVICING_JOB_AT',
    'must be a time of day in UTC, HH:MM',
    timeOfDay,
    () => 15,
    byDefault('00:15', "When the daily servicing job runs, HH:MM UTC (and at start when that day's run has not completed)."),
  ),
  KEY_USAGE_FLUSH_MS: bounded('KEY_USAGE_FLUSH_MS', 100, 3_600_000, 5000, 'How often buffered last_used_at updates of API keys are written, in milliseconds.'),
  RATE_LIMIT_REQUESTS: limit('RATE_LIMIT_REQUESTS', 600, 'Requests per API key per window, on every partner route.'),
  RATE_LIMIT_WINDOW_SECONDS: bounded('RATE_LIMIT_WINDOW_SECONDS', 1, 86_400, 60, 'The length of every rate-limit window, in seconds.'),
  RATE_LIMIT_VERIFICATION_REQUESTS: limit('RATE_LIMIT_VERIFICATION_REQUESTS', 30, 'Per API key per window on the verification-code routes, on top of RATE_LIMIT_REQUESTS.'),
  RATE_LIMIT_WEBHOOK_RETRIES: limit('RATE_LIMIT_WEBHOOK_RETRIES', 5, 'Manual retries of one webhook event per window, on top of RATE_LIMIT_REQUESTS.'),
  RATE_LIMIT_MINT_REQUESTS: limit(
    'RATE_LIMIT_MINT_REQUESTS',
    10,
    'Failed key mint attempts (a wrong or empty mint secret) per client address per window; a right secret never counts. Failed internal-token attempts and console sign-ins have the same budget, each counted apart; failed sign-ins to one e-mail too, over 15 minutes.',
  ),
  RATE_LIMIT_KEY_LOOKUPS: limit(
    'RATE_LIMIT_KEY_LOOKUPS',
    300,
    "Per client address per window: key-store lookups of partner keys the instance's key cache does not hold; past it, 429 key_lookups without a lookup.",
  ),
  RATE_LIMIT_KEYLESS_REQUESTS: limit(
    'RATE_LIMIT_KEYLESS_REQUESTS',
    300,
    'Per client address per window: requests presenting no credential worth checking (the health probes exempt); past it, 429 keyless.',
  ),
  RATE_LIMIT_SYNC_MS: bounded('RATE_LIMIT_SYNC_MS', 10, 60_000, 200, 'How often each instance shares its counts of the general and keyless limits with the others, in milliseconds.'),
  RATE_LIMIT_INSTANCES: bounded('RATE_LIMIT_INSTANCES', 1, 1_000, 1, "The fewest instances each takes to share the synced limits: set it to the fleet's usual size."),
  TRUSTED_PROXY_HOPS: bounded('TRUSTED_PROXY_HOPS', 0, 10, 0, 'How many proxies in front of the API append to X-Forwarded-For; 0 ignores the header. Set it only when the API cannot be reached but through them.'),
  HTTP_HEADERS_TIMEOUT_MS: bounded('HTTP_HEADERS_TIMEOUT_MS', 100, 600_000, 10_000, "Time to receive a request's headers, in milliseconds; past it, 408 and the connection closes."),
  HTTP_REQUEST_TIMEOUT_MS: bounded('HTTP_REQUEST_TIMEOUT_MS', 100, 600_000, 30_000, 'Time to receive a whole request, body included, in milliseconds; past it, 408 and the connection closes.'),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: bounded('HTTP_KEEP_ALIVE_TIMEOUT_MS', 100, 600_000, 5_000, "How long an idle keep-alive connection stays open, in milliseconds; behind a load balancer, longer than the balancer's idle timeout."),
  HTTP_MAX_CONNECTIONS: bounded('HTTP_MAX_CONNECTIONS', 1, 1_000_000, 1_000, 'Open connections per instance; connections past it are closed as they arrive.'),
  HTTP_MAX_CONNECTIONS_PER_ADDRESS: setting(
    'HTTP_MAX_CONNECTIONS_PER_ADDRESS',
    integerRule(1, 1_000_000),
    integer(1, 1_000_000),
    none,
    otherwise(
      'unset: a tenth of HTTP_MAX_CONNECTIONS, at most 100; with TRUSTED_PROXY_HOPS above 0, HTTP_MAX_CONNECTIONS',
      'Open connections of one client address per instance; past it, 429 and the connection closed.',
    ),
  ),
  ACH_ENABLED: setting(
    'ACH_ENABLED',
    'must be true or false',
    boolean,
    () => false,
    byDefault('false', "Collect repayments from bank accounts by ACH debit: accepted PENDING, sent in a NACHA file at the next cut-off. Needs the ACH_ODFI_* and ACH_COMPANY_* settings; false charges bank accounts on the sandbox rails."),
  ),
  ACH_ODFI_ROUTING_NUMBER: setting(
    'ACH_ODFI_ROUTING_NUMBER',
    'must be a 9-digit ABA routing number with a valid checksum',
    (raw) => (isAbaRoutingNumber(raw) ? raw : undefined),
    none,
    otherwise('unset (required with ACH_ENABLED)', "Your bank's (the ODFI's) routing number: the files' origin; its first 8 digits begin every trace number."),
  ),
  ACH_ODFI_NAME: setting('ACH_ODFI_NAME', 'must be 1 to 23 printable ASCII characters', nachaText(23), none, otherwise('unset (required with ACH_ENABLED)', "Your bank's name, as the files' header names their origin.")),
  ACH_COMPANY_ID: setting('ACH_COMPANY_ID', 'must be 1 to 10 printable ASCII characters', nachaText(10), none, otherwise('unset (required with ACH_ENABLED)', 'The company identification your bank assigned to the lender.')),
  ACH_COMPANY_NAME: setting('ACH_COMPANY_NAME', 'must be 1 to 16 printable ASCII characters', nachaText(16), none, otherwise('unset (required with ACH_ENABLED)', "The lender's name as borrowers' bank statements show it.")),
  ACH_DESTINATION_ROUTING_NUMBER: setting(
    'ACH_DESTINATION_ROUTING_NUMBER',
    'must be a 9-digit ABA routing number with a valid checksum',
    (raw) => (isAbaRoutingNumber(raw) ? raw : undefined),
    none,
    otherwise('unset: ACH_ODFI_ROUTING_NUMBER', "Where the files go (their immediate destination): your bank, or the ACH operator it names."),
  ),
  ACH_DESTINATION_NAME: setting('ACH_DESTINATION_NAME', 'must be 1 to 23 printable ASCII characters', nachaText(23), none, otherwise('unset: ACH_ODFI_NAME', 'The name of the files\' immediate destination.')),
  ACH_CUTOFFS: setting(
    'ACH_CUTOFFS',
    'must be times of day, HH:MM, comma-separated',
    timesOfDay,
    () => ['15:30'],
    byDefault('15:30', 'When files are cut on each banking day, HH:MM New York time, comma-separated: the payments taken before each go in its file, effective the next banking day.'),
  ),
  ACH_SETTLEMENT_AT: setting(
    'ACH_SETTLEMENT_AT',
    'must be a time of day, HH:MM',
    (raw) => (timeOfDay(raw) === undefined ? undefined : raw),
    () => '21:00',
    byDefault('21:00', 'When debits whose return window (2 banking days) has passed are settled, each banking day, HH:MM New York time.'),
  ),
  ACH_EXTRA_CLOSURES: setting(
    'ACH_EXTRA_CLOSURES',
    'must be dates, YYYY-MM-DD, comma-separated',
    dates,
    () => [],
    { ...byDefault('', 'Days the ACH network is closed besides the Federal Reserve holidays (a closure declared at short notice), YYYY-MM-DD, comma-separated.'), shown: 'empty' },
  ),
  ACH_OUTBOX_DIR: setting('ACH_OUTBOX_DIR', 'must be a path', text, none, otherwise('unset: DATA_DIR/ach-outbox', 'The folder NACHA files are written to, for your bank or its connector to collect (made 0700 if missing). Every instance must see the same folder.')),
})

/** The ACH settings, or the names of those missing, when `ACH_ENABLED`. */
const achSettings = (v: t.TypeOf<typeof Environment>): E.Either<readonly string[], AchSettings | undefined> => {
  if (!v.ACH_ENABLED) return E.right(undefined)
  const { ACH_ODFI_ROUTING_NUMBER: routing, ACH_ODFI_NAME: odfiName, ACH_COMPANY_ID: companyId, ACH_COMPANY_NAME: companyName } = v
  if (routing === undefined || odfiName === undefined || companyId === undefined || companyName === undefined) {
    const missing = Object.entries({ ACH_ODFI_ROUTING_NUMBER: routing, ACH_ODFI_NAME: odfiName, ACH_COMPANY_ID: companyId, ACH_COMPANY_NAME: companyName }).filter(([, value]) => value === undefined)
    return E.left(missing.map(([name]) => `${name} must be set when ACH_ENABLED is true`))
  }
  return E.right({
    odfiRoutingNumber: routing,
    odfiName,
    companyIdentification: companyId,
    companyName,
    destinationRoutingNumber: v.ACH_DESTINATION_ROUTING_NUMBER ?? routing,
    destinationName: v.ACH_DESTINATION_NAME ?? odfiName,
    cutoffs: v.ACH_CUTOFFS,
    settlementAt: v.ACH_SETTLEMENT_AT,
    extraClosures: v.ACH_EXTRA_CLOSURES,
    outboxDir: v.ACH_OUTBOX_DIR ?? `${v.DATA_DIR.replace(/\/+$/, '')}/ach-outbox`,
  })
}

/** Every setting people may set, in the order of `Environment`, with its rule and documentation; a renamed setting is not one. */
export const documentedSettings = (): readonly { readonly name: string; readonly expected: string; readonly doc: SettingDoc }[] =>
  Object.entries(Environment.props).flatMap(([name, s]) => ('doc' in s ? [{ name, expected: s.expected, doc: s.doc }] : []))

/** Reads and validates the configuration; every problem is reported, not just the first. */
export const loadConfig = (env: Env): E.Either<readonly string[], Config> =>
  pipe(
    Environment.decode(env),
    E.mapLeft((errors) => errors.map((e) => `${e.context.map((c) => c.key).filter((k) => k !== '').join('.')} ${e.message ?? 'is invalid'}`)),
    E.filterOrElse(
      (v) => v.NODE_ENV !== 'production' || (v.PUBLIC_BASE_URL !== undefined && v.PUBLIC_BASE_URL.startsWith('https://')),
      (): readonly string[] => ['PUBLIC_BASE_URL must be set to an https URL in production: partners send their keys to it, and the partner OpenAPI document names it as its server'],
    ),
    E.filterOrElse(
      (v) => v.DATABASE_DIRECT_URL === undefined || (v.DATABASE_URL !== undefined && serverUrl(v.DATABASE_URL) !== undefined),
      (): readonly string[] => ['DATABASE_DIRECT_URL needs DATABASE_URL to name a PostgreSQL server (the embedded database has no pooler to go around)'],
    ),
    E.filterOrElse(
      (v) => v.DATABASE_READ_URL.length === 0 || (v.DATABASE_URL !== undefined && serverUrl(v.DATABASE_URL) !== undefined),
      (): readonly string[] => ['DATABASE_READ_URL needs DATABASE_URL to name a PostgreSQL server: its replicas stream from that server'],
    ),
    E.filterOrElse(
      (v) => !v.ACH_ENABLED || !(v.NODE_ENV === 'production') || v.WEBHOOK_SECRET_KEY !== undefined,
      (): readonly string[] => ['ACH_ENABLED needs WEBHOOK_SECRET_KEY in production: it seals the bank account numbers the files debit'],
    ),
    E.bindTo('v'),
    E.bind('ach', ({ v }) => achSettings(v)),
    E.map(
      ({ v, ach }): Config => ({
        port: v.PORT,
        host: v.HOST,
        databaseUrl: v.DATABASE_URL,
        databaseDirectUrl: v.DATABASE_DIRECT_URL,
        databaseReadUrls: v.DATABASE_READ_URL,
        replicaMaxLagMs: v.REPLICA_MAX_LAG_MS,
        dataDir: v.DATA_DIR,
        partnerMintSecret: v.PARTNER_MINT_SECRET,
        internalApiToken: v.INTERNAL_API_TOKEN,
        operatorSessionMinutes: v.OPERATOR_SESSION_MINUTES,
        webhookSecretKey: v.WEBHOOK_SECRET_KEY,
        webhookAllowHttp: v.WEBHOOK_ALLOW_HTTP,
        webhookAllowPrivateNetworks: v.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
        webhookRetrySchedule: v.WEBHOOK_RETRY_SCHEDULE,
        verificationDeliveryUrl: v.VERIFICATION_DELIVERY_URL,
        placeholderOperations: v.PLACEHOLDER_OPERATIONS,
        publicBaseUrl: v.PUBLIC_BASE_URL,
        corsOrigins: v.CORS_ORIGINS,
        logLevel: v.LOG_LEVEL,
        production: v.NODE_ENV === 'production',
        keyUsageFlushMs: v.KEY_USAGE_FLUSH_MS,
        runJobs: v.RUN_JOBS,
        workerPort: v.WORKER_PORT,
        servicingJobAtMinute: v.SERVICING_JOB_AT,
        rateLimits: {
          requests: v.RATE_LIMIT_REQUESTS,
          windowSeconds: v.RATE_LIMIT_WINDOW_SECONDS,
          verificationRequests: v.RATE_LIMIT_VERIFICATION_REQUESTS,
          webhookRetries: v.RATE_LIMIT_WEBHOOK_RETRIES,
          mintRequests: v.RATE_LIMIT_MINT_REQUESTS,
          keyLookups: v.RATE_LIMIT_KEY_LOOKUPS,
          keylessRequests: v.RATE_LIMIT_KEYLESS_REQUESTS,
          syncMs: v.RATE_LIMIT_SYNC_MS,
          instances: v.RATE_LIMIT_INSTANCES,
        },
        trustedProxyHops: v.TRUSTED_PROXY_HOPS,
        connections: {
          // A request's whole time includes its headers' (Node requires headers ≤ request).
          headersTimeoutMs: Math.min(v.HTTP_HEADERS_TIMEOUT_MS, v.HTTP_REQUEST_TIMEOUT_MS),
          requestTimeoutMs: v.HTTP_REQUEST_TIMEOUT_MS,
          keepAliveTimeoutMs: v.HTTP_KEEP_ALIVE_TIMEOUT_MS,
          maxConnections: v.HTTP_MAX_CONNECTIONS,
          maxConnectionsPerAddress: v.HTTP_MAX_CONNECTIONS_PER_ADDRESS ?? defaultConnectionsPerAddress(v.HTTP_MAX_CONNECTIONS, v.TRUSTED_PROXY_HOPS),
        },
        ach,
      }),
    ),
  )
