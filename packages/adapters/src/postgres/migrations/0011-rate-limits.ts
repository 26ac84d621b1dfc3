import { sql, type Kysely } from 'kysely'

/**
 * Rate limiting (issue 9): request counts per bucket and fixed window, shared by every
 * instance. Rows of ended windows are purged on a timer (the `window_end` index).
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .createTable('rate_limits')
    .addColumn('bucket', 'text', (c) => c.notNull())
    .addColumn('window_start', 'timestamptz', (c) => c.notNull())
    .addColumn('window_end', 'timestamptz', (c) => c.notNull())
    .addColumn('count', 'int8', (c) => c.notNull().check(sql`count >= 0`))
    .addPrimaryKeyConstraint('rate_limits_pkey', ['bucket', 'window_start'])
    .execute()
  await db.schema.createIndex('rate_limits_window_end_idx').on('rate_limits').column('window_end').execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('rate_limits').execute()
}
