import { chmodSync, chownSync, existsSync, mkdirSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

/** Group and others' permission bits: none may be set on the embedded database's directory. */
const GROUP_OR_OTHERS = 0o077
/** The one bit allowed, for the server's group when the embedded server runs as another user: traversal. */
const GROUP_TRAVERSE = 0o010

/** The embedded database's cluster inside a data directory: what makes the directory hold data. */
export const CLUSTER_DIRECTORY = 'pgdata'

const octal = (mode: number): string => `0${(mode & 0o777).toString(8)}`

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
