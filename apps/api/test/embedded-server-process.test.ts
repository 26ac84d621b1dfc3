import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { appendFileSync, chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { postmasterPidOf, stopEmbeddedServerOf } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { processEnv, startFromSource, within, type SourceProcess } from './support/api-process.js'
import { bearer, mintKey } from './support/client.js'

/**
 * The embedded PostgreSQL server's life beside the processes that use it (issue 41): it stops
 * with the API on SIGTERM; after a `kill -9` of the API it runs on, and the next start joins it
 * (one copy, the data kept); the CLI, a worker and a second API work beside a running API on the
 * same DATA_DIR, and the server stops when the last of them leaves.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

/** The postmaster's pid of `dataDir`'s cluster; undefined when none is written there. */
const postmasterOf = (dataDir: string): number | undefined => postmasterPidOf(join(dataDir, 'pgdata'))

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Whether `pid` is gone within 15 s (a loaded machine is slow to stop a server): `pg_ctl stop` returns once `postmaster.pid` is removed, a moment before the postmaster exits. */
const exits = async (pid: number, withinMs = 15_000): Promise<boolean> => {
  for (const deadline = Date.now() + withinMs; alive(pid) && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 100))
  return !alive(pid)
}

/** What the process table says of `pid` (its state, a zombie included), for an assertion's message. */
const processState = (pid: number): string => {
  try {
    return execFileSync('ps', ['-o', 'pid,ppid,stat,user,args', '-p', String(pid)], { encoding: 'utf8' })
  } catch {
    return `no process ${pid}`
  }
}

/**
 * How many PostgreSQL servers run on the cluster of `dataDir`: processes whose command line names
 * it, less their own children (a backend the moment after its fork still shows its postmaster's
 * command line).
 */
const serversOn = (dataDir: string): number => {
  const named = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null && /\/bin\/postgres -D /.test(match[3]!) && `${match[3]} `.includes(`-D ${join(dataDir, 'pgdata')} `))
  const pids = new Set(named.map((match) => match[1]))
  return named.filter((match) => !pids.has(match[2])).length
}

describe('the embedded PostgreSQL server beside the processes that use it (issue 41)', function () {
  this.timeout(120_000)
  let dataDir: string
  let env: Record<string, string>
  const running: SourceProcess[] = []
  const start = (entry: 'src/main.ts' | 'src/worker-main.ts', extra: Record<string, string> = {}): SourceProcess => {
    const run = startFromSource(entry, { ...env, PORT: '0', WORKER_PORT: '0', ...extra })
    running.push(run)
    return run
  }
  const stop = async (run: SourceProcess): Promise<void> => {
    run.child.kill('SIGTERM')
    expect(await within(20_000, run.exited), run.stdout() + run.stderr()).to.equal(0)
  }
  /** The status the API at `url` answers `key` with on the listing of its client's keys: 200 when it accepts the key. */
  const accepted = async (url: string, key: string): Promise<number> => (await fetch(`${url}/public/partner/api-keys`, { headers: bearer(key) })).status

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'lendgate-embedded-'))
    env = { ...processEnv('http://127.0.0.1:9/unused'), DATA_DIR: dataDir }
  })
  afterEach(async () => {
    for (const run of running.splice(0)) run.child.kill('SIGKILL')
    await stopEmbeddedServerOf(dataDir)
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('stops the server with the API on SIGTERM, and the next start finds the data', async () => {
    const first = start('src/main.ts')
    const url = await within(60_000, first.url)
    expect(first.stdout()).to.contain('started by this process')
    const key = (await mintKey(url)).api_key
    const postmaster = postmasterOf(dataDir)!
    expect(alive(postmaster)).to.equal(true)
    await stop(first)
    expect(postmasterOf(dataDir), 'postmaster.pid').to.equal(undefined)
    expect(await exits(postmaster), 'the postmaster exits').to.equal(true)

    const second = start('src/main.ts')
    expect(await accepted(await within(60_000, second.url), key)).to.equal(200)
    await stop(second)
    expect(postmasterOf(dataDir)).to.equal(undefined)
  })

  it('leaves no server and no development secrets when the API cannot listen (its port taken), and exits 1', async () => {
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    try {
      // A newcomer's start: nothing set, so the development secrets are generated, then discarded with the failed start.
      const api = startFromSource('src/main.ts', { DATA_DIR: dataDir, PORT: String((taken.address() as AddressInfo).port) })
      running.push(api)
      expect(await within(60_000, api.exited)).to.equal(1)
      expect(api.stdout()).to.contain('EADDRINUSE')
      expect(postmasterOf(dataDir)).to.equal(undefined)
      expect(readdirSync(dataDir), 'a secret left by the failed start').to.not.include('dev-secrets.json')
      expect(api.stderr(), 'secrets shown for a start that failed').to.not.contain('PARTNER_MINT_SECRET=')
    } finally {
      taken.close()
    }
  })

  it('after a kill -9 of the API, the next start joins the server left running: one copy, the data kept', async () => {
    const first = start('src/main.ts')
    const key = (await mintKey(await within(60_000, first.url))).api_key
    const postmaster = postmasterOf(dataDir)!
    first.child.kill('SIGKILL')
    await first.exited
    expect(alive(postmaster), 'the server outlives the killed API').to.equal(true)

    const second = start('src/main.ts')
    const url = await within(60_000, second.url)
    expect(second.stdout()).to.contain('already running: joined')
    expect([postmasterOf(dataDir), serversOn(dataDir)]).to.deep.equal([postmaster, 1])
    expect(await accepted(url, key)).to.equal(200)
    // The one that joined keeps it now: it stops the server when it stops.
    await stop(second)
    expect(await exits(postmaster)).to.equal(true)
    expect(postmasterOf(dataDir)).to.equal(undefined)
  })

  it('serves the CLI, a worker and a second API beside a running API; the server stops with the last to leave', async () => {
    const api = start('src/main.ts')
    const url = await within(60_000, api.url)
    const postmaster = postmasterOf(dataDir)!

    // The CLI mints a key on the running server; the API accepts it.
    const cli = spawnSync(
      join(ROOT, 'node_modules/.bin/tsx'),
      ['--conditions=@lendgate/source', 'apps/cli/src/main.ts', 'keys', 'mint', '--party-id', '0b6a3f2e-8f5c-4d8e-9a37-1c2d3e4f5a6b'],
      { cwd: ROOT, env: { PATH: process.env['PATH'] ?? '', DATA_DIR: dataDir }, encoding: 'utf8' },
    )
    expect(cli.status, cli.stderr).to.equal(0)
    const key = (JSON.parse(cli.stdout) as { api_key: string }).api_key
    expect(await accepted(url, key)).to.equal(200)
    expect(alive(postmaster), 'the CLI leaves the server to the API').to.equal(true)

    const worker = start('src/worker-main.ts')
    const workerUrl = await within(60_000, worker.url)
    expect(await (await fetch(`${workerUrl}/health/ready`)).json()).to.deep.equal({ status: 'ready', database: 'up' })
    const second = start('src/main.ts')
    const secondUrl = await within(60_000, second.url)
    expect(second.stdout()).to.contain('already running: joined')
    expect(await accepted(secondUrl, key)).to.equal(200)

    // The API that started the server leaves: the others go on, on the same server.
    await stop(api)
    expect([postmasterOf(dataDir), serversOn(dataDir)]).to.deep.equal([postmaster, 1])
    expect(await accepted(secondUrl, key)).to.equal(200)
    expect((await fetch(`${workerUrl}/health/ready`)).status).to.equal(200)

    await stop(second)
    expect(alive(postmaster), 'the worker still uses it').to.equal(true)
    await stop(worker)
    expect(await exits(postmaster)).to.equal(true)
    expect(postmasterOf(dataDir)).to.equal(undefined)
  })

  describe('supervised (issue 53, item 5)', () => {
    /** The status of `url`'s listing of `key`'s keys within `ms`: 200 as soon as it is, else the last seen (0: no answer). */
    const acceptedWithin = async (ms: number, url: string, key: string): Promise<number> => {
      let status = 0
      for (const deadline = Date.now() + ms; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 250))) {
        status = await accepted(url, key).catch(() => 0)
        if (status === 200) break
      }
      return status
    }

    it('starts the server again when its postmaster is killed, and serves within seconds', async () => {
      const api = start('src/main.ts')
      const url = await within(60_000, api.url)
      const key = (await mintKey(url)).api_key
      const postmaster = postmasterOf(dataDir)!
      process.kill(postmaster, 'SIGKILL')
      expect(await exits(postmaster)).to.equal(true)

      expect(await acceptedWithin(15_000, url, key), api.stdout()).to.equal(200)
      expect(api.child.exitCode, 'the API runs on').to.equal(null)
      const restarted = postmasterOf(dataDir)!
      expect([restarted !== postmaster, alive(restarted), serversOn(dataDir)]).to.deep.equal([true, true, 1])
      await stop(api)
      expect(await exits(restarted, 60_000), `the API still stops the server it started again\n${processState(restarted)}\n${api.stdout()}${api.stderr()}`).to.equal(true)
    })

    it('stops the server it is starting again when it is stopped mid-restart', async () => {
      const api = start('src/main.ts')
      await within(60_000, api.url)
      const postmaster = postmasterOf(dataDir)!
      process.kill(postmaster, 'SIGKILL')
      expect(await exits(postmaster)).to.equal(true)
      // Stopped the moment the restarted server has written its pid: the restart is still taking its share of it.
      let restarted: number | undefined
      for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 5))) {
        restarted = postmasterOf(dataDir)
        if (restarted !== undefined && restarted !== postmaster && alive(restarted)) break
      }
      expect(restarted, api.stdout()).to.be.a('number').and.not.equal(postmaster)
      await stop(api)
      expect(await exits(restarted!, 60_000), `the API stops the server it was starting again\n${processState(restarted!)}\n${api.stdout()}${api.stderr()}`).to.equal(true)
      expect(serversOn(dataDir)).to.equal(0)
    })

    it('exits 1 with a fatal line when the server cannot be started again, for a supervisor to restart it', async () => {
      const api = start('src/main.ts')
      await within(60_000, api.url)
      const conf = join(dataDir, 'pgdata', 'postgresql.conf')
      const settings = readFileSync(conf, 'utf8')
      try {
        appendFileSync(conf, 'not a setting\n')
        process.kill(postmasterOf(dataDir)!, 'SIGKILL')
        expect(await within(30_000, api.exited), api.stdout()).to.equal(1)
        expect(api.stdout()).to.contain('the embedded PostgreSQL server stopped and could not be started again')
      } finally {
        writeFileSync(conf, settings)
      }
    })

    it('starts promptly when postmaster.pid names a live process that is no server of this cluster', async () => {
      const first = start('src/main.ts')
      await within(60_000, first.url)
      await stop(first)
      // A process of the server's user (`postgres` when the tests run as root): PostgreSQL takes a pid it may not signal for a dead one.
      const idOf = (flag: '-u' | '-g') => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }))
      const serverUser = process.getuid?.() === 0 ? { uid: idOf('-u'), gid: idOf('-g') } : {}
      const other = spawn('sleep', ['60'], { stdio: 'ignore', ...serverUser })
      try {
        writeFileSync(join(dataDir, 'pgdata', 'postmaster.pid'), `${other.pid}\n${join(dataDir, 'pgdata')}\n`)
        const api = start('src/main.ts')
        await within(20_000, api.url)
        expect(postmasterOf(dataDir)).to.not.equal(other.pid)
        expect(alive(other.pid!), 'the unrelated process is left alone').to.equal(true)
        await stop(api)
      } finally {
        other.kill('SIGKILL')
      }
    })

    it('sweeps the throwaway server and folder a pglite://memory API killed with SIGKILL left behind, at the next start', async () => {
      const temporary = mkdtempSync(join(tmpdir(), 'lendgate-temporary-'))
      // The server's user passes through it, as through the system's /tmp.
      chmodSync(temporary, 0o755)
      const memory = { DATABASE_URL: 'pglite://memory', TMPDIR: temporary }
      try {
        const first = start('src/main.ts', memory)
        await within(60_000, first.url)
        const [left] = readdirSync(temporary).filter((name) => name.startsWith('lendgate-memory-'))
        const postmaster = postmasterOf(join(temporary, left!))!
        first.child.kill('SIGKILL')
        await first.exited
        expect(alive(postmaster), 'the throwaway server outlives the killed API').to.equal(true)

        const second = start('src/main.ts', memory)
        await within(60_000, second.url)
        expect(await exits(postmaster), 'the leftover server is stopped').to.equal(true)
        expect(readdirSync(temporary), 'the leftover folder is removed').to.not.include(left)
        await stop(second)
        expect(readdirSync(temporary).filter((name) => name.startsWith('lendgate-memory-'))).to.deep.equal([])
      } finally {
        for (const name of readdirSync(temporary)) {
          const pid = postmasterOf(join(temporary, name))
          if (pid !== undefined && alive(pid)) process.kill(pid, 'SIGKILL')
        }
        rmSync(temporary, { recursive: true, force: true })
      }
    })
  })
})
