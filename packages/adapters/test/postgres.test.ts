import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { sql } from 'kysely'
import { openDatabase, parseInt8 } from '../src/postgres/database.js'
import { MIGRATION_NAMES, migrateToLatest } from '../src/postgres/migrate.js'
import { postgresApiKeyRepository } from '../src/postgres/api-key-repository.js'
import { asWriteError } from '../src/postgres/store-errors.js'
import { testDatabases } from '../src/testing/test-databases.js'
import { testId } from '@lendgate/core/testing'

for (const database of testDatabases()) {
  describe(`PostgreSQL adapter basics on ${database.name}`, () => {
    it('returns int8 as a JavaScript number, and refuses values beyond the safe range', async () => {
      const { db } = await database.open()
      const { rows } = await sql<{ a: unknown; n: unknown }>`select 9007199254740991::int8 as a, count(*) as n from api_keys`.execute(db)
      expect(typeof rows[0]!.a).to.equal('number')
      expect(rows[0]!.a).to.equal(9007199254740991)
      expect(typeof rows[0]!.n).to.equal('number')
      let refused = false
      try {
        await sql`select 9007199254740993::int8 as a`.execute(db)
      } catch {
        refused = true
      }
      expect(refused).to.equal(true)
    })

    it('round-trips timestamps with milliseconds', async () => {
      const { db } = await database.open()
      const at = new Date('2026-01-02T03:04:05.678Z')
      const { rows } = await sql<{ t: Date }>`select ${at}::timestamptz as t`.execute(db)
      expect(rows[0]!.t).to.deep.equal(at)
    })

    it('migrates idempotently: a second run applies nothing', async () => {
      const { db } = await database.open()
      expect(await migrateToLatest(db)).to.deep.equal([])
    })
  })
}

describe('openDatabase', function () {
  this.timeout(60_000)

  it('parses int8 text strictly', () => {
    expect(parseInt8('-42')).to.equal(-42)
    expect(() => parseInt8('9007199254740993')).to.throw(RangeError)
  })

  it('refuses a URL that is neither PostgreSQL nor pglite://memory', async () => {
    let message = ''
    try {
      await openDatabase({ url: 'mysql://db/x', dataDir: '' })
    } catch (error) {
      message = (error as Error).message
    }
    expect(message).to.contain('DATABASE_URL')
  })

  it('keeps the embedded database on disk under DATA_DIR/pgdata across restarts', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'lendgate-pgdata-'))
    try {
      const first = await openDatabase({ url: undefined, dataDir })
      expect(first.description).to.equal(`embedded PostgreSQL at ${join(dataDir, 'pgdata')}`)
      expect(await migrateToLatest(first.db)).to.deep.equal(MIGRATION_NAMES)
      const id = testId('11111111-2222-4333-8444-555555555555')
      await first.db.insertInto('api_clients').values({ id, party_id: id, name: 'disk', created_at: new Date() }).execute()
      await first.close()
      const second = await openDatabase({ url: undefined, dataDir })
      expect(await migrateToLatest(second.db)).to.deep.equal([])
      const row = await second.db.selectFrom('api_clients').select('name').where('id', '=', id).executeTakeFirst()
      expect(row).to.deep.equal({ name: 'disk' })
      await second.close()
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})

describe('store error translation', () => {
  it('maps a unique violation to AlreadyExists and anything else to StoreUnavailable', () => {
    expect(asWriteError('api_client')({ code: '23505' })).to.deep.equal({ _tag: 'AlreadyExists', entity: 'api_client' })
    const other = new Error('connection terminated')
    expect(asWriteError('api_client')(other)).to.deep.equal({ _tag: 'StoreUnavailable', cause: other })
    expect(asWriteError('api_client')({ code: '57P01' })).to.deep.equal({ _tag: 'StoreUnavailable', cause: { code: '57P01' } })
  })

  it('turns an unreachable server into StoreUnavailable, never a thrown error', async () => {
    const unreachable = await openDatabase({ url: 'postgres://postgres@127.0.0.1:1/none', dataDir: '' })
    try {
      const result = await postgresApiKeyRepository(unreachable.db).findByIdSegment('abcdefghijklmnop')()
      expect(E.isLeft(result) && result.left._tag).to.equal('StoreUnavailable')
    } finally {
      await unreachable.close()
    }
  })
})
