import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { stopEmbeddedServerOf } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { startFromSource, within, type SourceProcess } from './support/api-process.js'
import { runToEnd } from './support/run-to-end.js'

/**
 * Issue 39: the README runs as pasted. Its walkthrough ("First requests" to the end of
 * servicing) runs in bash against the API started from source on the embedded database, as the
 * quick start starts it (its log written to `.data/api.log`, where the walkthrough reads its
 * verification codes); then, beside the running server, the "Operator CLI" block. The only edits
 * to the README's text: the server's address (a free port, not 3000) and where `.data` is (a
 * temporary folder, not the repository's).
 */

const REPO = fileURLToPath(new URL('../../..', import.meta.url))
const README = readFileSync(join(REPO, 'README.md'), 'utf8')

/** The `sh` blocks of the README between the headings `from` and `to`. */
const shellBlocks = (from: string, to: string): readonly string[] => {
  const start = README.indexOf(`\n${from}\n`)
  const end = README.indexOf(`\n${to}\n`, start)
  if (start < 0 || end < 0) throw new Error(`the README has no section between "${from}" and "${to}"`)
  return [...README.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!)
}

/** Runs `script` in bash from the repository root, stopping at the first failing command. */
const bash = async (script: string, env: Record<string, string>): Promise<{ readonly status: number | null; readonly out: string }> => {
  // A newcomer's shell: none of this process's settings (a DATABASE_URL would point the CLI elsewhere).
  const shell = { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? tmpdir() }
  // Not spawnSync: this process must go on copying the server's log while the script waits for it.
  const run = await runToEnd('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd: REPO, env: { ...shell, ...env }, timeoutMs: 240_000 })
  return { status: run.code, out: `${run.stdout}${run.stderr}` }
}

describe('the README, run as pasted', function () {
  this.timeout(300_000)
  let root: string
  let server: SourceProcess | undefined
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'lendgate-readme-'))
    // Open to pass through, as a checkout is: run as root, the embedded server's user must reach `.data`.
    chmodSync(root, 0o755)
    mkdirSync(join(root, '.data'), { mode: 0o700 })
  })
  after(async () => {
    server?.child.kill('SIGKILL')
    await stopEmbeddedServerOf(join(root, '.data'))
    rmSync(root, { recursive: true, force: true })
  })

  it('walks a borrower from the first mint to a payment, then the operator CLI reads what it made', async () => {
    const data = join(root, '.data')
    server = startFromSource('src/main.ts', { PORT: '0', DATA_DIR: data })
    // What `npx -y pnpm@10.34.8 start | tee -i .data/api.log` does.
    server.child.stdout!.on('data', (chunk: Buffer) => appendFileSync(join(data, 'api.log'), chunk))
    const url = await within(90_000, server.url)
    const pasted = (block: string): string => block.replaceAll('http://127.0.0.1:3000', url).replaceAll('./.data/', `${data}/`).replaceAll('.data/api.log', join(data, 'api.log'))

    const blocks = shellBlocks('## First requests', '## Partner quick-start')
    expect(blocks).to.have.length.greaterThan(4)
    const [cli] = shellBlocks('## Operator CLI', '## Configuration')
    expect(cli).to.include('lendgate keys list')
    // The CLI block runs later in the walkthrough's shell: the walkthrough's variables it uses are kept.
    const carried = [...new Set([...cli!.matchAll(/\$([A-Z][A-Z_]*)\b/g)].map((match) => match[1]!))]
    const keep = carried.map((name) => `printf '%s=%q\\n' ${name} "$${name}" >> ${join(root, 'shell.sh')}`).join('\n')
    const walk = await bash([...blocks, keep].map(pasted).join('\n'), {})
    expect(walk.status, walk.out).to.equal(0)
    expect(walk.out, 'an error answer').to.not.include('"error":')
    for (const seen of ['"status":"SUBMITTED"', '"status":"APPROVED"', '"status":"SUCCEEDED"', '"type":"PAYMENT"']) expect(walk.out, seen).to.include(seen)

    const operator = await bash(`source ${join(root, 'shell.sh')}\n${pasted(cli!)}`, { DATA_DIR: data })
    expect(operator.status, operator.out).to.equal(0)
    // The CLI prints its JSON indented.
    const printed = operator.out.replace(/":\s+/g, '":')
    expect(printed, 'an error answer').to.not.include('"error":')
    // The approved session (sessions list), its party.ready event (webhooks deliveries $S), the booked application (applications list) and the new client's key (keys list).
    for (const seen of ['"current_step":"REVIEW"', '"type":"party.ready"', '"loan_id":"', '"key_prefix":"lgk_live_']) expect(printed, seen).to.include(seen)

    // The server served on beside the CLI, and stops with its database.
    expect((await fetch(`${url}/health/ready`)).status).to.equal(200)
    server.child.kill('SIGTERM')
    expect(await within(30_000, server.exited)).to.equal(0)
    server = undefined
    expect(existsSync(join(data, 'pgdata', 'postmaster.pid')), 'the embedded server still running').to.equal(false)
  })
})
