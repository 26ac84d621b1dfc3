import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { stopEmbeddedServerOf, terminateEmbeddedConnections } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { processEnv, startFromSource, within, type SourceProcess } from './support/api-process.js'
import { bearer, mintKey } from './support/client.js'

/**
 * Issue 53, item 2: the database's connections lost under load (a failover, a restart, an
 * operator's `pg_terminate_backend`) are not the process's end. Every `pg` client has an error
 * listener for its whole life, checked out or idle: requests in flight fail with the store's
 * answer, the pool opens new connections, and the API goes on serving.
 */
describe('the API process when the database ends its connections under load (issue 53)', function () {
  this.timeout(120_000)
  let dataDir: string
  let api: SourceProcess | undefined

  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'lendgate-connection-loss-'))
  })
  after(async () => {
    api?.child.kill('SIGKILL')
    await stopEmbeddedServerOf(dataDir)
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('keeps running and serving while every one of its backends is terminated, again and again', async () => {
    api = startFromSource('src/main.ts', { ...processEnv('http://127.0.0.1:9/unused'), DATA_DIR: dataDir, PORT: '0' })
    const url = await within(60_000, api.url)
    const key = (await mintKey(url)).api_key
    /** Each answer: its status, and its error code when it is one. */
    const statuses: string[] = []
    let loading = true
    const load = async (): Promise<void> => {
      while (loading) {
        const response = await fetch(`${url}/public/partner/api-keys`, { headers: bearer(key) }).catch(() => undefined)
        if (response === undefined) statuses.push('no answer')
        else if (response.status === 200) statuses.push((await response.arrayBuffer(), '200'))
        else statuses.push(`${response.status} ${((await response.json()) as { error?: string }).error}`)
      }
    }
    const clients = Array.from({ length: 8 }, load)
    let ended = 0
    try {
      for (let round = 0; round < 10; round++) {
        await new Promise((resolve) => setTimeout(resolve, 150))
        ended += await terminateEmbeddedConnections(dataDir)
      }
    } finally {
      loading = false
      await Promise.all(clients)
    }
    expect(api.child.exitCode, api.stdout() + api.stderr()).to.equal(null)
    expect(ended, 'connections ended').to.be.greaterThan(10)
    // Only the store's own answer for a request whose connection was ended under it (500
    // `store_unavailable`, as the spec shows a database failure), never a dropped connection.
    expect([...new Set(statuses)].sort()).to.satisfy((seen: string[]) => seen.every((s) => s === '200' || s === '500 store_unavailable'))
    expect(statuses.filter((s) => s === '200').length).to.be.greaterThan(10)
    // Serving again once the connections are back: a request sent the instant the last round
    // ended may still meet a connection ended under it (answered 500 store_unavailable, as above);
    // the pool has replaced them within a few seconds.
    const again: number[] = []
    for (let attempt = 0; attempt < 20 && again.at(-1) !== 200; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 250))
      again.push((await fetch(`${url}/public/partner/api-keys`, { headers: bearer(key) })).status)
    }
    expect(again.at(-1), `answers after the last round: ${again.join(', ')}`).to.equal(200)
    expect(again.every((status) => status === 200 || status === 500), `answers after the last round: ${again.join(', ')}`).to.equal(true)
  })
})
