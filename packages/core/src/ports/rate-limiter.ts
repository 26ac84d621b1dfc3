import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/errors.js'
import type { RateDecision, RatePolicy } from '../domain/rate-limit.js'

/**
 * Decides whether one more request may go into a bucket (`key:<apiKeyId>`, `mint:<address>`,
 * …) under a policy, and counts it if so. A refused request is not counted. A Left means the
 * count could not be kept (the store is down); callers decide whether to fail open.
 *
 * @property take - The decision for one more request in `bucket` under `policy`, counted if allowed.
 */
export type RateLimiter = {
  readonly take: (bucket: string, policy: RatePolicy) => TE.TaskEither<StoreUnavailable, RateDecision>
}
