import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { expect } from 'chai'
import { sql } from 'kysely'
import { openDatabase, parseInt8, type OpenDatabase } from '../src/postgres/database.js'
import { RELOCATED_CLUSTERS } from '../src/postgres/embedded-cluster.js'
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
  it('rejects a URL that is not PostgreSQL, naming DATABASE_URL', async () => {
    const error = await rejectionOf(openDatabase({ url: 'mysql://x', dataDir: '' }))
    expect(error).to.be.instanceOf(Error)
    expect((error as Error).message).to.contain('DATABASE_URL')
  })

  describe('without a URL', () => {
    let dataDir = ''
    let open: OpenDatabase | undefined

    before(() => {
      // Open to others to pass through, as a home directory is: the data directories are inside.
      dataDir = mkdtempSync(join(tmpdir(), 'lendgate-database-test-'))
      chmodSync(dataDir, 0o755)
    })

    after(async () => {
      if (open !== undefined) await open.close()
      rmSync(dataDir, { recursive: true, force: true })
    })

    it('stores an embedded database under DATA_DIR/pgdata that keeps its data across close and reopen', async function () {
      this.timeout(60_000)
      const id = testId('5b0c0f8e-2d7a-4c51-9a0e-3f1d2c4b6a79')
      const createdAt = new Date('2026-03-04T05:06:07.089Z')

      const kept = join(dataDir, 'kept')
      open = await openDatabase({ url: undefined, dataDir: kept })
      expect([open.kind, open.description]).to.deep.equal(['embedded', `embedded PostgreSQL at ${join(kept, 'pgdata')} (started by this process)`])
      expect(existsSync(join(kept, 'pgdata', 'PG_VERSION'))).to.equal(true)
      // The service's role owns its database and is no superuser: no server file or program is within its reach.
      const { rows: role } = await sql<{ name: string; superuser: boolean }>`select current_user as name, rolsuper as superuser from pg_roles where rolname = current_user`.execute(open.db)
      expect(role).to.deep.equal([{ name: 'lendgate', superuser: false }])
      const refused = await rejectionOf(sql`copy (select 1) to program 'true'`.execute(open.db))
      expect((refused as { code?: string }).code).to.equal('42501') // insufficient_privilege
      expect(await migrateToLatest(open.db)).to.deep.equal(MIGRATION_NAMES)
      await open.db.insertInto('api_clients').values({ id, party_id: id, name: 'on disk', created_at: createdAt }).execute()
      await open.close()
      open = undefined

      open = await openDatabase({ url: undefined, dataDir: kept })
      expect(await migrateToLatest(open.db)).to.deep.equal([])
      const rows = await open.db.selectFrom('api_clients').selectAll().where('id', '=', id).execute()
      expect(rows).to.deep.equal([{ id, party_id: id, name: 'on disk', created_at: createdAt }])
      await open.close()
      open = undefined
    })

    /** Every directory and file under `path` whose mode lets group or others in, with its mode (the server's socket is guarded by its directory). */
    const reachableByOthers = (path: string): string[] =>
      readdirSync(path, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isDirectory() || entry.isFile())
        .map((entry) => join(entry.parentPath, entry.name))
        .filter((full) => (statSync(full).mode & 0o077) !== 0)
        .map((full) => `${full} ${(statSync(full).mode & 0o777).toString(8)}`)

    it('keeps the data directory and everything under it owner-only, whatever the umask (issue 35)', async function () {
      this.timeout(60_000)
      const fresh = join(dataDir, 'fresh', 'nested')
      const previous = process.umask(0o022)
      try {
        // Made by hand, as the server's user must pass through it when Lendgate runs as root.
        mkdirSync(join(dataDir, 'fresh'), { mode: 0o755 })
        open = await openDatabase({ url: undefined, dataDir: fresh })
        await migrateToLatest(open.db)
        // As root, the server runs as another user, whose group may pass through (0710), no more.
        const { mode, gid } = statSync(fresh)
        if (process.getuid?.() === 0) expect([mode & 0o777, gid]).to.deep.equal([0o710, statSync(join(fresh, 'pgdata')).gid])
        else expect(mode & 0o777).to.equal(0o700)
        expect(reachableByOthers(fresh)).to.deep.equal([])
        await open.close()
        open = undefined
        expect(reachableByOthers(fresh)).to.deep.equal([])
      } finally {
        process.umask(previous)
      }
    })

    if (process.getuid?.() === 0) {
      it('as root, keeps the cluster of a data directory the server\'s user cannot reach where it can, linked from the data directory and named', async function () {
        this.timeout(60_000)
        const closed = mkdtempSync(join(dataDir, 'closed-'))
        chmodSync(closed, 0o700)
        // Missing parents are made too, owner-only: the cluster goes elsewhere all the same.
        const inside = join(closed, 'home', 'data')
        open = await openDatabase({ url: undefined, dataDir: inside })
        const cluster = readlinkSync(join(inside, 'pgdata'))
        expect(cluster.startsWith(`${RELOCATED_CLUSTERS}/`), cluster).to.equal(true)
        expect(open.description).to.equal(
          `embedded PostgreSQL at ${cluster} (started by this process; its cluster is kept at ${cluster}, linked from ${join(inside, 'pgdata')}: the server's user cannot pass through ${join(closed, 'home')})`,
        )
        expect(statSync(inside).mode & 0o777).to.equal(0o700)
        await migrateToLatest(open.db)
        await open.close()
        open = undefined
        // Opened again, it follows the link to the same cluster, whose data it keeps.
        open = await openDatabase({ url: undefined, dataDir: inside })
        expect(await migrateToLatest(open.db)).to.deep.equal([])
        expect(open.description).to.contain(`at ${cluster} (started by this process; its cluster is kept at ${cluster}`)
        await open.close()
        open = undefined
        expect(existsSync(join(cluster, 'postmaster.pid'))).to.equal(false)
        // Its folder removed by hand, the link leads to a fresh cluster made in the same place.
        rmSync(dirname(cluster), { recursive: true, force: true })
        open = await openDatabase({ url: undefined, dataDir: inside })
        expect(await migrateToLatest(open.db)).to.deep.equal(MIGRATION_NAMES)
        await open.close()
        open = undefined
        rmSync(dirname(cluster), { recursive: true, force: true })
      })
    }

    it('shares one server between two opens of a fresh data directory at once, initialised once', async function () {
      this.timeout(60_000)
      const both = join(dataDir, 'both')
      const [a, b] = await Promise.all([openDatabase({ url: undefined, dataDir: both }), openDatabase({ url: undefined, dataDir: both })])
      try {
        expect([a.description, b.description].filter((d) => d.endsWith('(started by this process)'))).to.have.length(1)
        const serverOf = async (db: OpenDatabase) => (await sql<{ server: string }>`select pg_postmaster_start_time()::text as server`.execute(db.db)).rows[0]!.server
        expect(await serverOf(a)).to.equal(await serverOf(b))
        expect(readdirSync(both)).to.deep.equal(['pgdata'])
        await a.close()
        // The other still uses it: the server runs on until it leaves too.
        expect((await sql<{ one: number }>`select 1 as one`.execute(b.db)).rows).to.deep.equal([{ one: 1 }])
      } finally {
        await b.close()
      }
      expect(existsSync(join(both, 'pgdata', 'postmaster.pid'))).to.equal(false)
    })

    it('opens a data directory given relative to the working directory, as DATA_DIR=./.data is', async function () {
      this.timeout(60_000)
      const relativeDir = relative(process.cwd(), join(dataDir, 'relative'))
      expect(relativeDir.startsWith('/')).to.equal(false)
      open = await openDatabase({ url: undefined, dataDir: relativeDir })
      expect(open.description).to.equal(`embedded PostgreSQL at ${join(dataDir, 'relative', 'pgdata')} (started by this process)`)
      expect((await sql<{ one: number }>`select 1 as one`.execute(open.db)).rows).to.deep.equal([{ one: 1 }])
      await open.close()
      open = undefined
    })

    it('refuses a cluster the server cannot start on, with the end of its log', async function () {
      this.timeout(60_000)
      const foreign = join(dataDir, 'foreign')
      mkdirSync(join(foreign, 'pgdata'), { recursive: true, mode: 0o700 })
      // A cluster of another major version, as an older build's data directory would be.
      writeFileSync(join(foreign, 'pgdata', 'PG_VERSION'), '16\n')
      const error = await rejectionOf(openDatabase({ url: undefined, dataDir: foreign }))
      expect((error as Error).message).to.match(/^The embedded PostgreSQL at .*pgdata did not start \(.*\)\. Its log ends:\n/)
    })

    it('makes a data directory group or others can reach owner-only while it holds no database, as initdb does, and says so', async function () {
      this.timeout(60_000)
      for (const mode of [0o755, 0o750, 0o701]) {
        const made = join(dataDir, `made-${mode.toString(8)}`)
        mkdirSync(made)
        chmodSync(made, mode)
        // What the quick start leaves there before the API starts: its log, written through `tee`.
        writeFileSync(join(made, 'api.log'), '', { mode: 0o644 })
        open = await openDatabase({ url: undefined, dataDir: made })
        expect(open.description, mode.toString(8)).to.equal(
          `embedded PostgreSQL at ${join(made, 'pgdata')} (started by this process; the data directory ${made} was made owner-only (it was 0${mode.toString(8)} and held no database yet))`,
        )
        expect(statSync(made).mode & 0o077, mode.toString(8)).to.equal(process.getuid?.() === 0 ? 0o010 : 0)
        await open.close()
        open = undefined
      }
    })

    it('refuses a data directory that holds a database and that group or others can reach, naming the fix', async () => {
      for (const mode of [0o755, 0o750, 0o701, 0o707]) {
        const shared = join(dataDir, `shared-${mode.toString(8)}`)
        mkdirSync(join(shared, 'pgdata'), { recursive: true, mode: 0o700 })
        chmodSync(shared, mode)
        const error = await rejectionOf(openDatabase({ url: undefined, dataDir: shared }))
        expect((error as Error).message, mode.toString(8)).to.equal(
          `The data directory ${shared} holds an embedded database and can be reached by group or others (mode 0${mode.toString(8)}): the database holds applicant data and key hashes. Run: chmod 700 ${shared}`,
        )
        expect(statSync(shared).mode & 0o777, mode.toString(8)).to.equal(mode)
        expect(readdirSync(join(shared, 'pgdata')), mode.toString(8)).to.deep.equal([])
      }
    })
  })
})
