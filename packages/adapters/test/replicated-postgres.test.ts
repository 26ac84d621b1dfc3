import { startReplicatedPostgres, type ReplicatedPostgres } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import pg from 'pg'

/**
 * The replicated pair the read-replica work stands on (issue 61, item 1): a replica that is in
 * recovery, refuses writes, catches up with what the primary commits, drops its connections when
 * killed, and resumes streaming when started again.
 */

/** Runs `sql` on `url` on a connection of its own. */
const query = async <R extends pg.QueryResultRow>(url: string, sql: string, parameters: unknown[] = []): Promise<R[]> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<R>(sql, parameters)).rows
  } finally {
    await client.end()
  }
}

/** Waits until the replica has replayed everything the primary had written when it was asked. */
const caughtUp = async (pair: ReplicatedPostgres): Promise<void> => {
  const [{ lsn }] = (await query<{ lsn: string }>(pair.primaryUrl, 'select pg_current_wal_lsn()::text as lsn')) as [{ lsn: string }]
  for (const deadline = Date.now() + 10_000; ; await new Promise((resolve) => setTimeout(resolve, 50))) {
    const [{ behind }] = (await query<{ behind: boolean }>(pair.replicaUrl, 'select pg_last_wal_replay_lsn() < $1::pg_lsn as behind', [lsn])) as [{ behind: boolean }]
    if (!behind) return
    if (Date.now() > deadline) expect.fail(`the replica did not replay the primary's WAL up to ${lsn} within 10 s`)
  }
}

describe('a PostgreSQL primary with a streaming replica (startReplicatedPostgres)', function () {
  this.timeout(60_000)
  let pair: ReplicatedPostgres

  before(async () => {
    pair = await startReplicatedPostgres()
  })
  after(async () => {
    await pair?.stop()
  })

  it('serves on the replica what the primary committed, and refuses writes there', async () => {
    expect(await query(pair.replicaUrl, 'select pg_is_in_recovery() as replica')).to.deep.equal([{ replica: true }])
    await query(pair.primaryUrl, 'create table ledger (id int primary key, amount bigint not null)')
    await query(pair.primaryUrl, 'insert into ledger values (1, 1200000)')
    await caughtUp(pair)
    expect(await query(pair.replicaUrl, 'select id, amount::text from ledger')).to.deep.equal([{ id: 1, amount: '1200000' }])
    const refused = await query(pair.replicaUrl, 'insert into ledger values (2, 1)').then(() => null, (error: { code?: string }) => error.code)
    expect(refused, 'read_only_sql_transaction').to.equal('25006')
  })

  it('drops the replica\'s connections when it is killed, and catches up with what was written meanwhile once started again', async () => {
    const held = new pg.Client({ connectionString: pair.replicaUrl })
    held.on('error', () => undefined)
    await held.connect()
    await pair.killReplica()
    const lost = await held.query('select 1').then(() => null, (error: Error) => error.message)
    expect(lost, 'a query on a connection to the killed replica').to.be.a('string')
    await held.end().catch(() => undefined)
    await query(pair.primaryUrl, 'insert into ledger values (3, 500)')
    await pair.startReplica()
    await caughtUp(pair)
    expect(await query(pair.replicaUrl, 'select id from ledger order by id')).to.deep.equal([{ id: 1 }, { id: 3 }])
  })
})
