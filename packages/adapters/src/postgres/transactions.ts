import * as E from 'fp-ts/lib/Either.js'
import type { Kysely, Transaction } from 'kysely'
import type { Database } from './schema.js'

/**
 * Runs `work` in one transaction (Kysely's controlled transaction): committed when it returns a
 * Right, rolled back when it returns a Left (an expected refusal, returned as it is) or throws
 * (a failure, rethrown). No domain value is ever thrown to roll back.
 */
export const inTransaction = async <L, R>(db: Kysely<Database>, work: (trx: Transaction<Database>) => Promise<E.Either<L, R>>): Promise<E.Either<L, R>> => {
  const trx = await db.startTransaction().execute()
  try {
    const outcome = await work(trx)
    await (E.isRight(outcome) ? trx.commit() : trx.rollback()).execute()
    return outcome
  } catch (error) {
    await trx.rollback().execute().catch(() => undefined)
    throw error
  }
}
