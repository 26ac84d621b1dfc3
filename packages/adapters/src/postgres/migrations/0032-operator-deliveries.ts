import { type Kysely } from 'kysely'

/** The schema of each world: the live world's is the migrations' own, the test world's `lendgate_test` (0017). */
const WORLDS = [undefined, 'lendgate_test'] as const

/**
 * The operators' list of partners' webhook deliveries (docs/console.md "Webhook deliveries"):
 * pages in `id` order (the order they were queued in), whole (the primary key) or of one status
 * (the failed ones) or one endpoint. Of one event, `event_deliveries_event_idx` finds its few.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema.createIndex('event_deliveries_status_order_idx').on('event_deliveries').columns(['status', 'id']).execute()
    await world.schema.createIndex('event_deliveries_endpoint_order_idx').on('event_deliveries').columns(['endpoint_id', 'id']).execute()
  }
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    for (const index of ['event_deliveries_endpoint_order_idx', 'event_deliveries_status_order_idx']) await world.schema.dropIndex(index).execute()
  }
}
