import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'chai'
import { sql } from 'kysely'
import { openDatabase, parseInt8, type OpenDatabase } from '../src/postgres/database.js'
import { MIGRATION_NAMES, migrateToLatest } from '../src/postgres/migrate.js'
import { testDatabases } from '../src/testing/test-databases.js'
import { testId } from '@lendgate/core/testing'

/** The error a promise rejects with, or undefined when it resolves. */
const rejectionOf = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise
    return undefined
  } catch (error) {
    return error
  }
}

describe('parseInt8', () => {
  it('parses int8 text within the safe-integer range to a number', () => {
    expect(['0', '-42', '9007199254740991', '-9007199254740991'].map(parseInt8)).to.deep.equal([0, -42, 9007199254740991, -9007199254740991])
  })

  it('refuses values outside the safe-integer range instead of rounding them', () => {
    for (const text of ['9007199254740992', '9007199254740993', '-9007199254740993', '9223372036854775807']) {
      expect(() => parseInt8(text), text).to.throw(RangeError, `int8 value out of the safe integer range: ${text}`)
    }
  })
})

// The shared databases are closed by the root hook after the run, never here.
for (const database of testDatabases()) {
  describe(`database on ${database.name}`, () => {
    describe('int8', () => {
      it('comes back as a JavaScript number, for literals and for count(*)', async () => {
        const { db } = await database.open()
        const { rows } = await sql<{ a: number; n: number }>`select 9007199254740991::int8 as a, count(*) as n from api_keys`.execute(db)
        expect(typeof rows[0]!.a).to.equal('number')
        expect(typeof rows[0]!.n).to.equal('number')
        expect(rows[0]!.a).to.equal(9007199254740991)
      })

      it('makes the query reject when a value is beyond the safe range', async () => {
        const { db } = await database.open()
        for (const query of [sql`select 9007199254740993::int8 as a`, sql`select (-9007199254740993)::int8 as a`]) {
          const error = await rejectionOf(query.execute(db))
          expect(error).to.be.instanceOf(RangeError)
        }
      })

      it('keeps answering queries after refusing a value', async () => {
        const { db } = await database.open()
        await rejectionOf(sql`select 9007199254740993::int8 as a`.execute(db))
        const { rows } = await sql<{ a: number }>`select 7::int8 as a`.execute(db)
        expect(rows).to.deep.equal([{ a: 7 }])
      })
    })

    it('migrateToLatest on an already migrated database applies nothing', async () => {
      const { db } = await database.open()
      expect(await migrateToLatest(db)).to.deep.equal([])
    })

    it('round-trips timestamptz with milliseconds', async () => {
      const { db } = await database.open()
      const at = new Date('2026-01-02T03:04:05.678Z')
      const { rows } = await sql<{ t: Date }>`select ${at}::timestamptz as t`.execute(db)
      expect(rows).to.deep.equal([{ t: at }])
    })
  })
}

describe('openDatabase', () => {
  it('rejects a URL that is neither PostgreSQL nor pglite://memory, naming DATABASE_URL', async () => {
    const error = await rejectionOf(openDatabase({ url: 'mysql://x', dataDir: '' }))
    expect(error).to.be.instanceOf(Error)
    expect((error as Error).message).to.contain('DATABASE_URL')
  })

  describe('without a URL', () => {
    let dataDir = ''
    let open: OpenDatabase | undefined

    before(() => {
      dataDir = mkdtempSync(join(tmpdir(), 'lendgate-database-test-'))
    })

    after(async () => {
      if (open !== undefined) await open.close()
      rmSync(dataDir, { recursive: true, force: true })
    })

    it('stores an embedded database under DATA_DIR/pgdata that keeps its data across close and reopen', async function () {
      this.timeout(60_000)
      const id = testId('5b0c0f8e-2d7a-4c51-9a0e-3f1d2c4b6a79')
      const createdAt = new Date('2026-03-04T05:06:07.089Z')

      open = await openDatabase({ url: undefined, dataDir })
      expect(open.kind).to.equal('embedded')
      expect(existsSync(join(dataDir, 'pgdata'))).to.equal(true)
      expect(await migrateToLatest(open.db)).to.deep.equal(MIGRATION_NAMES)
      await open.db.insertInto('api_clients').values({ id, party_id: id, name: 'on disk', created_at: createdAt }).execute()
      await open.close()
      open = undefined

      open = await openDatabase({ url: undefined, dataDir })
      expect(await migrateToLatest(open.db)).to.deep.equal([])
      const rows = await open.db.selectFrom('api_clients').selectAll().where('id', '=', id).execute()
      expect(rows).to.deep.equal([{ id, party_id: id, name: 'on disk', created_at: createdAt }])
      await open.close()
      open = undefined
    })

    /** Every entry under `path` whose mode lets group or others in, with its mode. */
    const reachableByOthers = (path: string): string[] =>
      readdirSync(path, { recursive: true, withFileTypes: true })
        .map((entry) => join(entry.parentPath, entry.name))
        .filter((full) => (statSync(full).mode & 0o077) !== 0)
        .map((full) => `${full} ${(statSync(full).mode & 0o777).toString(8)}`)

    it('keeps the data directory and every file under it owner-only, whatever the umask (issue 35)', async function () {
      this.timeout(60_000)
      const fresh = join(dataDir, 'fresh', 'nested')
      const previous = process.umask(0o022)
      try {
        open = await openDatabase({ url: undefined, dataDir: fresh })
        expect(statSync(fresh).mode & 0o777).to.equal(0o700)
        expect(reachableByOthers(fresh)).to.deep.equal([])
        // Tables created after the open (the migrations) are tightened when it closes.
        await migrateToLatest(open.db)
        await open.close()
        open = undefined
        expect(reachableByOthers(fresh)).to.deep.equal([])
      } finally {
        process.umask(previous)
      }
    })

    it('refuses to open a data directory that group or others can reach, naming the fix', async () => {
      for (const mode of [0o755, 0o750, 0o701, 0o707]) {
        const shared = join(dataDir, `shared-${mode.toString(8)}`)
        mkdirSync(shared)
        chmodSync(shared, mode)
        const error = await rejectionOf(openDatabase({ url: undefined, dataDir: shared }))
        expect((error as Error).message, mode.toString(8)).to.equal(
          `The data directory ${shared} can be reached by group or others (mode 0${mode.toString(8)}): the embedded database holds applicant data and key hashes. Run: chmod 700 ${shared}`,
        )
        expect(existsSync(join(shared, 'pgdata')), mode.toString(8)).to.equal(false)
      }
    })
  })
})
