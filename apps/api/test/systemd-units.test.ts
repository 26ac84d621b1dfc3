import { WEBHOOK_TIMEOUT_MS } from '@lendgate/adapters'
import { expect } from 'chai'
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from '@lendgate/adapters/testing'
import { DEFAULT_GRACE_MS } from '../src/server.js'
import { localUser, type LocalUser } from './support/local-users.js'

const REPO = fileURLToPath(new URL('../../..', import.meta.url))
const UNITS_DIR = join(REPO, 'deploy', 'systemd')
const UNITS = ['lendgate-api.service', 'lendgate-worker.service'] as const
const SYSTEMD_ANALYZE = '/usr/bin/systemd-analyze'
/** The user the units run as, made here as the install instructions make it (docs/deployment.md, "systemd"). */
const SERVICE_USER = 'lendgate-unit-test'

const unitText = (unit: string): string => readFileSync(join(UNITS_DIR, unit), 'utf8')

/** The `[Service]` section's assignments, in order. */
const serviceEntries = (text: string): [string, string][] => {
  const section = text.slice(text.indexOf('[Service]'), text.indexOf('\n[', text.indexOf('[Service]')))
  return section.split('\n').flatMap((line) => {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line)
    return match === null ? [] : [[match[1]!, match[2]!]]
  })
}

const values = (text: string, key: string): string[] => serviceEntries(text).flatMap(([k, v]) => (k === key ? [v] : []))

/** A unit as installed here: the checkout for /opt/lendgate, this Node for /usr/bin/node, and `paths` for the rest. */
const localised = (text: string, paths: Record<string, string> = {}): string =>
  Object.entries({ '/opt/lendgate': REPO.replace(/\/$/, ''), '/usr/bin/node': process.execPath, ...paths }).reduce(
    (unit, [from, to]) => unit.split(from).join(to),
    text,
  )

/** `NAME=value` lines of an environment file (systemd's EnvironmentFile=): comments and blank lines skipped. */
const environmentFile = (text: string): Record<string, string> =>
  Object.fromEntries(
    text.split('\n').flatMap((line) => {
      const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line)
      return match === null ? [] : [[match[1]!, match[2]!]]
    }),
  )

/** The units' user: a system user, created when missing, when this process is root; otherwise this process's own. */
const serviceUser = (): LocalUser | undefined =>
  process.getuid?.() === 0 ? localUser(SERVICE_USER, ['--system', '--shell', '/usr/sbin/nologin']) : undefined

describe('the systemd units (deploy/systemd)', () => {
  for (const unit of UNITS) {
    it(`${unit} passes systemd-analyze verify without a warning`, () => {
      const dir = mkdtempSync(join(tmpdir(), 'lendgate-units-'))
      try {
        writeFileSync(join(dir, unit), localised(unitText(unit)))
        const result = spawnSync(SYSTEMD_ANALYZE, ['verify', join(dir, unit)], { encoding: 'utf8' })
        expect({ status: result.status, output: `${result.stdout}${result.stderr}`, error: result.error?.message }).to.deep.equal({ status: 0, output: '', error: undefined })
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    })
  }

  it('makes systemd-analyze verify fail on a unit whose ExecStart binary is missing, so the checks above can fail', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lendgate-units-'))
    try {
      writeFileSync(join(dir, UNITS[0]), localised(unitText(UNITS[0]), { [process.execPath]: '/nonexistent/node' }))
      const result = spawnSync(SYSTEMD_ANALYZE, ['verify', join(dir, UNITS[0])], { encoding: 'utf8' })
      expect(result.status).not.to.equal(0)
      expect(result.stderr).to.include('/nonexistent/node')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  for (const unit of UNITS) {
    it(`${unit} runs node itself, as one user, in production, and gives a stop more time than draining takes`, () => {
      const text = unitText(unit)
      const stopSeconds = Number(values(text, 'TimeoutStopSec')[0])
      expect({
        execStart: values(text, 'ExecStart')[0]?.split(' ')[0],
        user: values(text, 'User'),
        environment: values(text, 'Environment'),
        environmentFile: values(text, 'EnvironmentFile'),
        killSignal: values(text, 'KillSignal'),
        killMode: values(text, 'KillMode'),
        stateDirectory: values(text, 'StateDirectory'),
        umask: values(text, 'UMask'),
        memoryDenyWriteExecute: values(text, 'MemoryDenyWriteExecute'),
      }).to.deep.equal({
        execStart: '/usr/bin/node',
        user: ['lendgate'],
        environment: ['NODE_ENV=production', 'DATA_DIR=/var/lib/lendgate', 'MALLOC_MMAP_THRESHOLD_=131072'],
        environmentFile: ['/etc/lendgate/lendgate.env'],
        killSignal: ['SIGTERM'],
        killMode: ['mixed'],
        stateDirectory: ['lendgate'],
        umask: ['0077'],
        memoryDenyWriteExecute: [],
      })
      // Draining: the connections' grace, then the delivery round under way, each attempt bounded by its timeout.
      expect(stopSeconds * 1000).to.be.greaterThan(2 * (DEFAULT_GRACE_MS + WEBHOOK_TIMEOUT_MS))
    })
  }

  describe('run as their ExecStart and environment say, sharing one DATA_DIR', function () {
    this.timeout(180_000)
    let scratch: string
    /** The checkout as installed at /opt/lendgate, where the units' user can read it. */
    let install: string
    const children: ChildProcess[] = []

    before(function () {
      this.timeout(180_000)
      // The units run the compiled build: `pnpm build`'s command, incremental, so the files are this checkout's.
      execFileSync(join(REPO, 'node_modules/.bin/tsc'), ['-b', 'apps/api', 'apps/cli'], { cwd: REPO, stdio: 'inherit' })
      scratch = mkdtempSync(join(tmpdir(), 'lendgate-units-run-'))
      chmodSync(scratch, 0o755)
      // The checkout itself may be in a folder only its owner can pass through (a clone in a fresh
      // `mktemp -d`, a home folder): the install is a copy made of hard links (a full copy on
      // another file system) in a folder every user can reach, as /opt/lendgate is.
      install = join(scratch, 'opt-lendgate')
      try {
        execFileSync('cp', ['-al', REPO, install])
      } catch {
        rmSync(install, { recursive: true, force: true })
        execFileSync('cp', ['-a', REPO, install])
      }
      chmodSync(install, 0o755)
    })

    after(() => {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      rmSync(scratch, { recursive: true, force: true })
    })

    /** Starts `unit`'s ExecStart with its Environment= and EnvironmentFile= settings, as the units' user. */
    const start = (unit: string, paths: Record<string, string>, user: { readonly uid: number; readonly gid: number } | undefined) => {
      const text = localised(unitText(unit), paths)
      const env = {
        ...Object.fromEntries(values(text, 'Environment').map((assignment) => assignment.split(/=(.*)/s).slice(0, 2) as [string, string])),
        ...environmentFile(readFileSync(values(text, 'EnvironmentFile')[0]!, 'utf8')),
      }
      const [command, ...args] = values(text, 'ExecStart')[0]!.split(' ')
      const child = spawn(command!, args, { cwd: values(text, 'WorkingDirectory')[0], env, stdio: ['ignore', 'pipe', 'pipe'], ...user })
      children.push(child)
      let output = ''
      child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
      return { child, output: () => output, exited }
    }

    const ready = async (url: string, run: { readonly output: () => string; readonly exited: Promise<number | null> }): Promise<void> => {
      let exitedWith: number | null | undefined
      void run.exited.then((code) => (exitedWith = code))
      const deadline = Date.now() + 120_000
      for (;;) {
        const status = await fetch(`${url}/health/ready`).then(
          (response) => response.status,
          () => 0,
        )
        if (status === 200) return
        if (exitedWith !== undefined || Date.now() > deadline) throw new Error(`${url} not ready (exit ${exitedWith}):\n${run.output()}`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }

    it('the API and the worker become ready with .env.example, the secrets and the public base URL, and stop on SIGTERM with status 0, the embedded server with them', async () => {
      const user = serviceUser()
      const dataDir = join(scratch, 'state')
      mkdirSync(dataDir, { mode: 0o700 })
      if (user !== undefined) chownSync(dataDir, user.uid, user.gid)
      const [apiPort, workerPort] = [await freePort(), await freePort()]
      const envFile = join(scratch, 'lendgate.env')
      writeFileSync(
        envFile,
        [
          readFileSync(join(REPO, '.env.example'), 'utf8'),
          `PARTNER_MINT_SECRET=${Buffer.alloc(24, 1).toString('base64')}`,
          `INTERNAL_API_TOKEN=${Buffer.alloc(24, 2).toString('base64')}`,
          `WEBHOOK_SECRET_KEY=${Buffer.alloc(32, 3).toString('base64')}`,
          // Production requires it (decision 134): where partners reach the API.
          'PUBLIC_BASE_URL=https://api.lendgate.example',
          `PORT=${apiPort}`,
          `WORKER_PORT=${workerPort}`,
          '',
        ].join('\n'),
        { mode: 0o600 },
      )
      const paths = { '/opt/lendgate': install, '/var/lib/lendgate': dataDir, '/etc/lendgate/lendgate.env': envFile }

      const api = start('lendgate-api.service', paths, user)
      await ready(`http://127.0.0.1:${apiPort}`, api)
      const worker = start('lendgate-worker.service', paths, user)
      await ready(`http://127.0.0.1:${workerPort}`, worker)

      worker.child.kill('SIGTERM')
      expect(await worker.exited, worker.output()).to.equal(0)
      api.child.kill('SIGTERM')
      expect(await api.exited, api.output()).to.equal(0)
      // The last to leave stopped the embedded server: nothing is left for KillMode=mixed to kill.
      expect(existsSync(join(dataDir, 'pgdata', 'postmaster.pid'))).to.equal(false)
      expect(statSync(join(dataDir, 'pgdata', 'PG_VERSION')).uid).to.equal(user?.uid ?? process.getuid?.())
      expect(api.output()).to.include('"production":true')
    })
  })
})
