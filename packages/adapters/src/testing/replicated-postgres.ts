import { execFile, execFileSync } from 'node:child_process'
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { freePort } from './free-port.js'

const run = promisify(execFile)

/**
 * A PostgreSQL primary and a streaming replica of it (issue 61: read replicas), made from the
 * machine's PostgreSQL server binaries (Debian's `postgresql` package: `initdb`, `pg_basebackup`,
 * `pg_ctl`) in a folder of its own, each on a free port of 127.0.0.1 with trust authentication.
 * As root the clusters belong to, and run as, the `postgres` user, as PostgreSQL requires.
 */
export type ReplicatedPostgres = {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` of the primary. */
  readonly primaryUrl: string
  /** The same of the replica: read-only, replaying the primary's WAL as it streams. */
  readonly replicaUrl: string
  /** Stops the replica at once (`pg_ctl stop -m immediate`: its connections drop, as a crash drops them). */
  readonly killReplica: () => Promise<void>
  /** Starts the replica again: it resumes streaming where it stopped. */
  readonly startReplica: () => Promise<void>
  /** Stops both and removes their folder. */
  readonly stop: () => Promise<void>
}

/** The newest PostgreSQL server's binaries on this machine (`PG_BIN_DIR` to choose another). */
const serverBinaries = (): string => {
  const chosen = process.env['PG_BIN_DIR']
  if (chosen !== undefined) return chosen
  const root = '/usr/lib/postgresql'
  const versions = existsSync(root) ? readdirSync(root).filter((v) => /^\d+$/.test(v) && existsSync(join(root, v, 'bin', 'pg_basebackup'))) : []
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0]
  if (newest === undefined) throw new Error(`no PostgreSQL server binaries under ${root} (Debian's postgresql package has them); set PG_BIN_DIR to a folder holding initdb, pg_ctl and pg_basebackup`)
  return join(root, newest, 'bin')
}

/** Who the clusters run as: the `postgres` user when this process is root, else this process's user. */
const serverUser = (): { readonly uid: number; readonly gid: number } | undefined => {
  if (process.getuid?.() !== 0) return undefined
  const id = (flag: string): number => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim())
  return { uid: id('-u'), gid: id('-g') }
}

/** Starts a primary and a replica of it; `stop` them when done. */
export const startReplicatedPostgres = async (): Promise<ReplicatedPostgres> => {
  const bin = serverBinaries()
  const user = serverUser()
  const folder = mkdtempSync(join(tmpdir(), 'lendgate-replicated-'))
  if (user !== undefined) chownSync(folder, user.uid, user.gid)
  const tool = (name: string, args: readonly string[]) => run(join(bin, name), [...args], { ...(user === undefined ? {} : user), cwd: folder, env: { PATH: process.env['PATH'] ?? '', LC_ALL: 'C' } })
  const [primaryPort, replicaPort] = [await freePort(), await freePort()]
  const primary = join(folder, 'primary')
  const replica = join(folder, 'replica')
  const options = (port: number) => `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c fsync=off`
  const start = (cluster: string, port: number) => tool('pg_ctl', ['-D', cluster, '-o', options(port), '-l', `${cluster}.log`, '-w', 'start'])
  const stopCluster = (cluster: string, mode: 'fast' | 'immediate') => tool('pg_ctl', ['-D', cluster, '-m', mode, '-w', 'stop'])
  try {
    await tool('initdb', ['-D', primary, '-U', 'postgres', '--auth=trust', '--no-sync'])
    appendFileSync(join(primary, 'pg_hba.conf'), 'host replication all 127.0.0.1/32 trust\n')
    await start(primary, primaryPort)
    await tool('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', replica, '--write-recovery-conf', '--wal-method=stream', '--no-sync'])
    await start(replica, replicaPort)
  } catch (error) {
    for (const cluster of [replica, primary]) await stopCluster(cluster, 'immediate').catch(() => undefined)
    rmSync(folder, { recursive: true, force: true })
    throw error
  }
  return {
    primaryUrl: `postgres://postgres@127.0.0.1:${primaryPort}/postgres`,
    replicaUrl: `postgres://postgres@127.0.0.1:${replicaPort}/postgres`,
    killReplica: async () => void (await stopCluster(replica, 'immediate')),
    startReplica: async () => void (await start(replica, replicaPort)),
    stop: async () => {
      for (const cluster of [replica, primary]) await stopCluster(cluster, 'fast').catch(() => undefined)
      rmSync(folder, { recursive: true, force: true })
    },
  }
}
