import { openReadReplicas, type ReadReplicas, type ReplicaChange } from '@lendgate/adapters'
import { startReplicatedPostgres, type ReplicatedPostgres } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import pg from 'pg'

/**
 * Read replicas (decision 156) on a real primary and streaming replica: what the probes learn of
 * how current the replica is, and when a read may go to it.
 */

const PROBE_MS = 200
const MAX_LAG_MS = 1_000

/** Runs `sql` on `url` on a connection of its own; its rows. */
const query = async (url: string, sql: string): Promise<Record<string, unknown>[]> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(sql)).rows
  } finally {
    await client.end()
  }
}

/** How many rows `writes` has on `url`. */
const writesOn = async (url: string): Promise<number> => Number((await query(url, 'select count(*) as n from writes'))[0]?.['n'])

/** Polls `check` every 50 ms until it holds; fails after `ms`, saying what was awaited. */
const eventually = async (what: string, check: () => boolean, ms = 10_000): Promise<void> => {
  for (const deadline = Date.now() + ms; !check(); await new Promise((resolve) => setTimeout(resolve, 50))) {
    if (Date.now() > deadline) expect.fail(`not within ${ms} ms: ${what}`)
  }
}

describe('read replicas (openReadReplicas) on a primary and a streaming replica', function () {
  this.timeout(60_000)
  let pair: ReplicatedPostgres
  let replicas: ReadReplicas
  const changes: ReplicaChange['_tag'][] = []

  before(async () => {
    pair = await startReplicatedPostgres()
    await query(pair.primaryUrl, 'create table writes (id serial primary key)')
    replicas = openReadReplicas({ urls: [pair.replicaUrl], primaryUrl: pair.primaryUrl, maxLagMs: MAX_LAG_MS, poolSize: 2, probeMs: PROBE_MS, onChange: (_, change) => changes.push(change._tag) })
    await replicas.start()
  })
  after(async () => {
    await replicas?.close()
    await pair?.stop()
  })

  it('learns from a probe that a caught-up replica holds every commit made before the probe, and chooses it', async () => {
    // Up from its first probe; what it holds is known once a probe finds it replayed up to the
    // primary's position (on a busy machine the first may find it still replaying the schema).
    expect(replicas.states()[0]?.up).to.equal(true)
    await eventually('what the replica holds known', () => replicas.states()[0]?.asOf !== undefined)
    const [state] = replicas.states()
    expect(state?.up).to.equal(true)
    expect(state?.description).to.equal(`postgres 127.0.0.1:${new URL(pair.replicaUrl).port}/postgres`)
    expect(state?.lagMs).to.be.a('number').that.is.at.most(MAX_LAG_MS)
    expect(replicas.choose()).to.deep.equal({ index: 0, asOf: state?.asOf })
    expect(changes).to.deep.equal(['up'])
  })

  it('sends a reader whose last write the replica may not hold yet to the primary, and to the replica once a probe finds it there', async () => {
    await query(pair.primaryUrl, 'insert into writes default values')
    const wrote = new Date()
    // Nothing awaited in between: no probe can have ended after the write.
    expect(replicas.choose(wrote), 'right after the write').to.equal(undefined)
    const written = await writesOn(pair.primaryUrl)
    await eventually('the replica chosen for the writer', () => replicas.choose(wrote) !== undefined)
    expect(await writesOn(pair.replicaUrl), 'what the replica holds once chosen').to.equal(written)
  })

  it('skips a replica whose replay is paused once it is further behind than the limit, counting its lag from its last replayed commit, and takes it back when it catches up', async () => {
    let wrote = new Date(0)
    await query(pair.replicaUrl, 'select pg_wal_replay_pause()')
    try {
      await query(pair.primaryUrl, 'insert into writes default values')
      wrote = new Date()
      await eventually('the replica skipped', () => replicas.choose() === undefined, MAX_LAG_MS + 10 * PROBE_MS)
      const [behind] = replicas.states()
      expect(behind?.up, 'a replica behind is up all the same').to.equal(true)
      expect(behind?.lagMs).to.be.greaterThan(MAX_LAG_MS)
      expect(behind?.asOf?.getTime(), 'what it holds: commits before the write, which it does not hold').to.be.at.most(wrote.getTime())
      expect(await writesOn(pair.replicaUrl), 'the paused replica without the write').to.equal((await writesOn(pair.primaryUrl)) - 1)
      // The probe after the choice saw it: told once.
      await eventually('the replica told behind', () => changes.includes('behind'))
    } finally {
      await query(pair.replicaUrl, 'select pg_wal_replay_resume()')
    }
    await eventually('the replica chosen again', () => replicas.choose() !== undefined)
    await eventually('the replica chosen for the write', () => replicas.choose(wrote) !== undefined)
    expect(await writesOn(pair.replicaUrl)).to.equal(await writesOn(pair.primaryUrl))
    await eventually('the replica told caught up', () => changes.at(-1) === 'caughtUp')
  })

  it('skips a replica a read failed on until a probe finds it answering', async () => {
    replicas.failed(0)
    expect(replicas.states()[0]?.up).to.equal(false)
    expect(replicas.states()[0]?.asOf, 'what it held is forgotten: it may come back from an older point').to.equal(undefined)
    expect(replicas.choose()).to.equal(undefined)
    await eventually('the replica up again', () => replicas.choose() !== undefined)
  })

  it('marks a killed replica down, never failing a choice, and takes it back once it is started again', async () => {
    await pair.killReplica()
    try {
      await eventually('the killed replica down', () => replicas.states()[0]?.up === false)
      expect(replicas.choose()).to.equal(undefined)
      expect(changes).to.include('down')
    } finally {
      await pair.startReplica()
    }
    await eventually('the restarted replica chosen', () => replicas.choose() !== undefined, 20_000)
  })

  it('refuses a server that is not a standby: its reads could miss what the primary has', async () => {
    const told: ReplicaChange[] = []
    const wrong = openReadReplicas({ urls: [pair.primaryUrl], primaryUrl: pair.primaryUrl, maxLagMs: MAX_LAG_MS, poolSize: 1, probeMs: PROBE_MS, onChange: (_, change) => told.push(change) })
    try {
      await wrong.start()
      expect(wrong.states()[0]?.up).to.equal(false)
      expect(wrong.choose()).to.equal(undefined)
    } finally {
      await wrong.close()
    }
    expect(told.map((change) => change._tag)).to.deep.equal(['down'])
    expect(told[0]?._tag === 'down' && told[0].reason).to.match(/not a standby/)
  })

  it("refuses a standby of another cluster: what it holds is not the primary's", async () => {
    const other = await startReplicatedPostgres()
    const told: ReplicaChange[] = []
    const wrong = openReadReplicas({ urls: [other.replicaUrl], primaryUrl: pair.primaryUrl, maxLagMs: MAX_LAG_MS, poolSize: 1, probeMs: PROBE_MS, onChange: (_, change) => told.push(change) })
    try {
      await wrong.start()
      expect(wrong.choose()).to.equal(undefined)
      expect(told[0]?._tag === 'down' && told[0].reason).to.match(/system identifier differs/)
    } finally {
      await wrong.close()
      await other.stop()
    }
  })
})
