/**
 * The paths a load balancer or Prometheus polls: liveness, readiness and metrics. They answer
 * while the schema is still being migrated (`schemaGate`), and the health probes never count
 * against the keyless budget.
 */
export const HEALTH_PROBES: ReadonlySet<string> = new Set(['/health', '/health/ready'])

/** The path of the Prometheus metrics (behind the internal token). */
export const METRICS_PATH = '/metrics'
