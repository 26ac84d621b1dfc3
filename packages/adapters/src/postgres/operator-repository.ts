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

/**
 * Revokes `operatorId`'s sessions live at `at`; how many. The caller holds the operator's row for
 * update, so a sign-in opening a session meanwhile (which holds it for share) commits first and
 * is revoked too, or comes after.
 */
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

/** The operator's row, held for update until the transaction ends; undefined for an unknown id. */
const lockedOperator = (trx: Transaction<Database>, id: Operator['id']) => trx.selectFrom('operators').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()

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
        const row = await lockedOperator(trx, id)
        if (row === undefined || row.disabled_at !== null) return O.map(toOperator)(O.fromNullable(row))
        const disabled = await trx.updateTable('operators').set({ disabled_at: at }).where('id', '=', id).returningAll().executeTakeFirstOrThrow()
        const operator = toOperator(disabled)
        await insertAuditEvent(trx, audit(operator, await revokeLive(trx, id, at)))
        return O.some(operator)
      }),
    ),

  change: (id, change, at, audit) =>
    query(() =>
      db.transaction().execute(async (trx) => {
        const row = await lockedOperator(trx, id)
        if (row === undefined) return O.none
        const before = toOperator(row)
        if ('passwordHash' in change) {
          await trx.updateTable('operators').set({ password_hash: change.passwordHash }).where('id', '=', id).execute()
          const sessionsRevoked = await revokeLive(trx, id, at)
          await insertAuditEvent(trx, audit(before, before, sessionsRevoked))
          return O.some({ operator: before, sessionsRevoked })
        }
        const after: Operator = 'role' in change ? { ...before, role: change.role } : { ...before, disabledAt: null }
        if (after.role !== before.role || after.disabledAt !== before.disabledAt) {
          await trx.updateTable('operators').set({ role: after.role, disabled_at: after.disabledAt }).where('id', '=', id).execute()
          await insertAuditEvent(trx, audit(before, after, 0))
        }
        return O.some({ operator: after, sessionsRevoked: 0 })
      }),
    ),

  revokeSessions: (id, at, audit) =>
    query(() =>
      db.transaction().execute(async (trx) => {
        await lockedOperator(trx, id)
        const revoked = await revokeLive(trx, id, at)
        await insertAuditEvent(trx, audit(revoked))
        return revoked
      }),
    ),

  openSession: (session, audit) =>
    query(() =>
      db.transaction().execute(async (trx) => {
        // Held for share: a disabling or a revocation waits for this session to be committed, then ends it.
        const enabled = await trx.selectFrom('operators').select('id').where('id', '=', session.operatorId).where('disabled_at', 'is', null).forShare().executeTakeFirst()
        if (enabled === undefined) return false
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
        return true
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

  revokeSession: (id, at, audit) =>
    query(() =>
      db.transaction().execute(async (trx) => {
        const revoked = await trx.updateTable('operator_sessions').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst()
        if (Number(revoked.numUpdatedRows) > 0) await insertAuditEvent(trx, audit)
      }),
    ),
})
