import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { stopEmbeddedServerOf } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { observed, ROOT_DIR, startCompiled, within, type SourceProcess } from './support/api-process.js'
import { bearer } from './support/client.js'

/**
 * The production start (issue 54): `pnpm build`, then the compiled API, worker and CLI run with
 * plain `node` as a supervisor starts them (no tsx, no source condition, a bare environment), on
 * one embedded database; each names itself in its log lines and stops on SIGTERM with status 0.
 * Through the wrappers, a SIGTERM reaches the API from pnpm but not from npx in front of it, which
 * is why a supervisor runs `node` itself (docs/deployment.md, "Stopping").
 */

/** Every compiled folder a production process loads code from. */
const DIST_FOLDERS = ['packages/core/dist', 'packages/adapters/dist', 'apps/api/dist', 'apps/cli/dist']

const javascriptUnder = (folder: string): string[] =>
  readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.js'))
    .map((file) => join(folder, file))

/** An import of tsx, static or dynamic (a comment naming it is no import). */
const IMPORTS_TSX = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]tsx(?:\/[^'"]*)?['"]/

/** The JSON lines of a process's standard output. */
const logLines = (output: string): Array<Record<string, unknown>> =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)

/** Whether `pid` runs: it exists and is not a zombie (an orphan whose new parent has not reaped it yet). */
const alive = (pid: number): boolean => {
  const state = spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).stdout.trim()
  return state !== '' && !state.startsWith('Z')
}

type ProcessEntry = { readonly pid: number; readonly ppid: number; readonly args: string }

/** The processes under `pid`, at any depth. */
const descendantsOf = (pid: number): ProcessEntry[] => {
  const table = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .flatMap((match) => (match === null ? [] : [{ pid: Number(match[1]), ppid: Number(match[2]), args: match[3]! }]))
  const under: ProcessEntry[] = []
  for (let parents = new Set([pid]); parents.size > 0; ) {
    const children = table.filter((entry) => parents.has(entry.ppid))
    under.push(...children)
    parents = new Set(children.map((entry) => entry.pid))
  }
  return under
}

/** Whether `pid` is gone within 20 s. */
const ends = async (pid: number): Promise<boolean> => {
  for (let i = 0; i < 200 && alive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 100))
  return !alive(pid)
}

describe('the compiled API, worker and CLI started with plain node (issue 54)', function () {
  this.timeout(120_000)
  // One DATA_DIR for the whole suite: its cluster is created once, by the first start.
  let dataDir: string
  let home: string
  const running: SourceProcess[] = []
  /** Processes a test found and must not outlive it (a wrapper's children). */
  const strays: number[] = []

  before(() => {
    const build = spawnSync(join(ROOT_DIR, 'node_modules/.bin/tsc'), ['-b', 'apps/api', 'apps/cli'], { cwd: ROOT_DIR, encoding: 'utf8' })
    expect(build.status, build.stdout + build.stderr).to.equal(0)
    dataDir = mkdtempSync(join(tmpdir(), 'lendgate-compiled-'))
    home = mkdtempSync(join(tmpdir(), 'lendgate-home-'))
  })
  afterEach(() => {
    for (const run of running.splice(0)) run.child.kill('SIGKILL')
    for (const pid of strays.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL')
  })
  after(async () => {
    await stopEmbeddedServerOf(dataDir)
    rmSync(dataDir, { recursive: true, force: true })
    rmSync(home, { recursive: true, force: true })
  })

  it('names a compiled file under dist/ as the default of every export of the packages it loads', () => {
    const entries = ['packages/core', 'packages/adapters', 'apps/api', 'apps/cli'].flatMap((folder) => {
      const { exports = {} } = JSON.parse(readFileSync(join(ROOT_DIR, folder, 'package.json'), 'utf8')) as { exports?: Record<string, Record<string, string>> }
      return Object.entries(exports).map(([path, conditions]) => ({ entry: `${folder} ${path}`, conditions: Object.keys(conditions), default: conditions['default'] }))
    })
    const misplaced = entries.filter((e) => !(e.default?.startsWith('./dist/') && e.default.endsWith('.js') && e.conditions.at(-1) === 'default'))
    expect(entries).to.not.be.empty
    expect(misplaced).to.deep.equal([])
  })

  it('imports tsx nowhere in the compiled output', () => {
    const importers = DIST_FOLDERS.flatMap((folder) => javascriptUnder(join(ROOT_DIR, folder))).filter((file) => IMPORTS_TSX.test(readFileSync(file, 'utf8')))
    expect(importers).to.deep.equal([])
  })

  it('serves, answers the CLI and runs a worker on one embedded database; each names itself and stops on SIGTERM with status 0', async () => {
    const start = (entry: string, env: Record<string, string>): SourceProcess => {
      const run = startCompiled(entry, { HOME: home, DATA_DIR: dataDir, ...env })
      running.push(run)
      return run
    }
    const stop = async (run: SourceProcess): Promise<void> => {
      run.child.kill('SIGTERM')
      expect(await within(20_000, run.exited), run.stdout() + run.stderr()).to.equal(0)
      expect(alive(run.child.pid!), 'the process is gone').to.equal(false)
    }

    const api = start('apps/api/dist/main.js', { PORT: '0' })
    const url = await within(60_000, api.url)
    expect((await fetch(`${url}/health/ready`)).status).to.equal(200)
    // What the API reads from outside its own code at run time: the OpenAPI document it builds and swagger-ui's files.
    expect((await fetch(`${url}/public/openapi.json`)).status).to.equal(200)
    expect((await fetch(`${url}/docs/swagger-ui-bundle.js`)).status).to.equal(200)

    // The CLI mints a key on the API's database; the API accepts it on an authenticated route.
    const cli = spawnSync(process.execPath, ['apps/cli/dist/main.js', 'keys', 'mint', '--party-id', '0b6a3f2e-8f5c-4d8e-9a37-1c2d3e4f5a6b'], {
      cwd: ROOT_DIR,
      env: { PATH: process.env['PATH'] ?? '', HOME: home, DATA_DIR: dataDir },
      encoding: 'utf8',
    })
    expect(cli.status, cli.stderr).to.equal(0)
    const key = (JSON.parse(cli.stdout) as { api_key: string }).api_key
    expect((await fetch(`${url}/public/partner/api-keys`, { headers: bearer(key) })).status).to.equal(200)

    const worker = start('apps/api/dist/worker-main.js', { WORKER_PORT: '0', WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64') })
    const workerUrl = await within(60_000, worker.url)
    expect(await (await fetch(`${workerUrl}/health/ready`)).json()).to.deep.equal({ status: 'ready', database: 'up' })

    await stop(worker)
    await stop(api)
    expect(existsSync(join(dataDir, 'pgdata', 'postmaster.pid')), 'the embedded server still running').to.equal(false)
    const services = (run: SourceProcess): string[] => [...new Set(logLines(run.stdout()).map((line) => String(line['service'])))]
    expect({ api: services(api), worker: services(worker) }).to.deep.equal({ api: ['lendgate-api'], worker: ['lendgate-worker'] })
    expect(logLines(worker.stdout()).map((line) => line['msg'])).to.include.members(['Lendgate worker running', 'shutting down'])
  })

  it('through `npx pnpm@10.34.8 serve`: a SIGTERM to npx leaves the API answering; one to pnpm stops it', async () => {
    // The quick start's wrapper, from the npm cache of the user running the tests when it holds pnpm.
    const npx = observed(
      spawn('npx', ['--prefer-offline', '-y', 'pnpm@10.34.8', 'serve'], {
        cwd: ROOT_DIR,
        env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? home, DATA_DIR: dataDir, PORT: '0', npm_config_update_notifier: 'false' },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    )
    running.push(npx)
    const url = await within(60_000, npx.url)
    const api = descendantsOf(npx.child.pid!).find((entry) => entry.args.endsWith(' apps/api/dist/main.js'))!
    const pnpm = api.ppid
    strays.push(api.pid, pnpm)

    npx.child.kill('SIGTERM')
    await within(10_000, npx.exited)
    expect((await fetch(`${url}/health/ready`)).status, 'the API after a SIGTERM to npx').to.equal(200)
    expect(npx.stdout()).to.not.contain('"msg":"shutting down"')

    process.kill(pnpm, 'SIGTERM')
    expect(await ends(api.pid), 'the API after a SIGTERM to pnpm').to.equal(true)
    expect(await ends(pnpm), 'pnpm once the API has stopped').to.equal(true)
    // Everything the API wrote, up to its last flush at exit, once no process holds the pipe.
    const output = npx.child.stdout!
    if (!output.closed) await within(10_000, new Promise((resolve) => output.once('close', resolve)))
    expect(npx.stdout()).to.contain('"signal":"SIGTERM","msg":"shutting down"')
    expect(existsSync(join(dataDir, 'pgdata', 'postmaster.pid')), 'the embedded server still running').to.equal(false)
  })
})
