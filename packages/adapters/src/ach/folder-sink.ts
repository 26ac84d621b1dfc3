import { randomBytes } from 'node:crypto'
import { link, open, readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { AchFileSink, FileNameTaken, SinkUnavailable } from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'

/** A file name the sink accepts: no separator, no dot first (nothing hidden, nothing outside the folder). */
const FILE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$/

const unavailable = (cause: unknown): SinkUnavailable => ({ _tag: 'SinkUnavailable', cause })

/** Writes `bytes` to `path` (a new file, owner-only) and flushes it to disk. */
const writeFlushed = async (path: string, bytes: Uint8Array): Promise<void> => {
  const file = await open(path, 'wx', 0o600)
  try {
    await file.writeFile(bytes)
    await file.sync()
  } finally {
    await file.close()
  }
}

/** Flushes the folder `dir`, so a name made in it survives a crash. */
const syncFolder = async (dir: string): Promise<void> => {
  const folder = await open(dir, 'r')
  try {
    await folder.sync()
  } finally {
    await folder.close()
  }
}

/**
 * Bank files in the folder `dir` (ACH_OUTBOX_DIR), which must exist. A file is written under a
 * temporary name, flushed, then linked to its name, which fails if the name is taken, so a file is
 * never replaced and two writers racing for a name leave one file; the folder is flushed after.
 * A name already taken holds either the same bytes (a no-op) or others (`FileNameTaken`).
 */
export const folderSink = (dir: string): AchFileSink => ({
  put: (name, bytes) => async () => {
    if (!FILE_NAME.test(name)) return E.left(unavailable(new Error(`folderSink: ${JSON.stringify(name)} is not a file name it writes`)))
    const path = join(dir, name)
    const partial = join(dir, `.${name}.${randomBytes(6).toString('hex')}.partial`)
    try {
      await writeFlushed(partial, bytes)
      try {
        await link(partial, path)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
        const there = await readFile(path)
        return Buffer.compare(there, bytes) === 0 ? E.right(undefined) : E.left<FileNameTaken>({ _tag: 'FileNameTaken', name })
      }
      await syncFolder(dir)
      return E.right(undefined)
    } catch (error) {
      return E.left(unavailable(error))
    } finally {
      await rm(partial, { force: true })
    }
  },
})
