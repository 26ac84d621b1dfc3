import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, chownSync, copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'chai'
import { freePort, postmasterPidOf } from '@lendgate/adapters/testing'
import { within } from './support/api-process.js'
import { localUser, type LocalUser } from './support/local-users.js'
import { runToEnd } from './support/run-to-end.js'

/**
 * Issue 52, first contact: the README's quick start and walkthrough, run as a newcomer runs them,
 * from outside. A fresh copy of the repository (what `git clone` gives, with this working tree's
 * changes), an empty npm cache (a new `HOME`), nothing set but the port; the quick start's
 * command as pasted (`npx … install … && mkdir -p .data && npx … start | tee -i .data/api.log`),
 * in a process group of its own, as a terminal runs it. Requests go out the moment `/health`
 * answers; then 30 mints in a row with the right secret; then the walkthrough's blocks ("First
 * requests" to the end of servicing) as pasted, then the "Operator CLI" block beside the server;
 * then Ctrl-C (SIGINT to the group), which must stop the API and its database cleanly. The only
 * edit to the README's text is the server's address (a free port, not 3000).
 *
 * Run as root (as CI is), two newcomers: root, from a checkout in a 0700 home folder (as under
 * `/root` on a fresh VM), and an ordinary user whose `.data` was made by `mkdir` (0755). Run as
 * another user, that user, with such a `.data`.
 */

const REPO = fileURLToPath(new URL('../../..', import.meta.url))
const README = readFileSync(join(REPO, 'README.md'), 'utf8')
/** The ordinary user the root-run test creates, when missing, to be the second newcomer. */
const ORDINARY_USER = 'lendgate-newcomer'

/** The `sh` blocks of the README between the headings `from` and `to`. */
const shellBlocks = (from: string, to: string): readonly string[] => {
  const start = README.indexOf(`\n${from}\n`)
  const end = README.indexOf(`\n${to}\n`, start)
  if (start < 0 || end < 0) throw new Error(`the README has no section between "${from}" and "${to}"`)
  return [...README.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!)
}

/** The repository as a clone holds it: every file git tracks or would track (this working tree's), none it ignores (no node_modules, no .data). */
const copyRepositoryTo = (target: string): void => {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO }).toString().split('\0')
  for (const file of files.filter((name) => name !== '' && existsSync(join(REPO, name)))) {
    mkdirSync(dirname(join(target, file)), { recursive: true })
    copyFileSync(join(REPO, file), join(target, file))
  }
}

/** The ordinary user, created when missing (this process is root). */
const ordinaryUser = (): LocalUser => localUser(ORDINARY_USER, ['--shell', '/bin/bash'])

/** Who runs the quick start, from where. */
type Newcomer = {
  readonly user: { readonly uid: number; readonly gid: number } | undefined
  /** Their `HOME`: an empty npm cache. */
  readonly home: string
  readonly checkout: string
  /** Everything made for this newcomer, removed after. */
  readonly scratch: string
}

/** Root, with a checkout inside a 0700 folder, as `/root` is. */
const rootInClosedHome = (): Newcomer => {
  const home = mkdtempSync(join(tmpdir(), 'lendgate-root-home-'))
  chmodSync(home, 0o700)
  const checkout = join(home, 'lendgate')
  copyRepositoryTo(checkout)
  return { user: undefined, home, checkout, scratch: home }
}

/** A user (another one when this process is root) whose checkout and `.data` are their own, `.data` made by `mkdir` (0755). */
const userWithMkdirData = (): Newcomer => {
  const user = process.getuid?.() === 0 ? ordinaryUser() : undefined
  const scratch = mkdtempSync(join(tmpdir(), 'lendgate-user-'))
  chmodSync(scratch, 0o755)
  const home = join(scratch, 'home')
  const checkout = join(scratch, 'lendgate')
  mkdirSync(home, { mode: 0o700 })
  copyRepositoryTo(checkout)
  mkdirSync(join(checkout, '.data'))
  chmodSync(join(checkout, '.data'), 0o755)
  if (user !== undefined) execFileSync('chown', ['-R', `${user.uid}:${user.gid}`, home, checkout])
  return { user, home, checkout, scratch }
}

/** The quick start's command, running in a process group of its own, as a terminal's foreground job. */
type QuickStart = { readonly child: ChildProcess; readonly output: () => string; readonly exited: Promise<number | null> }

const startQuickStart = (newcomer: Newcomer, port: number): QuickStart => {
  const [command] = shellBlocks('## Quick start', '## First requests')
  expect(command).to.include('npx -y pnpm@10.34.8 start | tee -i .data/api.log')
  const child = spawn('bash', ['-c', command!], {
    cwd: newcomer.checkout,
    env: { PATH: process.env['PATH'] ?? '', HOME: newcomer.home, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    ...newcomer.user,
  })
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { child, output: () => output, exited }
}

/** Polls `/health` every 20 ms until it answers 200. */
const untilHealthy = async (url: string, quickStart: QuickStart): Promise<void> => {
  for (;;) {
    const status = await fetch(`${url}/health`).then(
      (response) => response.status,
      () => 0,
    )
    if (status === 200) return
    if (quickStart.child.exitCode !== null || quickStart.child.signalCode !== null) throw new Error(`the quick start ended (${quickStart.child.exitCode ?? quickStart.child.signalCode}):\n${quickStart.output()}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const PARTNER_PARTY = '0b6a3f2e-8f5c-4d8e-9a37-1c2d3e4f5a6b'

const mint = (url: string, secret: string, clientName: string) =>
  fetch(`${url}/public/partner/api-keys`, {
    method: 'POST',
    headers: { 'X-Partner-Mint-Key': secret, 'Content-Type': 'application/json' },
    body: JSON.stringify({ party_id: PARTNER_PARTY, client_name: clientName }),
  })

/** Runs `script` in bash as the newcomer, in their checkout, stopping at the first failing command. */
const bashAs = async (newcomer: Newcomer, script: string): Promise<{ readonly status: number | null; readonly out: string }> => {
  // A newcomer's shell: none of this process's settings (a DATABASE_URL would point the CLI elsewhere).
  const env = { PATH: process.env['PATH'] ?? '', HOME: newcomer.home }
  const run = await runToEnd('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd: newcomer.checkout, env, timeoutMs: 240_000, ...(newcomer.user === undefined ? {} : { user: newcomer.user }) })
  return { status: run.code, out: `${run.stdout}${run.stderr}` }
}

/** SIGKILL to the process group `pgid`, if any process of it is left. */
const killGroup = (pgid: number): void => {
  try {
    process.kill(-pgid, 'SIGKILL')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error
  }
}

const lstatOrUndefined = (path: string) => {
  try {
    return lstatSync(path)
  } catch {
    return undefined
  }
}

/** Stops the server left running on `cluster` by a failed run (whoever's it is): a fast shutdown, as `pg_ctl stop -m fast` asks. */
const stopServerOf = async (cluster: string): Promise<void> => {
  const pidFile = join(cluster, 'postmaster.pid')
  const pid = postmasterPidOf(cluster)
  if (pid === undefined) return
  try {
    process.kill(pid, 'SIGINT')
  } catch {
    return
  }
  for (let waited = 0; waited < 30_000 && existsSync(pidFile); waited += 100) await new Promise((resolve) => setTimeout(resolve, 100))
}

const newcomers: readonly { readonly title: string; readonly make: () => Newcomer; readonly root: boolean }[] =
  process.getuid?.() === 0
    ? [
        { title: 'root, from a checkout in a 0700 home folder, nothing set', make: rootInClosedHome, root: true },
        { title: `an ordinary user (${ORDINARY_USER}), with a .data made by mkdir (0755)`, make: userWithMkdirData, root: false },
      ]
    : [{ title: 'this user, with a .data made by mkdir (0755)', make: userWithMkdirData, root: false }]

describe('first contact: the README quick start and walkthrough, run as pasted by a newcomer (issue 52)', function () {
  this.timeout(600_000)

  for (const { title, make, root } of newcomers) {
    describe(title, () => {
      let newcomer: Newcomer
      let quickStart: QuickStart | undefined

      before(() => {
        newcomer = make()
      })
      after(async () => {
        // What is left of the quick start's group after a failure (none once Ctrl-C stopped it: the group is gone).
        if (quickStart !== undefined) killGroup(quickStart.child.pid!)
        const cluster = join(newcomer.checkout, '.data', 'pgdata')
        await stopServerOf(cluster)
        const link = lstatOrUndefined(cluster)?.isSymbolicLink() === true ? readlinkSync(cluster) : undefined
        rmSync(newcomer.scratch, { recursive: true, force: true })
        if (link !== undefined) rmSync(dirname(link), { recursive: true, force: true })
      })

      it('installs and serves from an empty npm cache, answers at once, mints 30 keys in a row, walks a borrower to a payment, runs the CLI beside it, and stops cleanly on Ctrl-C', async () => {
        const port = await freePort()
        const url = `http://127.0.0.1:${port}`
        quickStart = startQuickStart(newcomer, port)
        const started = quickStart
        await within(300_000, untilHealthy(url, started))

        // The moment /health answers: a key minted and used, not a 503.
        const secrets = JSON.parse(readFileSync(join(newcomer.checkout, '.data', 'dev-secrets.json'), 'utf8')) as { partner_mint_secret: string }
        const first = await mint(url, secrets.partner_mint_secret, 'first-contact')
        expect(first.status, await first.clone().text()).to.equal(201)
        const { api_key: key } = (await first.json()) as { api_key: string }
        const listed = await fetch(`${url}/public/partner/api-keys`, { headers: { Authorization: `Bearer ${key}` } })
        expect(listed.status, await listed.clone().text()).to.equal(200)

        // A partner backend approving borrowers: the right secret is not throttled.
        const statuses: number[] = []
        for (let i = 0; i < 30; i++) statuses.push((await mint(url, secrets.partner_mint_secret, `borrower-${i}`)).status)
        expect(statuses).to.deep.equal(Array.from({ length: 30 }, () => 201))

        // Where the database is, and what was done to `.data`.
        const data = join(newcomer.checkout, '.data')
        const log = readFileSync(join(data, 'api.log'), 'utf8')
        if (root) {
          const relocated = dirname(readlinkSync(join(data, 'pgdata')))
          expect(relocated.startsWith('/var/lib/lendgate-embedded/'), relocated).to.equal(true)
          expect(log).to.include(`its cluster is kept at ${join(relocated, 'pgdata')}, linked from ${join(data, 'pgdata')}`)
        } else {
          expect(lstatSync(join(data, 'pgdata')).isDirectory()).to.equal(true)
          expect(log).to.include(`the data directory ${data} was made owner-only (it was 0755 and held no database yet)`)
        }
        expect(statSync(data).mode & 0o777).to.equal(0o700)

        // The walkthrough, as pasted, in a second terminal at the checkout's root.
        const pasted = (block: string): string => block.replaceAll('http://127.0.0.1:3000', url)
        const blocks = shellBlocks('## First requests', '## Partner quick-start')
        expect(blocks).to.have.length.greaterThan(4)
        const [cli] = shellBlocks('## Operator CLI', '## Configuration')
        expect(cli).to.include('lendgate keys list')
        // The CLI block runs later in the walkthrough's shell: the walkthrough's variables it uses are kept.
        const carried = [...new Set([...cli!.matchAll(/\$([A-Z][A-Z_]*)\b/g)].map((match) => match[1]!))]
        const keep = carried.map((name) => `printf '%s=%q\\n' ${name} "$${name}" >> walkthrough-shell.sh`).join('\n')
        // The newcomer's shell finds the Node.js this suite runs on (CI runs it on several).
        const runtime = await bashAs(newcomer, 'node --version')
        expect(runtime.out.trim(), 'the node on the newcomer\'s PATH').to.equal(process.version)
        const walk = await bashAs(newcomer, [...blocks, keep].map(pasted).join('\n'))
        expect(walk.status, walk.out).to.equal(0)
        expect(walk.out, 'an error answer').to.not.include('"error":')
        for (const seen of ['"status":"SUBMITTED"', '"status":"APPROVED"', '"status":"SUCCEEDED"', '"type":"PAYMENT"']) expect(walk.out, seen).to.include(seen)

        const operator = await bashAs(newcomer, `source walkthrough-shell.sh\n${pasted(cli!)}`)
        expect(operator.status, operator.out).to.equal(0)
        // The CLI prints its JSON indented.
        const printed = operator.out.replace(/":\s+/g, '":')
        expect(printed, 'an error answer').to.not.include('"error":')
        // The approved session (sessions list), its party.ready event (webhooks deliveries $S), the booked application (applications list), the new client's key (keys list), the operator added and the backup.
        for (const seen of ['"current_step":"REVIEW"', '"type":"party.ready"', '"loan_id":"', '"key_prefix":"lgk_live_', '"role":"reviewer"', '"file":"lendgate-backup.jsonl.gz"']) expect(printed, seen).to.include(seen)
        expect((await fetch(`${url}/health/ready`)).status).to.equal(200)

        // Ctrl-C: SIGINT to the terminal's foreground group. The API says it is shutting down, no
        // wrapper reports a failure, and its database stops with it; even when the API is slow to
        // take the signal, as on a loaded machine (here stopped for half a second): no wrapper
        // between pnpm and it may kill it meanwhile.
        const cluster = join(data, 'pgdata')
        const api = Number(execFileSync('pgrep', ['-n', '-g', String(started.child.pid), '-f', 'apps/api/src/main.ts'], { encoding: 'utf8' }).trim())
        process.kill(api, 'SIGSTOP')
        process.kill(-started.child.pid!, 'SIGINT')
        await new Promise((resolve) => setTimeout(resolve, 500))
        // Gone already if something killed it: the checks below say what is missing.
        try {
          process.kill(api, 'SIGCONT')
        } catch {}
        await within(30_000, started.exited)
        const output = started.output()
        expect(output).to.include('"msg":"shutting down"')
        expect(output).to.not.include('ELIFECYCLE')
        expect(output).to.not.match(/update available/i)
        expect(existsSync(join(cluster, 'postmaster.pid')), 'the embedded server still running').to.equal(false)
      })
    })
  }
})
