/**
 * What the API does on every request whatever the route, for the benchmark's reference server
 * (bench/src/baselines/koa-duties.ts): the request id, access line and request metrics, the security headers,
 * the presented key and its hash comparison, a refusal answered through the API's own error
 * mapping. A bare Koa route with these duties and the session read, and nothing else, shows the
 * most any implementation of the API could reach on the machine the benchmark runs on
 * (docs/benchmarks.md, "The reference").
 */
export { nodeApiKeyMaterial } from '@lendgate/adapters'
export { invalidApiKey } from '@lendgate/core'
export { presentedApiKey } from './http/auth.js'
export { requestLifecycle } from './http/request-lifecycle.js'
export { answerProblem } from './http/respond.js'
export { securityHeaders } from './http/security-headers.js'
export { createLogger } from './logger.js'
export { createMetrics } from './metrics.js'
