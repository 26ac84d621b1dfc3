import type { PoolConnections, ReplicaState } from '@lendgate/adapters'
import { RATE_CATEGORIES, RETURN_RATE_THRESHOLDS, type AttemptLimiter, type AttemptOutcome, type CachedApiKeys, type RateLimiter, type ReturnRateReport, type WebhookBacklog } from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import { RATE_POLICY } from './http/rate-policies.js'

/**
 * One process's metrics (issue 38, docs/deployment.md "Metrics"), in a registry of its own
 * (prom-client's, never its process-wide default), served as Prometheus text at `/metrics`.
 * Counters are told what happened by the code that saw it; gauges of shared state (the pool,
 * the webhook backlog, job lag) are read when Prometheus scrapes.
 */
export type Metrics = {
  readonly registry: Registry
  /** One answered request: its operationId (undefined when no route matched), status and duration. */
  readonly requestServed: (operation: string | undefined, status: number, seconds: number) => void
  /** One webhook delivery attempt and what came of it. */
  readonly deliveryAttempt: (outcome: AttemptOutcome) => void
  /** One attempt at a scheduled job's run that did something, and how long it took. */
  readonly jobRun: (job: string, outcome: JobRunLabel, seconds: number) => void
  /** One loan a job skipped because servicing it failed (it is tried again on the next run). */
  readonly loanFailed: (job: string) => void
  /** Wraps a rate limiter so that each request it refuses is counted by policy. */
  readonly countingRefusals: (limiter: RateLimiter) => RateLimiter
  /** The same for an attempt limiter: each attempt it refuses is counted under its policy. */
  readonly countingAttemptRefusals: (limiter: AttemptLimiter) => AttemptLimiter
  /** Wraps the key cache so that each lookup is counted as a hit (held) or a miss (read from the store). */
  readonly countingLookups: (cache: CachedApiKeys) => CachedApiKeys
  /** One read that may be behind (decision 156), by where it was served. */
  readonly readServed: (servedBy: ReadServedBy) => void
}

/**
 * Where a read that may be behind was served: a replica; the primary, no replica being current
 * enough for it (or none configured); the primary, after the read failed on a replica; the
 * primary, the replica not holding the record the read names.
 */
export const READ_SERVED_BY = ['replica', 'primary', 'primary_after_replica_failed', 'primary_after_replica_not_found'] as const
export type ReadServedBy = (typeof READ_SERVED_BY)[number]

/** How a job's run attempt ended, as a label: see `JobRunOutcome`; `failed` when the store failed, `error` when the code threw (a bug). */
const JOB_RUN_LABELS = ['completed', 'stopped', 'lease_lost', 'failed', 'error'] as const
export type JobRunLabel = (typeof JOB_RUN_LABELS)[number]

/** Where the gauges read from; a source left out is not reported by this process. */
export type MetricSources = {
  /** The database pool's connections. */
  readonly connections?: () => PoolConnections
  /** The webhook backlog (processes that deliver webhooks); undefined when the store did not answer. */
  readonly webhookBacklog?: () => Promise<WebhookBacklog | undefined>
  /** Each scheduled job's lag: how long its earliest run not completed has been due (0 when none is). */
  readonly jobLag?: () => Promise<readonly { readonly job: string; readonly seconds: number }[]>
  /** Nacha's return rates per API client (processes that run the ACH jobs); undefined when the store did not answer. */
  readonly achReturnRates?: () => Promise<ReturnRateReport | undefined>
  /** The scheduled jobs this process runs: their run counters start at 0 for every outcome. */
  readonly jobs?: readonly string[]
  /** Node.js process metrics (memory, CPU, event loop, GC): only for a real process, never for tests that build many. */
  readonly processMetrics?: boolean
  /** The read replicas as last probed (DATABASE_READ_URL); none reported without. */
  readonly replicas?: () => readonly ReplicaState[]
}

/** prom-client's default process gauges named like counters; their per-type gauges (`nodejs_active_handles{type}`, …) stay and sum to them. */
const MISNAMED_DEFAULT_GAUGES = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'] as const

/** How long one read of shared state serves the gauges of a scrape. */
const SCRAPE_MS = 1_000

/** How long one count of the return rates serves: they move with files, a few a day (docs/ach.md "Risk counters"). */
const RETURN_RATES_MS = 60_000

/** `read`, its answer shared by every call within `ms` of the one that asked it. */
const sharedFor = <A>(ms: number, read: () => Promise<A>): (() => Promise<A>) => {
  let last: { readonly at: number; readonly answer: Promise<A> } | undefined
  return () => {
    const now = Date.now()
    if (last === undefined || now - last.at >= ms) last = { at: now, answer: read() }
    return last.answer
  }
}

/** The status class of an HTTP status: `2xx`, `4xx`, … */
const statusClass = (status: number): string => `${Math.floor(status / 100)}xx`

/** Latency buckets in seconds, from a cache hit to a slow payment. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]
/** Job durations in seconds, from an idle run to a large book. */
const JOB_BUCKETS = [0.1, 1, 10, 60, 300, 900, 3600]

/** A delivery attempt's outcome as a label. */
const attemptLabel = (outcome: AttemptOutcome): string => {
  switch (outcome._tag) {
    case 'Delivered':
      return 'delivered'
    case 'RetryAt':
      return 'retry'
    case 'Failed':
      return 'failed'
  }
}

/** The metrics of one process, reading its gauges from `sources`. */
export const createMetrics = (sources: MetricSources = {}): Metrics => {
  const registry = new Registry()
  const registers = [registry]
  if (sources.processMetrics === true) {
    collectDefaultMetrics({ register: registry })
    // Gauges whose names end in `_total`, which Prometheus keeps for counters (`promtool check metrics` refuses them).
    for (const name of MISNAMED_DEFAULT_GAUGES) registry.removeSingleMetric(name)
  }

  const requests = new Counter({
    name: 'lendgate_http_requests_total',
    help: 'HTTP requests answered, by operationId (unmatched: no route) and status class.',
    labelNames: ['operation', 'status_class'] as const,
    registers,
  })
  const latency = new Histogram({
    name: 'lendgate_http_request_duration_seconds',
    help: 'Time from a request arriving to its answer, by operationId.',
    labelNames: ['operation'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  })
  const keyLookups = new Counter({
    name: 'lendgate_key_cache_lookups_total',
    help: 'Partner key lookups, answered from the key cache (hit) or read from the database (miss).',
    labelNames: ['result'] as const,
    registers,
  })
  const refusals = new Counter({
    name: 'lendgate_rate_limit_refusals_total',
    help: 'Requests refused by a rate limit, by policy.',
    labelNames: ['policy'] as const,
    registers,
  })
  const attempts = new Counter({
    name: 'lendgate_webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts made by this process, by outcome (delivered, retry: will be tried again, failed: given up).',
    labelNames: ['outcome'] as const,
    registers,
  })
  const jobRuns = new Counter({
    name: 'lendgate_job_runs_total',
    help: 'Attempts at scheduled job runs made by this process that did work, by job and outcome.',
    labelNames: ['job', 'outcome'] as const,
    registers,
  })
  const loanFailures = new Counter({
    name: 'lendgate_job_loan_failures_total',
    help: 'Loans a scheduled job skipped because servicing them failed (tried again on the next run), by job.',
    labelNames: ['job'] as const,
    registers,
  })
  const jobDuration = new Histogram({
    name: 'lendgate_job_duration_seconds',
    help: 'Duration of this process\'s attempts at scheduled job runs, by job.',
    labelNames: ['job'] as const,
    buckets: JOB_BUCKETS,
    registers,
  })

  const readsBehind = new Counter({
    name: 'lendgate_db_reads_behind_total',
    help: 'Reads that may be a little behind (lists, ledgers, schedules, the portfolio), by where they were served: replica, primary (no replica current enough, or none configured), primary_after_replica_failed, primary_after_replica_not_found (the replica did not hold the record named).',
    labelNames: ['served_by'] as const,
    registers,
  })

  // Known label values start at 0, so that a rate over them exists before the first event.
  for (const servedBy of READ_SERVED_BY) readsBehind.inc({ served_by: servedBy }, 0)
  for (const result of ['hit', 'miss']) keyLookups.inc({ result }, 0)
  for (const outcome of ['delivered', 'retry', 'failed']) attempts.inc({ outcome }, 0)
  for (const policy of Object.values(RATE_POLICY)) refusals.inc({ policy }, 0)
  for (const job of sources.jobs ?? []) for (const outcome of JOB_RUN_LABELS) jobRuns.inc({ job, outcome }, 0)
  for (const job of sources.jobs ?? []) loanFailures.inc({ job }, 0)

  const { connections, webhookBacklog, jobLag, achReturnRates, replicas } = sources
  if (replicas !== undefined) {
    new Gauge({
      name: 'lendgate_db_replica_up',
      help: 'Whether each read replica answered its last probe as a standby (1) or not (0).',
      labelNames: ['replica'] as const,
      registers,
      collect() {
        for (const state of replicas()) this.set({ replica: state.description }, state.up ? 1 : 0)
      },
    })
    new Gauge({
      name: 'lendgate_db_replica_lag_seconds',
      help: 'How far behind the primary a read from each replica may be: the time since the newest instant it was known to hold every commit (probed every second; +Inf until first known). Past REPLICA_MAX_LAG_MS it is skipped.',
      labelNames: ['replica'] as const,
      registers,
      collect() {
        for (const state of replicas()) this.set({ replica: state.description }, state.lagMs === undefined ? Infinity : state.lagMs / 1000)
      },
    })
  }
  if (connections !== undefined) {
    new Gauge({
      name: 'lendgate_db_pool_connections',
      help: 'Database pool connections of this process, by state (in_use, idle).',
      labelNames: ['state'] as const,
      registers,
      collect() {
        const now = connections()
        this.set({ state: 'in_use' }, now.inUse)
        this.set({ state: 'idle' }, now.idle)
      },
    })
    new Gauge({
      name: 'lendgate_db_pool_waiting',
      help: 'Queries of this process waiting for a database pool connection.',
      registers,
      collect() {
        this.set(connections().waiting)
      },
    })
  }
  if (webhookBacklog !== undefined) {
    // One query serves both gauges of a scrape (prom-client collects them concurrently).
    const backlog = sharedFor(SCRAPE_MS, webhookBacklog)
    new Gauge({
      name: 'lendgate_webhook_events_pending',
      help: 'Webhook deliveries not yet made (fleet-wide, to sessions\' webhooks and partners\' endpoints), by what they wait for: due (a worker), scheduled (a retry\'s time), awaiting_endpoint (the partner to register a session\'s webhook, or to enable a disabled endpoint).',
      labelNames: ['state'] as const,
      registers,
      async collect() {
        const now = await backlog()
        if (now === undefined) return
        this.set({ state: 'due' }, now.due)
        this.set({ state: 'scheduled' }, now.scheduled)
        this.set({ state: 'awaiting_endpoint' }, now.awaitingEndpoint)
      },
    })
    new Gauge({
      name: 'lendgate_webhook_oldest_due_age_seconds',
      help: 'How long the webhook event due the longest has waited for a worker (0 when none is due).',
      registers,
      async collect() {
        const now = await backlog()
        if (now !== undefined) this.set(now.oldestDueAt === null ? 0 : Math.max(0, (Date.now() - now.oldestDueAt.getTime()) / 1000))
      },
    })
  }
  if (achReturnRates !== undefined) {
    // One count serves the three gauges for a minute; a client gone from the window is dropped.
    const rates = sharedFor(RETURN_RATES_MS, achReturnRates)
    const gauge = (name: string, help: string, labelNames: readonly string[], set: (g: Gauge, report: ReturnRateReport) => void) =>
      new Gauge({
        name,
        help,
        labelNames,
        registers,
        async collect() {
          const report = await rates()
          if (report === undefined) return
          this.reset()
          set(this, report)
        },
      })
    gauge('lendgate_ach_debits_60d', 'Bank debit entries of written files effective in the last 60 days, per API client: the denominator of the return rates.', ['client_id'], (g, report) => {
      for (const c of report.clients) g.set({ client_id: c.clientId }, c.debits)
    })
    gauge('lendgate_ach_returns_60d', 'Returns of bank debits received in the last 60 days, per API client and category (unauthorized, administrative, overall).', ['client_id', 'category'], (g, report) => {
      for (const c of report.clients) for (const category of RATE_CATEGORIES) g.set({ client_id: c.clientId, category }, c[category].returns)
    })
    const thresholds = RATE_CATEGORIES.map((category) => `${RETURN_RATE_THRESHOLDS[category]} ${category}`).join(', ')
    gauge('lendgate_ach_return_rate', `Nacha's return rate over the last 60 days, per API client and category (a ratio: 0.005 is 0.5 %; thresholds ${thresholds}).`, ['client_id', 'category'], (g, report) => {
      // No debit, no rate: the series is absent (returns without debits show in lendgate_ach_returns_60d).
      for (const c of report.clients)
        for (const category of RATE_CATEGORIES) {
          const { rate } = c[category]
          if (rate !== null) g.set({ client_id: c.clientId, category }, rate)
        }
    })
  }
  if (jobLag !== undefined) {
    new Gauge({
      name: 'lendgate_job_lag_seconds',
      help: 'How long each scheduled job\'s latest due run has been waiting to complete (0 when it has).',
      labelNames: ['job'] as const,
      registers,
      async collect() {
        for (const { job, seconds } of await jobLag()) this.set({ job }, seconds)
      },
    })
  }

  return {
    registry,
    requestServed: (operation, status, seconds) => {
      const op = operation ?? 'unmatched'
      requests.inc({ operation: op, status_class: statusClass(status) })
      latency.observe({ operation: op }, seconds)
    },
    deliveryAttempt: (outcome) => attempts.inc({ outcome: attemptLabel(outcome) }),
    jobRun: (job, outcome, seconds) => {
      jobRuns.inc({ job, outcome })
      jobDuration.observe({ job }, seconds)
    },
    loanFailed: (job) => loanFailures.inc({ job }),
    readServed: (servedBy) => readsBehind.inc({ served_by: servedBy }),
    countingLookups: (cache) => ({
      ...cache,
      findByIdSegment: (idSegment) => {
        keyLookups.inc({ result: cache.held(idSegment) === undefined ? 'miss' : 'hit' })
        return cache.findByIdSegment(idSegment)
      },
    }),
    countingRefusals: (limiter) => ({
      ...limiter,
      take: (bucket, policy) => async () => {
        const decision = await limiter.take(bucket, policy)()
        if (E.isRight(decision) && !decision.right.allowed) refusals.inc({ policy: policy.name })
        return decision
      },
    }),
    countingAttemptRefusals: (limiter) => ({
      attempt: (bucket, policy, check) => async () => {
        const attempted = await limiter.attempt(bucket, policy, check)()
        if (E.isRight(attempted) && !attempted.right.decision.allowed) refusals.inc({ policy: policy.name })
        return attempted
      },
    }),
  }
}
