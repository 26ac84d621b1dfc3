/**
 * What the API does on every request whatever the route, for the reference (`koa-duties.ts`): the
 * request's frame (id, access line, metrics, security headers), the presented key, a refusal
 * answered through the API's error mapping. Imported from the API's compiled modules, the code
 * `apps/api/dist/main.js` runs: the API exports none of them.
 */
export { nodeApiKeyMaterial } from '@lendgate/adapters'
export { invalidApiKey } from '@lendgate/core'
export { presentedApiKey } from '../../../apps/api/dist/http/caller.js'
export { requestLifecycle } from '../../../apps/api/dist/http/request-lifecycle.js'
export { answerProblem } from '../../../apps/api/dist/http/respond.js'
export { createLogger } from '../../../apps/api/dist/logger.js'
export { createMetrics } from '../../../apps/api/dist/metrics.js'
