import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { sql } from 'kysely'
import { openDatabase } from '../src/postgres/database.js'
import { migrateToLatest } from '../src/postgres/migrate.js'
import { postgresApiKeyRepository } from '../src/postgres/api-key-repository.js'
import { asWriteError } from '../src/postgres/store-errors.js'
import { testDatabases } from '../src/testing/test-databases.js'

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
