import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { CLUSTER_DIRECTORY, lstatOrUndefined } from './data-directory.js'
import { alive, binaries, orUndefined, run, runnableBy, serverUser } from './embedded-binaries.js'
import { RELOCATED_CLUSTERS } from './embedded-cluster.js'

/** Throwaway data directories (`pglite://memory`, tests): made, swept and discarded. */

/** Settings for a cluster whose data is thrown away (tests, `pglite://memory`): no syncs, as a crash loses nothing worth keeping. */
export const THROWAWAY_SETTINGS: Readonly<Record<string, string>> = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' }

/** Where throwaway data directories are made: folders of the system's temporary directory whose names start so. */
const THROWAWAY_PREFIX = 'lendgate-memory-'
/** The file that marks a folder as a throwaway data directory, holding the pid of the process that made it. */
const THROWAWAY_MARKER = 'lendgate-throwaway.pid'

/**
 * Removes a throwaway data directory: stops its server at once if one runs (`-m immediate`:
 * nothing in it is kept), then removes it, and its cluster's folder when that was kept under
 * `RELOCATED_CLUSTERS`.
 */
export const discardThrowawayDataDir = async (dataDir: string): Promise<void> => {
  const link = join(dataDir, CLUSTER_DIRECTORY)
  const path = orUndefined(() => realpathSync(link))
  if (path !== undefined && existsSync(join(path, 'postmaster.pid'))) {
    const user = await serverUser()
    await run(runnableBy(await binaries(), user).pg_ctl, ['-D', path, '-m', 'immediate', '-w', '-s', 'stop'], user).catch(() => undefined)
  }
  if (path !== undefined && dirname(dirname(path)) === RELOCATED_CLUSTERS) rmSync(dirname(path), { recursive: true, force: true })
  rmSync(dataDir, { recursive: true, force: true })
}

/**
 * A new throwaway data directory (`pglite://memory`), marked as one with this process's pid. The
 * throwaways of processes that died without removing theirs (`kill -9`) are discarded first
 * (`discardThrowawayDataDir`): only folders of this user with the prefix and the marker, whose
 * maker no longer runs.
 */
export const throwawayDataDir = async (): Promise<string> => {
  for (const name of readdirSync(tmpdir())) {
    const folder = join(tmpdir(), name)
    if (!name.startsWith(THROWAWAY_PREFIX)) continue
    const stats = lstatOrUndefined(folder)
    if (stats?.isDirectory() !== true || stats.uid !== process.getuid?.()) continue
    const maker = Number(orUndefined(() => readFileSync(join(folder, THROWAWAY_MARKER), 'utf8')))
    if (!Number.isSafeInteger(maker) || maker <= 0 || alive(maker)) continue
    await discardThrowawayDataDir(folder)
  }
  const dataDir = mkdtempSync(join(tmpdir(), THROWAWAY_PREFIX))
  writeFileSync(join(dataDir, THROWAWAY_MARKER), String(process.pid))
  return dataDir
}
