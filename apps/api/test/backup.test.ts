import { randomUUID } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import { appliedMigrations, backupTables, backupToFile, MIGRATION_NAMES, migrateToLatest, openDatabase, restoreFromFile, type OpenDatabase, type RestoreRefusal } from '@lendgate/adapters'
import {
  BOOK_BORROWER_CLIENT,
  bookRecords,
  dropBookBookkeeping,
  emptyDatabase,
  everyRow,
  everySequence,
  inExportedSnapshot,
  onDatabase,
  scratchDatabase,
  seedLargeBook,
  testDatabases,
  type BookSizes,
  type BookSubject,
  type ScratchDatabase,
} from '@lendgate/adapters/testing'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { loanPaths } from './support/booked-loan.js'
import { bearer, mintKey, request } from './support/client.js'
import { startTestServer, type TestServer } from './support/test-server.js'

/**
 * `lendgate backup` and `lendgate restore` (issue 54, decision 114): a backup taken while the API
 * takes payments restores to exactly the snapshot it read, row for row; a restore refuses a
 * database that holds rows and a file that is not a whole backup this build reads, changing
 * nothing.
 */

/** Rows of `query`, each as the `::text` its columns cast to, on the database at `url`. */
const textRows = async (url: string, query: string): Promise<unknown[]> => (await onDatabase(url, (client) => client.query(query))).rows

const SIZES: BookSizes = { historyMonths: 1, paymentEveryDays: 9, longLedger: 20, subjectLoans: 4, parties: 3, loans: 4, bigParties: 1, loansPerBigParty: 2, openSessions: 2 }

/** The refusal a restore answered (failing the test when it restored). */
const refusalOf = async (db: OpenDatabase['db'], file: string): Promise<RestoreRefusal['_tag']> => {
  const outcome = await restoreFromFile(db, file)()
  if (E.isRight(outcome)) expect.fail(`restored ${file}`)
  return outcome.left._tag
}

for (const database of testDatabases()) {
  describe(`backup and restore on ${database.name}`, function () {
    this.timeout(120_000)
    const dir = mkdtempSync(join(tmpdir(), 'lendgate-backup-test-'))
    let source: ScratchDatabase
    let book: BookSubject
    let server: TestServer

    before(async () => {
      source = await scratchDatabase(database.kind)
      book = await seedLargeBook(source.database, SIZES)
      await dropBookBookkeeping(source.database)
      server = await startTestServer({ name: database.name, kind: database.kind, open: async () => source.database })
    })

    after(async () => {
      await server?.stop()
      await source?.drop()
      rmSync(dir, { recursive: true, force: true })
    })

    it('restores exactly the snapshot the backup read while the API took payments, every row of every table', async () => {
      const borrower = await mintKey(server.url, { party_id: book.partyId, client_name: BOOK_BORROWER_CLIENT })
      const records = await bookRecords(source.database, book)
      const loans = await Promise.all([book.seasonedLoanId, book.longLedgerLoanId].map(async (loanId) => ({ loanId, methodId: await records.paymentMethodId(loanId) })))
      let paying = true
      let paid = 0
      const payer = async (n: number): Promise<void> => {
        for (let i = n; paying; i++) {
          const loan = loans[i % loans.length]!
          const reply = await request(server.url, loanPaths(book.partyId, loan.loanId).payments, {
            method: 'POST',
            headers: { ...bearer(borrower.api_key), 'Idempotency-Key': randomUUID() },
            json: { amount: 1, currency: 'USD', payment_method_id: loan.methodId },
          })
          expect(reply.status, reply.text).to.equal(201)
          paid++
        }
      }
      const payers = [0, 1, 2].map(payer)
      while (paid < 5) await new Promise((resolve) => setTimeout(resolve, 10))

      const file = join(dir, 'under-load.jsonl.gz')
      let paidAtSnapshot = 0
      const { result: written, rows: seen } = await inExportedSnapshot(source.database, (snapshot) => {
        paidAtSnapshot = paid
        return source.database.withSession((db) => backupToFile(db, file, { snapshot }))
      })
      expect(paid, 'payments made while the backup ran').to.be.greaterThan(paidAtSnapshot)
      paying = false
      await Promise.all(payers)

      expect(statSync(file).mode & 0o777).to.equal(0o600)
      expect(written.tables).to.deep.equal(Object.fromEntries(Object.entries(seen).map(([table, rows]) => [table, rows.length])))
      expect((await everyRow(source.database.db))['payments']!.length, 'payments after the backup').to.be.greaterThan(seen['payments']!.length)

      const target = await emptyDatabase(database.kind)
      try {
        const restored = await restoreFromFile(target.database.db, file)()
        expect(E.isRight(restored) && restored.right.tables).to.deep.equal(written.tables)
        expect(await appliedMigrations(target.database.db)).to.deep.equal(MIGRATION_NAMES)
        expect(await everyRow(target.database.db)).to.deep.equal(seen)
      } finally {
        await target.drop()
      }
    })

    it('leaves out, and names, a table of the backup that no migration creates', async () => {
      const file = join(dir, 'with-own-table.jsonl')
      await source.database.withSession((db) => backupToFile(db, file))
      const [head, ...rest] = readFileSync(file, 'utf8').trimEnd().split('\n')
      const header = JSON.parse(head!) as { tables: unknown[] }
      const end = JSON.parse(rest.pop()!) as ['end', { rows: Record<string, number> }]
      const own = [
        JSON.stringify({ ...header, tables: [...header.tables, { name: 'operator_notes', columns: ['id', 'note'], primaryKey: ['id'] }] }),
        ...rest,
        '["table","operator_notes"]',
        '{"id":1,"note":"kept by the operator"}',
        JSON.stringify(['end', { rows: { ...end[1].rows, operator_notes: 1 } }]),
      ]
      writeFileSync(file, `${own.join('\n')}\n`)
      const target = await emptyDatabase(database.kind)
      try {
        const restored = await restoreFromFile(target.database.db, file)()
        expect(E.isRight(restored) && { skipped: restored.right.skipped, notes: restored.right.tables['operator_notes'] }).to.deep.equal({ skipped: ['operator_notes'], notes: 1 })
        expect(await everyRow(target.database.db)).to.deep.equal(await everyRow(source.database.db))
      } finally {
        await target.drop()
      }
    })

    it('backs up and restores a database whose tables live in a schema named after its role', async () => {
      const owned = await emptyDatabase(database.kind)
      const target = await emptyDatabase(database.kind)
      try {
        await onDatabase(owned.url, (client) => client.query('create schema authorization current_user'))
        await migrateToLatest(owned.database.db)
        await seedLargeBook(owned.database, SIZES)
        await dropBookBookkeeping(owned.database)
        const placed = await onDatabase(owned.url, (client) => client.query<{ schema: string; role: string }>("select schemaname::text as schema, current_user::text as role from pg_tables where tablename = 'loans'"))
        // The live world's tables, in the role's schema; the test world's are in their own (decision 128).
        expect(placed.rows.map((r) => r.schema).sort()).to.deep.equal([placed.rows[0]?.role, 'lendgate_test'].sort())
        const file = join(dir, 'role-schema.jsonl')
        const written = await owned.database.withSession((db) => backupToFile(db, file))
        expect(written.tables['loans'], 'loans backed up').to.be.greaterThan(0)
        const restored = await restoreFromFile(target.database.db, file)()
        expect(E.isRight(restored) && restored.right.tables).to.deep.equal(written.tables)
        expect(await everyRow(target.database.db)).to.deep.equal(await everyRow(owned.database.db))
        const sequences = await everySequence(owned.database.db)
        expect(sequences.filter((s) => s.value !== null), 'sequences that gave a value').to.not.be.empty
        expect(await everySequence(target.database.db)).to.deep.equal(sequences)
      } finally {
        await owned.drop()
        await target.drop()
      }
    })

    it('refuses to back up a schema that holds no migrations, and a backup that lacks a table its migrations create', async () => {
      const bare = await emptyDatabase(database.kind)
      const target = await emptyDatabase(database.kind)
      try {
        let failure: unknown
        await bare.database.withSession((db) => backupToFile(db, join(dir, 'bare.jsonl'))).catch((error: unknown) => (failure = error))
        expect(String(failure)).to.match(/holds no kysely_migration/)
        const file = join(dir, 'lacking.jsonl')
        await source.database.withSession((db) => backupToFile(db, file))
        const [head, ...rest] = readFileSync(file, 'utf8').trimEnd().split('\n')
        const header = JSON.parse(head!) as { tables: { name: string }[] }
        const cut = rest.findIndex((l) => l === '["table","loans"]')
        const next = rest.findIndex((l, i) => i > cut && l.startsWith('["'))
        const end = JSON.parse(rest.at(-1)!) as ['end', { rows: Record<string, number> }]
        const { loans: _loans, ...rows } = end[1].rows
        const lacking = [JSON.stringify({ ...header, tables: header.tables.filter((t) => t.name !== 'loans') }), ...rest.slice(0, cut), ...rest.slice(next, -1), JSON.stringify(['end', { rows }])]
        writeFileSync(file, `${lacking.join('\n')}\n`)
        expect(await refusalOf(target.database.db, file)).to.equal('BackupDoesNotLoad')
        expect(await appliedMigrations(target.database.db)).to.deep.equal([])
      } finally {
        await bare.drop()
        await target.drop()
      }
    })

    it('restores an int8 above 2^53 and the extreme timestamps exactly', async () => {
      const extremes = await emptyDatabase(database.kind)
      const target = await emptyDatabase(database.kind)
      const columns = `select id::text, min_amount::text, max_amount::text, created_at::text, updated_at::text from loan_products order by id`
      try {
        await migrateToLatest(extremes.database.db)
        await onDatabase(extremes.url, (client) =>
          client.query(`insert into loan_products (id, name, currency, min_amount, max_amount, min_term_months, max_term_months, interest_rate_bps, origination_fee_bps, repayment_frequency, active, created_at, updated_at)
            values ('${randomUUID()}', 'extremes', 'USD', 9007199254740993, 9223372036854775807, 1, 360, 0, 0, 'MONTHLY', true, '0001-01-01 00:00:00+00', '9999-12-31 23:59:59.999999+00')`),
        )
        const file = join(dir, 'extremes.jsonl')
        await extremes.database.withSession((db) => backupToFile(db, file))
        expect(E.isRight(await restoreFromFile(target.database.db, file)())).to.equal(true)
        const restored = await textRows(target.url, columns)
        expect(restored).to.deep.equal(await textRows(extremes.url, columns))
        expect(restored.filter((r) => (r as { min_amount: string }).min_amount === '9007199254740993')).to.have.length(1)
        expect(await everyRow(target.database.db)).to.deep.equal(await everyRow(extremes.database.db))
      } finally {
        await extremes.drop()
        await target.drop()
      }
    })

    it('leaves no partial file behind a backup that fails', async () => {
      const folder = join(dir, 'failing')
      mkdirSync(folder)
      for (const snapshot of ['not a snapshot', '00000003-0000001B-1']) {
        let failure: unknown
        await source.database.withSession((db) => backupToFile(db, join(folder, 'failed.jsonl.gz'), { snapshot })).catch((error: unknown) => (failure = error))
        expect(failure, snapshot).to.be.instanceOf(Error)
      }
      expect(readdirSync(folder)).to.deep.equal([])
    })

    it('answers RestoreFailed, without a statement\'s parameters, when the database cannot be reached', async () => {
      const file = join(dir, 'unreachable.jsonl')
      await source.database.withSession((db) => backupToFile(db, file))
      const unreachable = await openDatabase({ url: 'postgres://postgres@127.0.0.1:9/none', dataDir: '' })
      try {
        const outcome = await restoreFromFile(unreachable.db, file)()
        expect(E.isLeft(outcome) && outcome.left._tag).to.equal('RestoreFailed')
      } finally {
        await unreachable.close()
      }
    })

    describe('refusals, each changing nothing', () => {
      let target: Awaited<ReturnType<typeof emptyDatabase>>
      let file: string
      let lines: string[]

      before(async () => {
        target = await emptyDatabase(database.kind)
        file = join(dir, 'quiescent.jsonl')
        await source.database.withSession((db) => backupToFile(db, file))
        lines = readFileSync(file, 'utf8').trimEnd().split('\n')
      })

      after(async () => {
        await target?.drop()
      })

      /** The target has no table at all: nothing was migrated, nothing loaded. */
      const expectUntouched = async () => {
        expect(await appliedMigrations(target.database.db)).to.deep.equal([])
        expect(await backupTables(target.database.db)).to.deep.equal([])
      }

      const written = (name: string, text: string | Uint8Array): string => {
        const path = join(dir, name)
        writeFileSync(path, text)
        return path
      }

      it('refuses a database that holds rows, and its rows stay as they were', async () => {
        const before = await everyRow(source.database.db)
        expect(await refusalOf(source.database.db, file)).to.equal('DatabaseNotEmpty')
        expect(await everyRow(source.database.db)).to.deep.equal(before)
      })

      it('refuses a file cut short: without its end line, mid-row, and a gzip stream cut short', async () => {
        expect(await refusalOf(target.database.db, written('no-end.jsonl', `${lines.slice(0, -1).join('\n')}\n`))).to.equal('BackupIncomplete')
        const whole = lines.join('\n')
        expect(await refusalOf(target.database.db, written('mid-row.jsonl', whole.slice(0, Math.floor(whole.length * 0.6))))).to.equal('BackupIncomplete')
        const gzipped = gzipSync(`${whole}\n`)
        expect(gunzipSync(gzipped).toString()).to.equal(`${whole}\n`)
        expect(await refusalOf(target.database.db, written('cut.jsonl.gz', gzipped.subarray(0, gzipped.length - 40)))).to.equal('BackupIncomplete')
        await expectUntouched()
      })

      it('refuses a file whose rows are not those its end line counts', async () => {
        const row = lines.findIndex((l, i) => i > 0 && l.startsWith('{'))
        const fewer = lines.filter((_, i) => i !== row)
        expect(await refusalOf(target.database.db, written('row-lost.jsonl', `${fewer.join('\n')}\n`))).to.equal('BackupIncomplete')
        await expectUntouched()
      })

      it('refuses a database with migrations the backup predates', async () => {
        const migrated = await emptyDatabase(database.kind)
        try {
          await migrateToLatest(migrated.database.db)
          const header = JSON.parse(lines[0]!) as { migrations: string[] }
          const older = [JSON.stringify({ ...header, migrations: header.migrations.slice(0, -1) }), ...lines.slice(1)]
          const outcome = await restoreFromFile(migrated.database.db, written('older.jsonl', `${older.join('\n')}\n`))()
          expect(E.isLeft(outcome) && outcome.left).to.deep.include({ _tag: 'DatabaseNotEmpty', tables: [] })
          expect(E.isLeft(outcome) && outcome.left.detail).to.include(`the database has migrations the backup predates (${MIGRATION_NAMES.at(-1)!})`)
          expect(await appliedMigrations(migrated.database.db)).to.deep.equal(MIGRATION_NAMES)
        } finally {
          await migrated.drop()
        }
      })

      it('refuses a backup made by a newer build, naming its migration', async () => {
        const header = JSON.parse(lines[0]!) as { migrations: string[] }
        const newer = [JSON.stringify({ ...header, migrations: [...header.migrations, '9999-from-the-future'] }), ...lines.slice(1)]
        const outcome = await restoreFromFile(target.database.db, written('newer.jsonl', `${newer.join('\n')}\n`))()
        expect(outcome).to.deep.equal(
          E.left({ _tag: 'BackupFromNewerBuild', detail: 'the backup was made by a newer build: this build does not have the migrations 9999-from-the-future', migrations: ['9999-from-the-future'] }),
        )
        await expectUntouched()
      })

      it('refuses a file that is no backup, and one that is not there', async () => {
        expect(await refusalOf(target.database.db, written('other.json', '{"name":"lendgate"}\n'))).to.equal('NotLendgateBackup')
        expect(await refusalOf(target.database.db, written('empty.jsonl', ''))).to.equal('NotLendgateBackup')
        expect(await refusalOf(target.database.db, join(dir, 'missing.jsonl'))).to.equal('BackupUnreadable')
        await expectUntouched()
      })
    })
  })
}
