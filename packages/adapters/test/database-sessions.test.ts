import { randomBytes } from 'node:crypto'
import { expect } from 'chai'
import { sql } from 'kysely'
import pg from 'pg'
import { notificationsArrive, openDatabase, type OpenDatabase } from '../src/postgres/database.js'
import { MIGRATION_NAMES, migrateToLatest, pendingMigrations } from '../src/postgres/migrate.js'
import { realDatabaseUrl, testDatabases } from '../src/testing/test-databases.js'

/**
 * What a fleet behind a pooler needs of the database adapter (issue 38): migrations that know
 * what is pending and leave a newer schema alone, a pool that reports its connections, and a
 * direct URL that carries LISTEN and the sessions of migrations while queries use the pooled one.
 */

for (const database of testDatabases()) {
  describe(`migrations and sessions on ${database.name}`, () => {
    it('has nothing pending once migrated, and leaves a schema a newer build took further alone', async () => {
      const { db, withSession } = await database.open()
      expect(await pendingMigrations(db)).to.deep.equal([])
      const future = `9999-from-a-newer-build-${randomBytes(4).toString('hex')}`
      await sql`insert into kysely_migration (name, timestamp) values (${future}, ${new Date().toISOString()})`.execute(db)
      try {
        expect(await pendingMigrations(db)).to.deep.equal([])
        expect(await withSession(migrateToLatest)).to.deep.equal([])
      } finally {
        await sql`delete from kysely_migration where name = ${future}`.execute(db)
      }
    })

    it('hears a NOTIFY sent through the pool on its LISTEN connection', async () => {
      expect(await notificationsArrive(await database.open())).to.equal(true)
    })

    it("reports the pool's connections", async () => {
      const { connections, db } = await database.open()
      await sql`select 1`.execute(db)
      const now = connections()
      expect(now).to.have.all.keys('inUse', 'idle', 'waiting')
      expect(now.inUse + now.idle).to.be.at.least(1)
      expect(now.waiting).to.equal(0)
    })
  })
}

const serverUrl = realDatabaseUrl()
if (serverUrl !== undefined) {
  describe('a pooled URL beside a direct one (PostgreSQL server)', function () {
    this.timeout(30_000)
    const name = `lendgate_direct_${randomBytes(4).toString('hex')}`
    const urlOf = (database: string, port?: string) => {
      const url = new URL(serverUrl)
      url.pathname = `/${database}`
      if (port !== undefined) url.port = port
      return url.toString()
    }
    const admin = async (statement: string) => {
      const client = new pg.Client({ connectionString: serverUrl })
      await client.connect()
      try {
        await client.query(statement)
      } finally {
        await client.end()
      }
    }
    // The "pooled" URL leads nowhere (port 1): whatever works went through the direct one.
    let open: OpenDatabase
    before(async () => {
      await admin(`create database "${name}"`)
      open = await openDatabase({ url: urlOf(name, '1'), directUrl: urlOf(name), dataDir: '' })
    })
    after(async () => {
      await open.close()
      await admin(`drop database if exists "${name}" with (force)`)
    })

    it('names both in its description, with no password', () => {
      expect(open.description).to.match(/^postgres [^ ]+:1\/lendgate_direct_\w+ \(direct: postgres [^ ]+:\d+\/lendgate_direct_\w+\)$/)
    })

    it('migrates an empty database on a session of the direct URL, everything pending before and nothing after', async () => {
      expect(await open.withSession(pendingMigrations)).to.deep.equal(MIGRATION_NAMES)
      expect(await open.withSession(migrateToLatest)).to.deep.equal(MIGRATION_NAMES)
      expect(await open.withSession(pendingMigrations)).to.deep.equal([])
    })

    it('tells when a NOTIFY sent through the pool does not reach the LISTEN connection', async () => {
      // The pool on another database of the server: its notifications never reach this one's listeners.
      const elsewhere = await openDatabase({ url: serverUrl, directUrl: urlOf(name), dataDir: '' })
      try {
        expect(await notificationsArrive(elsewhere, 300)).to.equal(false)
      } finally {
        await elsewhere.close()
      }
    })

    it('listens for notifications on the direct URL', async () => {
      const heard: string[] = []
      const stop = await open.listen('lendgate_direct_test', (payload) => heard.push(payload), () => undefined)
      try {
        const client = new pg.Client({ connectionString: urlOf(name) })
        await client.connect()
        await client.query(`select pg_notify('lendgate_direct_test', 'hello')`)
        await client.end()
        for (let i = 0; i < 50 && heard.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20))
        expect(heard).to.deep.equal(['hello'])
      } finally {
        await stop()
      }
    })
  })
}
