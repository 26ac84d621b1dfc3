import { spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { openDatabase, type OpenDatabase } from '@lendgate/adapters'
import { BOOK_BORROWER_CLIENT, bookRecords, dropBookBookkeeping, emptyDatabase, seedLargeBook, stopEmbeddedServerOf, testDatabases, type BookSizes } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { processEnv, startApiProcess, type ApiProcess } from './support/api-process.js'
import { loanPaths } from './support/booked-loan.js'
import { bearer, mintKey, request } from './support/client.js'

/**
 * `lendgate backup` and `lendgate restore` as an operator runs them (issue 54): the CLI backs up
 * the database beside the running API, restores the file into a fresh database (a fresh
 * `DATA_DIR` on the embedded server), and an API started there answers what the first answered.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const SIZES: BookSizes = { historyMonths: 1, paymentEveryDays: 9, longLedger: 5, subjectLoans: 2, parties: 1, loans: 1, bigParties: 0, loansPerBigParty: 0, openSessions: 1 }

/** `lendgate …` run as its own process (`pnpm lendgate` runs the same), with only PATH and `env` in its environment. */
const lendgate = (env: Record<string, string>, ...argv: string[]) => {
  const result = spawnSync(`${ROOT}node_modules/.bin/tsx`, ['--conditions=@lendgate/source', 'apps/cli/src/main.ts', ...argv], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', ...env },
    encoding: 'utf8',
  })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

/** Where a Lendgate database is, as the API and the CLI are told (`DATA_DIR` or `DATABASE_URL`), how to open it here, and how to remove it. */
type Place = { readonly env: Record<string, string>; readonly open: () => Promise<OpenDatabase>; readonly remove: () => Promise<void> }

const embeddedPlace = (): Place => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lendgate-backup-cli-'))
  return {
    env: { DATA_DIR: dataDir },
    open: () => openDatabase({ url: undefined, dataDir }),
    remove: async () => {
      await stopEmbeddedServerOf(dataDir)
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

const serverPlace = async (): Promise<Place> => {
  const empty = await emptyDatabase('postgres')
  await empty.database.close()
  return { env: { DATABASE_URL: empty.url }, open: () => openDatabase({ url: empty.url, dataDir: '' }), remove: empty.drop }
}

for (const database of testDatabases()) {
  describe(`lendgate backup and restore, as processes, on ${database.name}`, function () {
    this.timeout(120_000)
    const dir = mkdtempSync(join(tmpdir(), 'lendgate-backup-file-'))
    const places: Place[] = []
    const apis: ApiProcess[] = []
    const place = async (): Promise<Place> => {
      const made = database.kind === 'embedded' ? embeddedPlace() : await serverPlace()
      places.push(made)
      return made
    }
    const api = async (at: Place): Promise<ApiProcess> => {
      const started = await startApiProcess({ ...processEnv('http://127.0.0.1:9/unused'), ...at.env })
      apis.push(started)
      return started
    }

    after(async () => {
      for (const started of apis) await started.crash()
      for (const made of places) await made.remove()
      rmSync(dir, { recursive: true, force: true })
    })

    it('backs up beside the running API, restores into a fresh database, and an API there answers the same balance', async () => {
      const source = await place()
      const first = await api(source)
      // Seeded beside the API, on the database it made and migrated.
      const opened = await source.open()
      const { book, methodId } = await (async () => {
        try {
          const seeded = await seedLargeBook(opened, SIZES)
          await dropBookBookkeeping(opened)
          return { book: seeded, methodId: await (await bookRecords(opened, seeded)).paymentMethodId(seeded.seasonedLoanId) }
        } finally {
          await opened.close()
        }
      })()
      const paths = loanPaths(book.partyId, book.seasonedLoanId)
      const firstKey = await mintKey(first.url, { party_id: book.partyId, client_name: BOOK_BORROWER_CLIENT })
      const balance = await request(first.url, paths.latestBalance, { headers: bearer(firstKey.api_key) })
      expect(balance.status).to.equal(200)

      const file = join(dir, 'lendgate.jsonl.gz')
      const backup = lendgate(source.env, 'backup', '--out', file)
      expect(backup.status, backup.stderr).to.equal(0)
      const written = JSON.parse(backup.stdout) as { file: string; rows: number; tables: Record<string, number> }
      expect(written).to.deep.include({ file })
      expect(written.tables['loans']).to.be.greaterThan(0)

      const target = await place()
      const restore = lendgate(target.env, 'restore', '--from', file)
      expect(restore.status, restore.stderr).to.equal(0)
      expect(JSON.parse(restore.stdout)).to.deep.include({ file, rows: written.rows, tables: written.tables })
      const again = lendgate(target.env, 'restore', '--from', file)
      expect({ status: again.status, stdout: again.stdout }).to.deep.equal({ status: 1, stdout: '' })
      expect(JSON.parse(again.stderr)).to.deep.include({ error: 'database_not_empty' })

      const second = await api(target)
      const secondKey = await mintKey(second.url, { party_id: book.partyId, client_name: BOOK_BORROWER_CLIENT })
      const restored = await request(second.url, paths.latestBalance, { headers: bearer(secondKey.api_key) })
      expect({ status: restored.status, body: restored.body }).to.deep.equal({ status: 200, body: balance.body })
      // The ledger goes on from the restored one: a payment's balance is the latest, numbered after the restored ones.
      const paid = await request(second.url, paths.payments, {
        method: 'POST',
        headers: { ...bearer(secondKey.api_key), 'Idempotency-Key': randomUUID() },
        json: { amount: 1, currency: 'USD', payment_method_id: methodId },
      })
      expect(paid.status, paid.text).to.equal(201)
      const after = await request(second.url, paths.latestBalance, { headers: bearer(secondKey.api_key) })
      expect(after.body.balance_id).to.not.equal(balance.body.balance_id)
      expect(after.body.sequence).to.be.greaterThan(balance.body.sequence)
    })
  })
}

describe('lendgate backup and restore, as processes, when the database cannot be reached', function () {
  this.timeout(60_000)
  const dir = mkdtempSync(join(tmpdir(), 'lendgate-backup-unreachable-'))
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('answers backup_failed as JSON with exit status 1, no stack trace and no file', () => {
    const failed = lendgate({ DATABASE_URL: 'postgres://postgres@127.0.0.1:9/none' }, 'backup', '--out', join(dir, 'unreachable.jsonl'))
    expect(failed.status, failed.stderr).to.equal(1)
    expect(JSON.parse(failed.stderr)).to.deep.include({ error: 'backup_failed' })
    expect(failed.stderr).to.not.match(/\n\s+at /)
    expect(readdirSync(dir)).to.deep.equal([])
  })
})
