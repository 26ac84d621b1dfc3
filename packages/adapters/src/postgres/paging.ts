import type { PageRequest } from '@lendgate/core'
import * as O from 'fp-ts/lib/Option.js'
import { sql, type SelectQueryBuilder, type SqlBool } from 'kysely'

/**
 * One page of a list (CONTRACT.md "Lists"): rows strictly after the cursor's position in
 * `(created_at, id)` order, in that order, one more than the limit (the extra row only tells
 * that there is a next page). Every listed table has `created_at` and `id`.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- works on any single-table select with those two columns
export const inPage = <QB extends SelectQueryBuilder<any, any, any>>(query: QB, page: PageRequest): QB => {
  const after = O.isSome(page.after)
    ? query.where(sql<SqlBool>`(created_at, id) > (${page.after.value.createdAt}, ${page.after.value.id})`)
    : query
  return after.orderBy(sql`created_at`).orderBy(sql`id`).limit(page.limit + 1) as QB
}

/**
 * The same for rows ordered by `(created_at, seq)` (ledger entries, balance snapshots and events,
 * whose `seq` orders rows written in the same millisecond): the cursor's id is the zero-padded
 * seq. The position is also stated as `created_at >=` the cursor's: PostgreSQL prunes a table
 * partitioned by time (the event log) on that, not on the row comparison.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- works on any single-table select with those two columns
export const inSequencePage = <QB extends SelectQueryBuilder<any, any, any>>(query: QB, page: PageRequest): QB => {
  const after = O.isSome(page.after)
    ? query.where(sql<SqlBool>`created_at >= ${page.after.value.createdAt} and (created_at, seq) > (${page.after.value.createdAt}, ${BigInt(page.after.value.id)})`)
    : query
  return after.orderBy(sql`created_at`).orderBy(sql`seq`).limit(page.limit + 1) as QB
}
