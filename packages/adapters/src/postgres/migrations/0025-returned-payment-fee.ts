import { sql, type Kysely } from 'kysely'

/** The schema of each world: the live world's is the migrations' own, the test world's `lendgate_test` (0017). */
const WORLDS = [undefined, 'lendgate_test'] as const

/**
 * The returned-payment fee (docs/servicing.md "Returns"): a product's, frozen on each loan at
 * booking (0: none, what every product and loan had so far), and a `RETURNED` payment's, the fee
 * its return charged, which a replay from booking charges again on its `returned_on`.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.alterTable('loan_products').addColumn('returned_payment_fee', 'int8', (c) => c.notNull().defaultTo(0).check(sql`returned_payment_fee >= 0`)).execute()
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema.alterTable('loans').addColumn('returned_payment_fee', 'int8', (c) => c.notNull().defaultTo(0).check(sql`returned_payment_fee >= 0`)).execute()
    await world.schema
      .alterTable('payments')
      .addColumn('return_fee', 'int8', (c) => c.notNull().defaultTo(0).check(sql`return_fee >= 0 and (return_fee = 0 or status = 'RETURNED')`))
      .execute()
  }
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema.alterTable('payments').dropColumn('return_fee').execute()
    await world.schema.alterTable('loans').dropColumn('returned_payment_fee').execute()
  }
  await db.schema.alterTable('loan_products').dropColumn('returned_payment_fee').execute()
}
