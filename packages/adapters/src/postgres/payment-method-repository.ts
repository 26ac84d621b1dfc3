import type { PaymentMethod, PaymentMethodRepository } from '@lendgate/core'
import * as O from 'fp-ts/lib/Option.js'
import type { Kysely, Selectable, Transaction } from 'kysely'
import { insertAuditEvent } from './audit-log.js'
import { pageOfPartyLoan } from './of-party-loan.js'
import type { Database } from './schema.js'
import type { PaymentMethodsTable } from './lending-tables.js'
import { query } from './store-errors.js'

const toMethod = (row: Selectable<PaymentMethodsTable>): PaymentMethod => ({
  id: row.id,
  loanId: row.loan_id,
  type: row.type,
  nickname: row.nickname,
  isDefault: row.is_default,
  status: row.status,
  token: row.token,
  last4: row.last4,
  accountHolderName: row.account_holder_name,
  accountType: row.account_type,
  brand: row.brand,
  expMonth: row.exp_month,
  expYear: row.exp_year,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

const columns = (m: PaymentMethod) => ({
  type: m.type,
  nickname: m.nickname,
  is_default: m.isDefault,
  status: m.status,
  token: m.token,
  last4: m.last4,
  account_holder_name: m.accountHolderName,
  account_type: m.accountType,
  brand: m.brand,
  exp_month: m.expMonth,
  exp_year: m.expYear,
  updated_at: m.updatedAt,
})

/**
 * Writes under the loan's row lock, so two requests making different methods the default
 * take turns instead of colliding on the one-default index.
 */
const underLoanLock = (db: Kysely<Database>, method: PaymentMethod, write: (trx: Transaction<Database>) => Promise<unknown>) =>
  query(() =>
    db.transaction().execute(async (trx) => {
      await trx.selectFrom('loans').select('id').where('id', '=', method.loanId).forUpdate().execute()
      if (method.isDefault) {
        await trx
          .updateTable('payment_methods')
          .set({ is_default: false, updated_at: method.updatedAt })
          .where('loan_id', '=', method.loanId)
          .where('id', '!=', method.id)
          .where('is_default', '=', true)
          .execute()
      }
      await write(trx)
    }),
  )

export const postgresPaymentMethodRepository = (db: Kysely<Database>): PaymentMethodRepository => {
  return {
    insert: (m, sealedAccount) =>
      underLoanLock(db, m, async (trx) => {
        await trx.insertInto('payment_methods').values({ id: m.id, loan_id: m.loanId, created_at: m.createdAt, ...columns(m) }).execute()
        if (sealedAccount !== null) await trx.insertInto('bank_account_secrets').values({ payment_method_id: m.id, sealed: sealedAccount, created_at: m.createdAt }).execute()
      }),
    sealedAccount: (id) =>
      query(async () => {
        const row = await db
          .selectFrom('bank_account_secrets as s')
          .innerJoin('payment_methods as m', 'm.id', 's.payment_method_id')
          .select('s.sealed')
          .where('s.payment_method_id', '=', id)
          .where('m.status', '=', 'active')
          .executeTakeFirst()
        return row === undefined ? O.none : O.some(row.sealed)
      }),
    // Nickname and default flag only: a method blocked meanwhile stays blocked.
    update: (m) =>
      underLoanLock(db, m, (trx) =>
        trx.updateTable('payment_methods').set({ nickname: m.nickname, is_default: m.isDefault, updated_at: m.updatedAt }).where('id', '=', m.id).where('loan_id', '=', m.loanId).execute(),
      ),
    correct: (m, sealedAccount, audit, before) =>
      query(() =>
        db.transaction().execute(async (trx) => {
          const row = await trx.selectFrom('payment_methods').select(['last4', 'account_type']).where('id', '=', m.id).forUpdate().executeTakeFirst()
          const secret = await trx.selectFrom('bank_account_secrets').select('sealed').where('payment_method_id', '=', m.id).executeTakeFirst()
          if (row === undefined || row.last4 !== before.last4 || row.account_type !== before.accountType || (secret?.sealed ?? null) !== before.sealed) return false
          await trx.updateTable('payment_methods').set({ last4: m.last4, account_type: m.accountType, updated_at: m.updatedAt }).where('id', '=', m.id).execute()
          if (sealedAccount !== null) {
            await trx
              .insertInto('bank_account_secrets')
              .values({ payment_method_id: m.id, sealed: sealedAccount, created_at: m.updatedAt })
              .onConflict((oc) => oc.column('payment_method_id').doUpdateSet({ sealed: sealedAccount }))
              .execute()
          }
          await insertAuditEvent(trx, audit)
          return true
        }),
      ),
    block: (id, at) =>
      query(async () => {
        await db.updateTable('payment_methods').set({ status: 'blocked', updated_at: at }).where('id', '=', id).where('status', '=', 'active').execute()
      }),
    defaultForLoan: (loanId) =>
      query(async () => {
        const row = await db.selectFrom('payment_methods').selectAll().where('loan_id', '=', loanId).where('is_default', '=', true).executeTakeFirst()
        return row === undefined ? O.none : O.some(toMethod(row))
      }),
    findForLoan: (loanId, id) =>
      query(async () => {
        const row = await db.selectFrom('payment_methods').selectAll().where('id', '=', id).where('loan_id', '=', loanId).executeTakeFirst()
        return row === undefined ? O.none : O.some(toMethod(row))
      }),
    listForPartyLoan: (partyId, loanId, page) => query(() => pageOfPartyLoan(db, partyId, loanId, 'payment_methods', page, toMethod)),
    countForLoan: (loanId) =>
      query(async () => {
        const row = await db.selectFrom('payment_methods').select((eb) => eb.fn.countAll<string>().as('n')).where('loan_id', '=', loanId).executeTakeFirstOrThrow()
        return Number(row.n)
      }),
  }
}
