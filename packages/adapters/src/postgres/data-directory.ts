import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

/** Group and others' permission bits: none may be set on the embedded database's directory. */
const GROUP_OR_OTHERS = 0o077

const octal = (mode: number): string => `0${(mode & 0o777).toString(8)}`

/**
 * The data directory of the embedded database, ready for it: created owner-only (0700) when it
 * does not exist, and refused, as PostgreSQL refuses its own, when it exists with any group or
 * others' permission or belongs to another user. The database holds applicant data, key hashes
 * and balances; a directory other local users can enter exposes all of them.
 */
export const ownerOnlyDirectory = (path: string): void => {
  mkdirSync(path, { recursive: true, mode: 0o700 })
  const { mode, uid } = statSync(path)
  if (process.getuid !== undefined && uid !== process.getuid()) {
    throw new Error(`The data directory ${path} belongs to another user (uid ${uid}); the embedded database must own its directory.`)
  }
  if ((mode & GROUP_OR_OTHERS) !== 0) {
    throw new Error(
      `The data directory ${path} can be reached by group or others (mode ${octal(mode)}): the embedded database holds applicant data and key hashes. Run: chmod 700 ${path}`,
    )
  }
}

/**
 * Makes everything under `path` owner-only: directories 0700, files 0600. The embedded engine
 * writes its files world-readable and writable (0666) whatever the process's umask, so this
 * runs when the database opens and when it closes.
 */
export const restrictToOwner = (path: string): void => {
  for (const entry of readdirSync(path, { recursive: true, withFileTypes: true })) {
    const full = join(entry.parentPath, entry.name)
    if (entry.isDirectory()) chmodSync(full, 0o700)
    else if (entry.isFile()) chmodSync(full, 0o600)
  }
}
