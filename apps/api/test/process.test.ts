import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, stopEmbeddedServerOf } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { processEnv, startFromSource, within, type SourceProcess } from './support/api-process.js'
import { request } from './support/client.js'
import { durableDatabases, type DurableDatabase } from './support/durable-databases.js'

/** Starts `src/main.ts` as its own process, the way `pnpm start` does. */
const startMain = (env: Record<string, string>): SourceProcess => startFromSource('src/main.ts', { PORT: '0', ...env })

describe('the API process (main.ts)', function () {
  this.timeout(60_000)
  let dataDir: string
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'lendgate-main-'))
  })
  afterEach(async () => {
    await stopEmbeddedServerOf(dataDir)
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('refuses to start on invalid settings, listing each problem, with exit status 1', async () => {
    const run = startMain({ PORT: 'eighty', LOG_LEVEL: 'loud', DATA_DIR: dataDir })
    expect(await within(20_000, run.exited)).to.equal(1)
    expect(run.stderr()).to.contain('PORT must be an integer from 0 to 65535')
    expect(run.stderr()).to.contain('LOG_LEVEL must be one of')
  })

  it('refuses to start on an embedded data directory that holds a database and that group or others can reach (issues 35, 52)', async () => {
    const first = startMain({ DATA_DIR: dataDir })
    await within(30_000, first.url)
    first.child.kill('SIGTERM')
    expect(await within(20_000, first.exited)).to.equal(0)
    chmodSync(dataDir, 0o755)
    const run = startMain({ DATA_DIR: dataDir })
    expect(await within(30_000, run.exited)).to.equal(1)
    expect(run.stdout()).to.contain(`holds an embedded database and can be reached by group or others (mode 0755)`)
    expect(run.stdout()).to.contain(`Run: chmod 700 ${dataDir}`)
  })

  it('keeps every file of the embedded database owner-only while it runs and after it stops (issue 35)', async () => {
    const run = startMain({ DATA_DIR: dataDir })
    const url = await within(30_000, run.url)
    expect((await request(url, '/health/ready')).status).to.equal(200)
    // Directories and files: the server's socket is guarded by its directory.
    const reachable = (): string[] =>
      readdirSync(dataDir, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isDirectory() || entry.isFile())
        .map((entry) => join(entry.parentPath, entry.name))
        .filter((full) => (statSync(full).mode & 0o077) !== 0)
    expect(reachable(), 'while running').to.deep.equal([])
    run.child.kill('SIGTERM')
    expect(await within(20_000, run.exited)).to.equal(0)
    expect(reachable(), 'after stopping').to.deep.equal([])
  })

  it('generates development secrets once, shows them once, and stops gracefully on SIGTERM', async () => {
    const first = startMain({ DATA_DIR: dataDir })
    const url = await within(30_000, first.url)
    const secrets = JSON.parse(readFileSync(join(dataDir, 'dev-secrets.json'), 'utf8')) as Record<string, string>
    expect(statSync(join(dataDir, 'dev-secrets.json')).mode & 0o777).to.equal(0o600)
    expect(first.stderr()).to.contain(`PARTNER_MINT_SECRET=${secrets['partner_mint_secret']}`)
    expect(first.stderr()).to.contain(`INTERNAL_API_TOKEN=${secrets['internal_api_token']}`)

    const minted = await request(url, '/public/partner/api-keys', {
      method: 'POST',
      headers: { 'X-Partner-Mint-Key': secrets['partner_mint_secret']! },
      json: { party_id: '0b6a3f2e-8f5c-4d8e-9a37-1c2d3e4f5a6b' },
    })
    expect(minted.status).to.equal(201)

    first.child.kill('SIGTERM')
    expect(await within(5_000, first.exited)).to.equal(0)
    expect(first.stdout()).to.contain('"msg":"shutting down"')
    for (const secret of Object.values(secrets)) expect(first.stdout()).not.to.contain(secret)
    expect(first.stdout()).not.to.contain(minted.body.api_key)

    const second = startMain({ DATA_DIR: dataDir })
    await within(30_000, second.url)
    expect(second.stderr()).not.to.contain(secrets['partner_mint_secret'])
    second.child.kill('SIGINT')
    expect(await within(5_000, second.exited)).to.equal(0)
  })

  /**
   * Starts the API, takes its standard output's reader away (a log collector that died), makes
   * `requests` requests, each of which must be served, then sends SIGTERM: the process must exit 0.
   */
  const stopsWithItsReaderGone = async (requests: number): Promise<void> => {
    const run = startMain({ DATA_DIR: dataDir })
    const url = await within(30_000, run.url)
    run.child.stdout!.destroy()
    for (let i = 0; i < requests; i += 1) expect((await request(url, '/health')).status).to.equal(200)
    run.child.kill('SIGTERM')
    try {
      expect(await within(5_000, run.exited)).to.equal(0)
    } finally {
      run.child.kill('SIGKILL')
    }
  }

  it('stops on SIGTERM when whatever read its standard output has gone, with log lines still pending', async () => {
    // One access line, still in the buffer: the process meets the broken pipe only in the flush at exit.
    await stopsWithItsReaderGone(1)
  })

  it('goes on serving when whatever read its standard output has gone, and still stops on SIGTERM', async () => {
    // Enough access lines for several 8 KiB batches: the first one written meets the broken pipe.
    await stopsWithItsReaderGone(200)
  })

  it('in production generates nothing: minting answers 500 server_misconfigured and the log says why', async () => {
    const run = startMain({ DATA_DIR: dataDir, NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://api.lendgate.example' })
    const url = await within(30_000, run.url)
    const minted = await request(url, '/public/partner/api-keys', {
      method: 'POST',
      headers: { 'X-Partner-Mint-Key': 'anything-at-all-here' },
      json: { party_id: '0b6a3f2e-8f5c-4d8e-9a37-1c2d3e4f5a6b' },
    })
    expect(minted.status).to.equal(500)
    expect(minted.body).to.deep.equal({
      error: 'server_misconfigured',
      detail: "The server is missing a setting this request needs; its operators must set it (the server's log names it).",
    })
    expect(run.stdout()).to.contain('"setting":"PARTNER_MINT_SECRET"')
    run.child.kill('SIGTERM')
    expect(await within(5_000, run.exited)).to.equal(0)
  })
})

for (const kind of durableDatabases()) {
  describe(`the API process on a fresh database, ${kind.name} (issue 52)`, function () {
    this.timeout(60_000)
    let database: DurableDatabase
    let run: SourceProcess | undefined
    beforeEach(async () => {
      database = await kind.create()
    })
    afterEach(async () => {
      run?.child.kill('SIGKILL')
      await run?.exited
      run = undefined
      await database.dispose()
    })

    it('serves a request sent as soon as /health answers 200: the request waits for the migrations', async () => {
      const port = await freePort()
      const url = `http://127.0.0.1:${port}`
      const env = processEnv('http://127.0.0.1:9/unused')
      run = startMain({ ...env, ...database.env, PORT: String(port) })
      // As a client that waits for the process to be up would: liveness, polled until it answers 200.
      const live = async (): Promise<boolean> => (await fetch(`${url}/health`).catch(() => undefined))?.status === 200
      await within(
        30_000,
        (async () => {
          while (!(await live())) await new Promise((resolve) => setTimeout(resolve, 10))
        })(),
      )
      const stillMigrating = !run.stdout().includes('Lendgate API listening')
      const minted = await request(url, '/public/partner/api-keys', {
        method: 'POST',
        headers: { 'X-Partner-Mint-Key': env['PARTNER_MINT_SECRET']! },
        json: { party_id: '0b6a3f2e-8f5c-4d8e-9a37-1c2d3e4f5a6b' },
      })
      expect(minted.status, minted.text).to.equal(201)
      expect(stillMigrating, 'liveness answered while the process was still migrating').to.equal(true)
      run.child.kill('SIGTERM')
      expect(await within(20_000, run.exited), run.stdout() + run.stderr()).to.equal(0)
    })
  })
}
