/**
 * The name of every rate-limit policy, as partners see it in `RateLimit-Policy`, `RateLimit` and
 * a 429's `policy`, and operators in `lendgate_rate_limit_refusals_total{policy}`.
 */
export const RATE_POLICY = {
  default: 'default',
  verification: 'verification',
  webhookRetry: 'webhook_retry',
  mint: 'mint',
  internal: 'internal',
  signIn: 'sign_in',
  signInAccount: 'sign_in_account',
  keyLookups: 'key_lookups',
  keyless: 'keyless',
} as const
