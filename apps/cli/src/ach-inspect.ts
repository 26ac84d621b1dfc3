import { readFile } from 'node:fs/promises'
import { gunzipSync } from 'node:zlib'
import { parseNachaFile, type NachaFile } from '@lendgate/nacha'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'

/** What `ach inspect` prints of a NACHA file: each batch, and the file's counts and totals (amounts in cents). */
export type AchSummary = {
  readonly batches: ReadonlyArray<{
    readonly batch_number: number
    readonly sec_code: string
    readonly company_name: string
    readonly entries: number
    readonly total_debit: number
    readonly total_credit: number
  }>
  readonly entry_count: number
  readonly addenda_count: number
  readonly total_debit: number
  readonly total_credit: number
  readonly entry_hash: number
}

/** Why `ach inspect` refused a file: it could not be read (or gunzipped), or the parser refused it at `record`, `field`. */
export type AchInspectFailure =
  | { readonly _tag: 'FileUnreadable'; readonly file: string; readonly detail: string }
  | { readonly _tag: 'NachaRefused'; readonly file: string; readonly record: number; readonly record_type: string; readonly field: string; readonly reason: string }

/** The summary `ach inspect` prints of a parsed file. */
export const achSummary = (file: NachaFile): AchSummary => ({
  batches: file.batches.map((b) => ({
    batch_number: b.header.batchNumber,
    sec_code: b.header.secCode,
    company_name: b.header.companyName,
    entries: b.entries.length,
    total_debit: b.control.totalDebit,
    total_credit: b.control.totalCredit,
  })),
  entry_count: file.batches.reduce((n, b) => n + b.entries.length, 0),
  addenda_count: file.batches.reduce((n, b) => b.entries.reduce((m, e) => m + e.addenda.length, n), 0),
  total_debit: file.control.totalDebit,
  total_credit: file.control.totalCredit,
  entry_hash: file.control.entryHash,
})

/** The text of a file: gunzipped when it begins with the gzip magic bytes 1f 8b; one character a byte (NACHA is ASCII). */
const textOf = (bytes: Buffer): string => (bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes).toString('latin1')

/** The bytes of the file at `path`, or why it cannot be read. */
export const readFileBytes = (path: string): TE.TaskEither<AchInspectFailure, Buffer> =>
  TE.tryCatch(
    () => readFile(path),
    (error): AchInspectFailure => ({ _tag: 'FileUnreadable', file: path, detail: error instanceof Error ? error.message : String(error) }),
  )

/** `ach inspect <file>`: reads a NACHA file (gzipped or not) and answers its summary, or why it is refused. */
export const inspectAchFile = (path: string): TE.TaskEither<AchInspectFailure, AchSummary> =>
  pipe(
    readFileBytes(path),
    TE.chainW((bytes) =>
      TE.tryCatch(
        async () => textOf(bytes),
        (error): AchInspectFailure => ({ _tag: 'FileUnreadable', file: path, detail: error instanceof Error ? error.message : String(error) }),
      ),
    ),
    TE.chainEitherKW((text): E.Either<AchInspectFailure, AchSummary> => {
      const parsed = parseNachaFile(text)
      if (parsed.ok) return E.right(achSummary(parsed.file))
      const { record, recordType, field, reason } = parsed.error
      return E.left({ _tag: 'NachaRefused', file: path, record, record_type: recordType, field, reason })
    }),
  )
