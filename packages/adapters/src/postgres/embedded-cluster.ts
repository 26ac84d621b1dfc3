import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { closedAncestor, CLUSTER_DIRECTORY, lstatOrUndefined, ownerOnlyDirectory, refuseRedirectedDirectory } from './data-directory.js'
import { EARLIER_SERVER_USER, SERVER_USER, TOOL_ENV, type RootServerUser, type ServerUser } from './embedded-binaries.js'

/** Where an embedded server's cluster is kept, and whose it is (`embedded-server.ts`). */

/**
 * Where the clusters of data directories the server's user cannot reach are kept when Lendgate
 * runs as root, each in a folder named by its data directory's path (`clusterOf`).
 */
export const RELOCATED_CLUSTERS = '/var/lib/lendgate-embedded'
/** What `clusterOf` links `dataDir/pgdata` to, and the only link there it follows. */
const RELOCATED_CLUSTER = new RegExp(`^${RELOCATED_CLUSTERS}/[0-9a-f]{16}/${CLUSTER_DIRECTORY}$`)

/** Whether the server whose `postmaster.pid` is in `cluster` runs, as `pg_ctl status` tells it: its process exists. */
const serverRuns = (cluster: string): boolean => {
  try {
    process.kill(Number(readFileSync(join(cluster, 'postmaster.pid'), 'utf8').split('\n')[0]), 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * The user the server of `cluster` (in `directory`, root's) runs as, handing over a cluster an
 * earlier version ran as the `postgres` user: while its server runs, that user (this process
 * joins it as it is); otherwise the cluster's files of that user and the folders of its group on
 * the way (`directory` 0710, a relocated cluster's folder) become `server`'s, and `server` it is.
 * Only the files the earlier user owns are re-owned, and links themselves, not where they lead:
 * a link or hard link placed there to another user's file leaves that file as it is.
 */
const handOver = (directory: string, cluster: string, server: RootServerUser): { readonly user: ServerUser; readonly note?: string } => {
  const { earlier } = server
  const stat = lstatOrUndefined(cluster)
  if (earlier === undefined || stat?.isDirectory() !== true || stat.uid !== earlier.uid || lstatSync(directory).uid !== process.getuid?.()) return { user: server }
  if (serverRuns(cluster)) return { user: earlier, note: `its server runs as ${EARLIER_SERVER_USER}, as an earlier version started it; the next start hands it over to ${SERVER_USER}` }
  execFileSync('chown', ['-R', `--from=${earlier.uid}`, `${server.uid}:${server.gid}`, cluster], { env: TOOL_ENV })
  for (const folder of new Set([directory, dirname(cluster)])) {
    const { uid, gid } = lstatSync(folder)
    if (gid === earlier.gid) chownSync(folder, uid, server.gid)
  }
  return { user: server, note: `its cluster, run as ${EARLIER_SERVER_USER} by an earlier version, was handed over to ${SERVER_USER}` }
}

/**
 * The cluster of `dataDir`, whose folder is made ready for it (`ownerOnlyDirectory`), the user
 * its server runs as (`handOver`), and what its user should be told. `dataDir` must be where its
 * path says (`refuseRedirectedDirectory`). The cluster is `dataDir/pgdata`, unless this process
 * is root and the server's user cannot pass through a folder above `dataDir` (a checkout under
 * `/root`, which is 0700): the cluster is then kept in `RELOCATED_CLUSTERS/<a hash of dataDir's
 * path>/pgdata`, that folder root's and traversable by the server's group only, and
 * `dataDir/pgdata` is a link to it, so the API, the worker and the CLI on the same `dataDir` find
 * the same cluster, and `ls -l` shows where it is. A `dataDir/pgdata` that already is such a link
 * is followed; a link anywhere else is refused, as root would re-own where it leads.
 */
export const clusterOf = (dataDir: string, server: RootServerUser | undefined): { readonly path: string; readonly notes: readonly string[]; readonly user: ServerUser | undefined } => {
  // Absolute: the socket's directory is the host in the URL, and only a path from `/` is one.
  const directory = resolve(dataDir)
  const link = join(directory, CLUSTER_DIRECTORY)
  refuseRedirectedDirectory(directory)
  mkdirSync(directory, { recursive: true, mode: 0o700 })
  // Again, now that every folder exists: one made by another user meanwhile is refused.
  refuseRedirectedDirectory(directory)
  const existing = lstatOrUndefined(link)
  const linked = existing?.isSymbolicLink() === true ? resolve(directory, readlinkSync(link)) : undefined
  if (linked !== undefined && !RELOCATED_CLUSTER.test(linked)) {
    throw new Error(`${link} is a symbolic link to ${linked}, which Lendgate did not make (it links only into ${RELOCATED_CLUSTERS}): remove the link, or move the cluster it leads to into ${link}.`)
  }
  const { user, note } = server === undefined ? { user: undefined, note: undefined } : handOver(directory, linked ?? link, server)
  const closed = user === undefined ? undefined : closedAncestor(directory, user)
  const elsewhere = linked !== undefined || (closed !== undefined && existing === undefined)
  const { madePrivateFrom } = ownerOnlyDirectory(dataDir, elsewhere ? undefined : user)
  const notes = [
    ...(madePrivateFrom === undefined ? [] : [`the data directory ${directory} was made owner-only (it was 0${madePrivateFrom.toString(8)} and held no database yet)`]),
    ...(note === undefined ? [] : [note]),
  ]
  if (!elsewhere) return { path: link, notes, user }
  if (existing === undefined) {
    const home = join(RELOCATED_CLUSTERS, createHash('sha256').update(directory).digest('hex').slice(0, 16))
    mkdirSync(RELOCATED_CLUSTERS, { recursive: true })
    // Root's; anyone may pass through to a cluster's folder, whose own mode keeps them out; nobody may list them.
    chmodSync(RELOCATED_CLUSTERS, 0o711)
    ownerOnlyDirectory(home, user)
    try {
      symlinkSync(join(home, CLUSTER_DIRECTORY), link)
    } catch (error) {
      // Another process starting on the same data directory linked it first.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
  }
  const path = resolve(directory, readlinkSync(link))
  // A link whose cluster's folder was removed: made again, as for a new link, and the cluster initialised afresh.
  if (!existsSync(dirname(path))) ownerOnlyDirectory(dirname(path), user)
  return { path, notes: [...notes, `its cluster is kept at ${path}, linked from ${link}${closed === undefined ? '' : `: the server's user cannot pass through ${closed}`}`], user }
}

