import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readlinkSync, realpathSync, statSync, type Stats } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

/** Group and others' permission bits: none may be set on the embedded database's directory. */
const GROUP_OR_OTHERS = 0o077
/** The one bit allowed, for the server's group when the embedded server runs as another user: traversal. */
const GROUP_TRAVERSE = 0o010

/** The embedded database's cluster inside a data directory: what makes the directory hold data. */
export const CLUSTER_DIRECTORY = 'pgdata'

const octal = (mode: number): string => `0${(mode & 0o777).toString(8)}`

/** Write permission for group or others. */
const GROUP_OR_OTHERS_WRITE = 0o022
/** The sticky bit: in a directory others may write to, only an entry's owner may rename or remove it (as in `/tmp`). */
const STICKY = 0o1000

/** What `lstat` tells of `path`, or undefined when nothing is there. */
export const lstatOrUndefined = (path: string): Stats | undefined => {
  try {
    return lstatSync(path)
  } catch {
    return undefined
  }
}

/** `path` and each folder above it, from `/` down. */
const components = (path: string): string[] => {
  const found: string[] = []
  for (let at = resolve(path); ; at = dirname(at)) {
    found.unshift(at)
    if (at === dirname(at)) return found
  }
}

/** Why another user could change what `stat`'s entry leads to, if one could: it is theirs, or they may write to it and it is not sticky. */
const openToOthers = (stat: Stats, self: number): string | undefined => {
  if (stat.uid !== 0 && stat.uid !== self) return `it belongs to another user (uid ${stat.uid})`
  if (stat.isDirectory() && (stat.mode & GROUP_OR_OTHERS_WRITE) !== 0 && (stat.mode & STICKY) === 0) return `group or others may write to it (mode ${octal(stat.mode)}) and it is not sticky`
  return undefined
}

/**
 * Refuses a data directory that another user could redirect: Lendgate makes its data directory
 * owner-only, and as root re-owns it to the server's group and writes the cluster there, so it
 * must be where its path says.
 *
 * - `path` itself must not be a symbolic link, whoever made it: its real path is to be given.
 * - When this process is root, every folder above it (each existing component of the path, and
 *   of its real path if a link on the way leads elsewhere) must be root's or this user's, and one
 *   group or others may write to must be sticky (as `/tmp` is, where only an entry's owner may
 *   rename it). Another user's folder, or a link in it, could otherwise be swapped for one
 *   leading anywhere between this check and the writes. (A user other than root can re-own
 *   nothing that is not theirs.)
 */
export const refuseRedirectedDirectory = (path: string): void => {
  const own = lstatOrUndefined(path)
  if (own?.isSymbolicLink() === true) {
    throw new Error(`The data directory ${path} is a symbolic link (to ${readlinkSync(path)}): set DATA_DIR to a directory's real path, not a link to it.`)
  }
  const self = process.getuid?.()
  if (self !== 0) return
  // The data directory's own owner and mode are `ownerOnlyDirectory`'s to check.
  const existing = components(dirname(resolve(path))).filter((component) => lstatOrUndefined(component) !== undefined)
  const real = realpathSync(existing.at(-1)!)
  for (const component of new Set([...existing, ...components(real)])) {
    const reason = openToOthers(lstatSync(component), self)
    if (reason !== undefined) {
      throw new Error(`The data directory ${path} is under ${component}, in which another user could put a link elsewhere in place of what follows: ${reason}. Use a data directory under folders only root may change.`)
    }
  }
}

/**
 * The data directory of the embedded database, ready for it: created owner-only (0700) when it
 * does not exist. One that exists with group or others' permissions is made owner-only while it
 * holds no cluster yet (as PostgreSQL's `initdb` fixes an existing directory: a folder made with
 * `mkdir` under the default umask is 0755), and refused once it holds one, as is a directory of
 * another user. The database holds applicant data, key hashes and balances; a directory other
 * local users could enter may already have exposed them, which is for its owner to look into.
 *
 * `server`: the user the embedded server runs as when this process is root (PostgreSQL refuses
 * to run as root), when that user must pass through this directory to its cluster. Its group,
 * and no other, may then traverse the directory: it is made 0710, of that group. Every directory
 * above it must let that user through too; the open is refused, naming the first that does not.
 *
 * Returns what it changed, to be told where the server is opened.
 */
export const ownerOnlyDirectory = (path: string, server?: { readonly uid: number; readonly gid: number }): { readonly madePrivateFrom: number | undefined } => {
  const serverGid = server?.gid
  mkdirSync(path, { recursive: true, mode: 0o700 })
  const { mode, uid, gid } = statSync(path)
  if (process.getuid !== undefined && uid !== process.getuid()) {
    throw new Error(`The data directory ${path} belongs to another user (uid ${uid}); the embedded database must own its directory.`)
  }
  const shared = mode & GROUP_OR_OTHERS
  const serverMayTraverse = serverGid !== undefined && (shared === 0 || (shared === GROUP_TRAVERSE && gid === serverGid))
  let madePrivateFrom: number | undefined
  if (shared !== 0 && !serverMayTraverse) {
    if (existsSync(join(path, CLUSTER_DIRECTORY))) {
      throw new Error(
        `The data directory ${path} holds an embedded database and can be reached by group or others (mode ${octal(mode)}): the database holds applicant data and key hashes. Run: chmod 700 ${path}`,
      )
    }
    chmodSync(path, 0o700)
    madePrivateFrom = mode & 0o777
  }
  if (serverGid !== undefined) {
    chownSync(path, uid, serverGid)
    chmodSync(path, 0o700 | GROUP_TRAVERSE)
    const closed = closedAncestor(resolve(path), server!)
    if (closed !== undefined) {
      throw new Error(
        `The embedded database runs as another user (uid ${server!.uid}) when Lendgate runs as root, and it cannot pass through ${closed}, above the data directory ${path}: use a data directory it can reach, or run Lendgate as another user.`,
      )
    }
  }
  return { madePrivateFrom }
}

/** The nearest directory above `path` that `user` may not pass through, if any. */
export const closedAncestor = (path: string, user: { readonly uid: number; readonly gid: number }): string | undefined => {
  for (let directory = dirname(path); ; directory = dirname(directory)) {
    const { mode, uid, gid } = statSync(directory)
    // One class of bits applies, as Unix checks them: the owner's, else the group's, else others'.
    const passes = (mode & (uid === user.uid ? 0o100 : gid === user.gid ? 0o010 : 0o001)) !== 0
    if (!passes) return directory
    if (directory === dirname(directory)) return undefined
  }
}
