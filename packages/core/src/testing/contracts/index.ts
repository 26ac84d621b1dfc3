export * from './run.js'
export * from './api-key-repository-contract.js'
export * from './onboarding-session-repository-contract.js'
export * from './idempotency-store-contract.js'
