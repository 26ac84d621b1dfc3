import { invalidState, type ClientId, type TestData, type WipedTestData } from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import { sql, type ExpressionBuilder, type Kysely, type Transaction } from 'kysely'
import { insertAuditEvent } from './audit-log.js'
import type { Database } from './schema.js'
import { query } from './store-errors.js'
import { worldDb } from './worlds.js'

/** The rows a statement deleted. */
const deleted = (result: { readonly numDeletedRows: bigint }): number => Number(result.numDeletedRows)

/**
 * Deletes API client `clientId`'s records from the test world's tables (`TestData.wipe`), children
 * before parents. The sets are subqueries re-read by each statement: a set whose rows are gone
 * is read only after its dependents are deleted.
 */
const wipeClient = async (trx: Transaction<Database>, clientId: ClientId): Promise<WipedTestData | 'ach_file_in_progress'> => {
  const sessions = trx.selectFrom('onboarding_sessions').select('id').where('client_id', '=', clientId)
  const parties = trx.selectFrom('parties').select('id').where('client_id', '=', clientId)
  const applications = trx
    .selectFrom('loan_applications')
    .select('id')
    .where((eb) => eb.or([eb('client_id', '=', clientId), eb('party_id', 'in', parties)]))
  const loans = trx
    .selectFrom('loans')
    .select('id')
    .where((eb) => eb.or([eb('party_id', 'in', parties), eb('application_id', 'in', applications)]))

  // The loans first, under their locks (in id order, as the close takes them, so the two never
  // deadlock): a payment or a servicing step on one of them waits, then finds it gone.
  await trx.selectFrom('loans').select('id').where('id', 'in', loans).orderBy('id').forUpdate().execute()
  // A bank file still being made must keep the rows it is built from until it is written: refused, nothing deleted.
  const inProgress = await trx
    .selectFrom('ach_entries')
    .innerJoin('ach_files', 'ach_files.id', 'ach_entries.file_id')
    .select('ach_files.id')
    .where('ach_entries.payment_id', 'in', trx.selectFrom('payments').select('id').where('loan_id', 'in', loans))
    .where('ach_files.status', 'not in', ['written', 'empty'])
    .limit(1)
    .forShare('ach_files')
    .execute()
  if (inProgress.length > 0) return 'ach_file_in_progress'
  await trx.deleteFrom('event_endpoints').where('client_id', '=', clientId).execute()
  const ofTheClient = (eb: ExpressionBuilder<Database, 'events'>) =>
    eb.or([eb('party_id', 'in', parties), eb('loan_id', 'in', loans), eb('resource_id', 'in', applications.clearSelect().select(sql<string>`id::text`.as('id')))])
  // An event's deliveries go with it (the log is partitioned, so no foreign key cascades them).
  await trx.deleteFrom('event_deliveries').where('event_id', 'in', (eb) => eb.selectFrom('events').select('events.id').where(ofTheClient)).execute()
  const events = deleted(await trx.deleteFrom('events').where(ofTheClient).executeTakeFirst())
  await trx.deleteFrom('loan_balances').where('loan_id', 'in', loans).execute()
  await trx.deleteFrom('loan_transactions').where('loan_id', 'in', loans).execute()
  // A payment's place in a bank file, and the returns and notices of change that named it, go with
  // it; the files stay, holding other clients' entries too.
  const ofLoans = trx.selectFrom('payments').select('id').where('loan_id', 'in', loans)
  await trx.deleteFrom('ach_returns').where('payment_id', 'in', ofLoans).execute()
  await trx.deleteFrom('ach_notices').where('payment_method_id', 'in', trx.selectFrom('payment_methods').select('id').where('loan_id', 'in', loans)).execute()
  await trx.deleteFrom('ach_entries').where('payment_id', 'in', ofLoans).execute()
  const payments = deleted(await trx.deleteFrom('payments').where('loan_id', 'in', loans).executeTakeFirst())
  for (const table of ['payment_methods', 'collateral_items', 'loan_documents', 'loan_installments'] as const) {
    await trx.deleteFrom(table).where('loan_id', 'in', loans).execute()
  }
  // An application names its loan by a deferred key: its loan may go first.
  const loanCount = deleted(await trx.deleteFrom('loans').where('id', 'in', loans).executeTakeFirst())
  const loanApplications = deleted(await trx.deleteFrom('loan_applications').where('id', 'in', applications).executeTakeFirst())

  const testClocks = deleted(await trx.deleteFrom('test_clocks').where('party_id', 'in', parties).executeTakeFirst())
  await trx.deleteFrom('party_addresses').where('party_id', 'in', parties).execute()
  await trx
    .deleteFrom('audit_events')
    .where((eb) => eb.or([eb('api_client_id', '=', clientId), eb('party_id', 'in', parties)]))
    .execute()
  // A session and the party it made name each other: the session lets go of its party first.
  await trx.updateTable('onboarding_sessions').set({ party_id: null }).where('client_id', '=', clientId).where('party_id', 'is not', null).execute()
  const partyCount = deleted(await trx.deleteFrom('parties').where('client_id', '=', clientId).executeTakeFirst())

  const queued = trx.selectFrom('webhook_events').select('id').where('session_id', 'in', sessions)
  await trx.deleteFrom('webhook_attempts').where('event_id', 'in', queued).execute()
  const webhookEvents = deleted(await trx.deleteFrom('webhook_events').where('session_id', 'in', sessions).executeTakeFirst())
  for (const table of ['webhook_endpoints', 'verification_challenges', 'onboarding_addresses', 'documents'] as const) {
    await trx.deleteFrom(table).where('session_id', 'in', sessions).execute()
  }
  const onboardingSessions = deleted(await trx.deleteFrom('onboarding_sessions').where('client_id', '=', clientId).executeTakeFirst())
  await trx.deleteFrom('idempotency_keys').where('scope', '=', clientId).execute()
  return { onboardingSessions, parties: partyCount, loanApplications, loans: loanCount, payments, events, webhookEvents, testClocks }
}

/**
 * The test world's records of each API client (decision 132). It binds the test world's tables
 * itself (`worldDb(db, 'test')`): given the live world's `db`, as every caller has, it still
 * cannot delete a live row.
 */
export const postgresTestData = (db: Kysely<Database>): TestData => {
  const test = worldDb(db, 'test')
  return {
    wipe: (clientId, audited) =>
      pipe(
        query(() =>
          test.transaction().execute(async (trx) => {
            const wiped = await wipeClient(trx, clientId)
            if (wiped === 'ach_file_in_progress') return E.left(invalidState('test_data', wiped, 'wipe'))
            await insertAuditEvent(trx, audited(wiped))
            return E.right(wiped)
          }),
        ),
        TE.chainEitherKW((wiped) => wiped),
      ),
  }
}
