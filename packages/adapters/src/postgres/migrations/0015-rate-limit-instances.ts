import type { Kysely } from 'kysely'

/**
 * The instances that share the synced rate limits (decision 112): each upserts its row (a random
 * id per process) at every sync, and learns how many others were seen recently. Rows long stale
 * are purged with ended windows (the `seen_at` index).
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .createTable('rate_limit_instances')
    .addColumn('instance', 'text', (c) => c.primaryKey())
    .addColumn('seen_at', 'timestamptz', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('rate_limit_instances_seen_at_idx').on('rate_limit_instances').column('seen_at').execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.dropTable('rate_limit_instances').execute()
}
