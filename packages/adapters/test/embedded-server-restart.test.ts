import { spawnSync } from 'node:child_process'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'chai'
import { alive, pause } from '../src/postgres/embedded-binaries.js'
import { useEmbeddedServer } from '../src/postgres/embedded-server.js'
import { postmasterPidOf } from '../src/testing/test-databases.js'

describe('the embedded server started again after its postmaster is killed', () => {
  let root = ''
  before(() => {
    // Open to others to pass through, as a home directory is: the data directory is inside.
    root = mkdtempSync(join(tmpdir(), 'lendgate-restart-test-'))
    chmodSync(root, 0o755)
  })
  // A server still stopping may write into its folder while it is removed: try again a few times.
  after(() => rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 }))

  it('is stopped by a release that comes while the restart is starting it, before the release returns', async function () {
    this.timeout(120_000)
    const server = await useEmbeddedServer(join(root, 'data'))
    const postmaster = (): number | undefined => postmasterPidOf(server.path)
    const killed = postmaster()!
    process.kill(killed, 'SIGKILL')
    // The killed server leaves its postmaster.pid: the restart's server is the one that replaces it.
    let restarted: number | undefined
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await pause(10)) {
      restarted = postmaster()
      if (restarted !== undefined && restarted !== killed && alive(restarted)) break
    }
    expect(restarted, 'the server started again').to.be.a('number').and.not.equal(killed)

    // The restart has not yet taken this process's share of its server (it waits for it to be ready).
    await server.release()
    expect(postmaster(), 'postmaster.pid of a server left running').to.equal(undefined)
    for (const deadline = Date.now() + 15_000; alive(restarted!) && Date.now() < deadline; ) await pause(100)
    const state = spawnSync('ps', ['-o', 'pid,ppid,stat,user,args', '-p', String(restarted)], { encoding: 'utf8' }).stdout.trim()
    expect(alive(restarted!), `the restarted postmaster exits\n${state}`).to.equal(false)
  })
})
