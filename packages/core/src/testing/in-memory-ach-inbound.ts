import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { storeUnavailable } from '../domain/foundations/errors.js'
import type { AchInbound, AchInboundFileRecord, AchNoticeRecord, AchReturnRecord } from '../ports/ach-inbound.js'

/** The inbound records of one world in memory, held to the same rules as the database's (one file per hash, one return and one notice per trace). */
export const inMemoryAchInbound = (): AchInbound & {
  /** Every return recorded, in the order recorded. */
  readonly returns: () => readonly AchReturnRecord[]
  /** Every notice recorded, in the order recorded. */
  readonly notices: () => readonly AchNoticeRecord[]
} => {
  const files = new Map<string, AchInboundFileRecord>()
  const returns = new Map<string, AchReturnRecord>()
  const notices = new Map<string, AchNoticeRecord>()
  return {
    returns: () => [...returns.values()],
    notices: () => [...notices.values()],
    openFile: (file) => async () => {
      const there = [...files.values()].find((f) => f.sha256 === file.sha256)
      if (there !== undefined) return E.right(there)
      if (files.has(file.id)) return E.left(storeUnavailable(new Error(`another file has the id ${file.id}`)))
      const opened: AchInboundFileRecord = { ...file, status: 'ingesting', report: null }
      files.set(opened.id, opened)
      return E.right(opened)
    },
    findFile: (id) => TE.right(O.fromNullable(files.get(id))),
    recordReturn: (entry) => async () => {
      if (!files.has(entry.inboundFileId)) return E.left(storeUnavailable(new Error(`no inbound file ${entry.inboundFileId}`)))
      const there = returns.get(entry.originalTrace)
      if (there !== undefined) return E.right(there)
      returns.set(entry.originalTrace, entry)
      return E.right(entry)
    },
    recordNotice: (notice) => async () => {
      if (!files.has(notice.inboundFileId)) return E.left(storeUnavailable(new Error(`no inbound file ${notice.inboundFileId}`)))
      const there = notices.get(notice.originalTrace)
      if (there !== undefined) return E.right(there)
      notices.set(notice.originalTrace, notice)
      return E.right(notice)
    },
    finish: (id, report) =>
      TE.fromIO(() => {
        const file = files.get(id)
        if (file?.status === 'ingesting') files.set(id, { ...file, status: 'ingested', report })
      }),
  }
}
