import type { Operator, OperatorCredentials, OperatorRepository, OperatorSession } from '@lendgate/core'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type { Kysely, Selectable, Transaction } from 'kysely'
import { insertAuditEvent } from './audit-log.js'
import type { Database, OperatorSessionsTable, OperatorsTable } from './schema.js'
import { asWriteError, attempt, query } from './store-errors.js'

const toOperator = (row: Selectable<OperatorsTable>): Operator => ({
  id: row.id,
  email: row.email,
  role: row.role,
  createdAt: row.created_at,
  disabledAt: row.disabled_at,
})

const toSession = (row: Pick<Selectable<OperatorSessionsTable>, 'id' | 'operator_id' | 'created_at' | 'expires_at' | 'revoked_at'>): OperatorSession => ({
  id: row.id,
  operatorId: row.operator_id,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at,
})

/** Revokes `operatorId`'s sessions live at `at`; how many. */
const revokeLive = async (trx: Transaction<Database>, operatorId: Operator['id'], at: Date): Promise<number> => {
  const revoked = await trx
    .updateTable('operator_sessions')
    .set({ revoked_at: at })
    .where('operator_id', '=', operatorId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', at)
    .executeTakeFirst()
  return Number(revoked.numUpdatedRows)
}

/** Operators and their sessions (migration 0029), in the live schema; their audit events in the live world's log. */
export const postgresOperatorRepository = (db: Kysely<Database>): OperatorRepository => ({
  add: ({ operator, passwordHash }, audit) =>
    pipe(
      attempt(
        () =>
          db.transaction().execute(async (trx) => {
            await trx
              .insertInto('operators')
              .values({ id: operator.id, email: operator.email, role: operator.role, password_hash: passwordHash, created_at: operator.createdAt, disabled_at: operator.disabledAt })
              .execute()
            await insertAuditEvent(trx, audit)
          }),
        asWriteError('operator'),
      ),
      TE.map(() => operator),
    ),

  credentialsOf: (email) =>
    query(async () => {
      const row = await db.selectFrom('operators').selectAll().where('email', '=', email).executeTakeFirst()
      return row === undefined ? O.none : O.some<OperatorCredentials>({ operator: toOperator(row), passwordHash: row.password_hash })
    }),

  findByEmail: (email) => query(async () => O.map(toOperator)(O.fromNullable(await db.selectFrom('operators').selectAll().where('email', '=', email).executeTakeFirst()))),

  list: () => query(async () => (await db.selectFrom('operators').selectAll().orderBy('email').execute()).map(toOperator)),

  disable: (id, at, audit) =>
    query(() =>
      db.transaction().execute(async (trx) => {
        const disabled = await trx.updateTable('operators').set({ disabled_at: at }).where('id', '=', id).where('disabled_at', 'is', null).returningAll().executeTakeFirst()
        if (disabled === undefined) return O.map(toOperator)(O.fromNullable(await trx.selectFrom('operators').selectAll().where('id', '=', id).executeTakeFirst()))
        const operator = toOperator(disabled)
        await insertAuditEvent(trx, audit(operator, await revokeLive(trx, id, at)))
        return O.some(operator)
      }),
    ),

  revokeSessions: (id, at, audit) =>
    query(() =>
      db.transaction().execute(async (trx) => {
        const revoked = await revokeLive(trx, id, at)
        await insertAuditEvent(trx, audit(revoked))
        return revoked
      }),
    ),

  openSession: (session, audit) =>
    query(() =>
      db.transaction().execute(async (trx) => {
        await trx
          .insertInto('operator_sessions')
          .values({
            id: session.id,
            operator_id: session.operatorId,
            token_hash: session.tokenHash,
            created_at: session.createdAt,
            expires_at: session.expiresAt,
            revoked_at: session.revokedAt,
          })
          .execute()
        await insertAuditEvent(trx, audit)
      }),
    ),

  liveSession: (tokenHash, at) =>
    query(async () => {
      const row = await db
        .selectFrom('operator_sessions as s')
        .innerJoin('operators as o', 'o.id', 's.operator_id')
        .select(['s.id', 's.operator_id', 's.created_at', 's.expires_at', 's.revoked_at', 'o.email', 'o.role', 'o.created_at as operator_created_at', 'o.disabled_at'])
        .where('s.token_hash', '=', tokenHash)
        .where('s.revoked_at', 'is', null)
        .where('s.expires_at', '>', at)
        .where('o.disabled_at', 'is', null)
        .executeTakeFirst()
      if (row === undefined) return O.none
      return O.some({
        session: toSession(row),
        operator: { id: row.operator_id, email: row.email, role: row.role, createdAt: row.operator_created_at, disabledAt: row.disabled_at },
      })
    }),

  revokeSession: (id, at) =>
    query(async () => {
      await db.updateTable('operator_sessions').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).execute()
    }),
})
