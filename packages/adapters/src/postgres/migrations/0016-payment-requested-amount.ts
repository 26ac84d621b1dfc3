import { sql, type Kysely } from 'kysely'

/**
 * What a payment's order asked, when more than what was charged and posted (a final bill settled
 * at the payoff; docs/servicing.md "Taking a payment"): a retry under its key is compared with it.
 * Null (every payment before) means the order asked `amount`.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema
    .alterTable('payments')
    .addColumn('requested_amount', 'int8', (c) => c.check(sql`requested_amount > amount`))
    .execute()
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await db.schema.alterTable('payments').dropColumn('requested_amount').execute()
}
