import { sql, type Kysely } from 'kysely'

/** The schema of each world: the live world's is the migrations' own, the test world's `lendgate_test` (0017). */
const WORLDS = [undefined, 'lendgate_test'] as const

/**
 * A bank account's numbers, sealed (`AccountSeal`: AES-256-GCM, bound to the method's id), one row
 * per payment method that has them, in a table of their own so that no read of a method's row
 * carries them. A world table; a row goes with its method (`on delete cascade`).
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema
      .createTable('bank_account_secrets')
      .addColumn('payment_method_id', 'uuid', (c) => c.primaryKey().references('payment_methods.id').onDelete('cascade'))
      .addColumn('sealed', 'text', (c) => c.notNull().check(sql`length(sealed) > 0`))
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .execute()
  }
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema.dropTable('bank_account_secrets').execute()
  }
}
