import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { openDatabase } from '../src/postgres/database.js'
import { scratchDatabase } from '../src/testing/test-databases.js'
import { postgresApiKeyRepository } from '../src/postgres/api-key-repository.js'
import { asWriteError, query } from '../src/postgres/store-errors.js'

describe('asWriteError', () => {
  const toError = asWriteError('api_client')

  it('maps a unique violation (code 23505) to AlreadyExists for the entity', () => {
    const violation = Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' })
    expect(toError(violation)).to.deep.equal({ _tag: 'AlreadyExists', entity: 'api_client' })
    expect(toError({ code: '23505' })).to.deep.equal({ _tag: 'AlreadyExists', entity: 'api_client' })
  })

  it('maps anything else to StoreUnavailable carrying the cause', () => {
    const plain = new Error('connection terminated')
    const adminShutdown = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })
    for (const cause of [plain, adminShutdown, 'boom', { code: 23505 }, null, undefined]) {
      expect(toError(cause)).to.deep.equal({ _tag: 'StoreUnavailable', cause })
    }
  })
})

describe('query', () => {
  it('answers the value of a query that succeeds', async () => {
    expect(await query(async () => 42)()).to.deep.equal(E.right(42))
  })

  it('answers StoreUnavailable, with the cause, for a query that fails or throws before its promise', async () => {
    const failure = new Error('connection terminated')
    expect(await query(() => Promise.reject(failure))()).to.deep.equal(E.left({ _tag: 'StoreUnavailable', cause: failure }))
    const thrown = await query((): Promise<number> => {
      throw failure
    })()
    expect(thrown).to.deep.equal(E.left({ _tag: 'StoreUnavailable', cause: failure }))
  })

  it('runs the query each time the task runs, never when it is made', async () => {
    let runs = 0
    const task = query(async () => ++runs)
    expect(runs).to.equal(0)
    expect(await task()).to.deep.equal(E.right(1))
    expect(await task()).to.deep.equal(E.right(2))
  })
})

describe('repository calls on a database that fails', () => {
  it('resolve to Left StoreUnavailable once the embedded database is closed', async function () {
    this.timeout(60_000)
    const scratch = await scratchDatabase('embedded')
    const repo = postgresApiKeyRepository(scratch.database.db)
    expect(await repo.findByIdSegment('x')()).to.deep.equal(E.right(O.none))
    await scratch.drop()

    const result = await repo.findByIdSegment('x')()
    expect(E.isLeft(result) && result.left._tag).to.equal('StoreUnavailable')
  })

  it('resolve to Left StoreUnavailable when the PostgreSQL server is unreachable', async () => {
    const database = await openDatabase({ url: 'postgres://postgres@127.0.0.1:1/none', dataDir: '' })
    try {
      const result = await postgresApiKeyRepository(database.db).findByIdSegment('x')()
      expect(E.isLeft(result) && result.left._tag).to.equal('StoreUnavailable')
    } finally {
      await database.close()
    }
  })
})
