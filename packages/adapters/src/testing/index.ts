export * from './test-databases.js'
export * from './large-book.js'
export * from './query-plans.js'
export * from './backup-rows.js'
