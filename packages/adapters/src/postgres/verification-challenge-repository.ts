import type { VerificationChallenge, VerificationChallengeRepository } from '@lendgate/core'
import * as O from 'fp-ts/lib/Option.js'
import type { Kysely, Selectable } from 'kysely'
import type { Database, VerificationChallengesTable } from './schema.js'
import { query } from './store-errors.js'

const toChallenge = (row: Selectable<VerificationChallengesTable>): VerificationChallenge => ({
  id: row.id,
  sessionId: row.session_id,
  channel: row.channel,
  destination: row.destination,
  codeHash: row.code_hash,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  attempts: row.attempts,
  closedAt: row.closed_at,
})

export const postgresVerificationChallengeRepository = (db: Kysely<Database>): VerificationChallengeRepository => ({
  issue: (c) =>
    query(() =>
      db.transaction().execute(async (trx) => {
        await trx
          .updateTable('verification_challenges')
          .set({ closed_at: c.createdAt })
          .where('session_id', '=', c.sessionId)
          .where('channel', '=', c.channel)
          .where('closed_at', 'is', null)
          .execute()
        await trx
          .insertInto('verification_challenges')
          .values({
            id: c.id,
            session_id: c.sessionId,
            channel: c.channel,
            destination: c.destination,
            code_hash: c.codeHash,
            created_at: c.createdAt,
            expires_at: c.expiresAt,
            attempts: c.attempts,
            closed_at: c.closedAt,
          })
          .execute()
      }),
    ),

  latest: (sessionId, channel) =>
    query(async () =>
      O.map(toChallenge)(
        O.fromNullable(
          await db
            .selectFrom('verification_challenges')
            .selectAll()
            .where('session_id', '=', sessionId)
            .where('channel', '=', channel)
            .orderBy('created_at', 'desc')
            .orderBy('id', 'desc')
            .limit(1)
            .executeTakeFirst(),
        ),
      ),
    ),

  // One conditional UPDATE: concurrent attempts on the row wait for each other and each sees the count the last one left.
  takeAttempt: (id, maxAttempts) =>
    query(async () => {
      const row = await db
        .updateTable('verification_challenges')
        .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
        .where('id', '=', id)
        .where('closed_at', 'is', null)
        .where('attempts', '<', maxAttempts)
        .returningAll()
        .executeTakeFirst()
      return row === undefined ? O.none : O.some(toChallenge(row))
    }),

  update: (c) =>
    query(async () => {
      await db.updateTable('verification_challenges').set({ attempts: c.attempts, closed_at: c.closedAt }).where('id', '=', c.id).execute()
    }),
})
