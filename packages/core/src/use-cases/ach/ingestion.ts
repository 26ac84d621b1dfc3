import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import type * as t from 'io-ts'
import { OPERATOR_CONTEXT, type AuditContext } from '../../domain/audit/audit-event.js'
import { ACH_TIME_ZONE } from '../../domain/ach/cutoffs.js'
import { EmptyInput } from '../../domain/foundations/codecs.js'
import { invalidRequest, notFound, type InvalidRequest, type NotFound, type StoreUnavailable } from '../../domain/foundations/errors.js'
import { newId, type InboundFileId } from '../../domain/foundations/ids.js'
import { commandOf } from '../../domain/foundations/path-parameters.js'
import { dateIn } from '../../domain/loans/servicing-terms.js'
import type { AccountSeal } from '../../ports/account-seal.js'
import type { AchInbound, AchInboundFileRecord, AchInboundFormat, AchIngestReport, AchNoticeRecord, AchReturnRecord, InboundAchFile } from '../../ports/ach-inbound.js'
import { ingestNotice, type NoticeDeps } from './notices.js'
import { ingestReturn, type ReturnDeps } from './returns.js'

/** Inbound files (docs/ach.md "Returns and notices of change"): read whole, recorded by their hash, each item applied once. */

/**
 * What ingesting a file needs: the stores of returns and notices, the inbound format, and the seal
 * that notices of change need (a file holding one is refused without it: the CLI may run without
 * the sealing key).
 */
export type IngestionDeps = ReturnDeps &
  Omit<NoticeDeps, 'accountSeal'> & {
    readonly inbound: AchInbound
    readonly inboundFormat: AchInboundFormat
    readonly accountSeal: AccountSeal | undefined
  }

/** Why a file is refused before anything of it is applied. */
export type IngestionError = InvalidRequest | NotFound | StoreUnavailable

/** What the report says of a return: the record less what the file already says. */
const reportedReturn = ({ id: _id, inboundFileId: _file, category: _category, receivedOn: _on, ...rest }: AchReturnRecord): AchIngestReport['returns'][number] => rest

/** What the report says of a notice. */
const reportedNotice = ({ id: _id, inboundFileId: _file, receivedOn: _on, ...rest }: AchNoticeRecord): AchIngestReport['notices'][number] => rest

/** The file read, or why it is refused: it does not read, or it holds notices of change and no seal was given to correct accounts with. */
const readable = (deps: IngestionDeps, bytes: Uint8Array): E.Either<InvalidRequest, { readonly file: InboundAchFile; readonly seal: AccountSeal | undefined }> =>
  pipe(
    deps.inboundFormat.read(bytes),
    E.mapLeft((unreadable) => invalidRequest(`The file is refused at record ${unreadable.record}, ${unreadable.field}: ${unreadable.reason}. Nothing was applied.`, 'file')),
    E.chain((file) => {
      const notice = file.notices[0]
      return notice !== undefined && deps.accountSeal === undefined
        ? E.left(invalidRequest(`Record ${notice.record} is a notice of change: applying it needs the key that seals account numbers (WEBHOOK_SECRET_KEY). Nothing was applied.`, 'file'))
        : E.right({ file, seal: deps.accountSeal })
    }),
  )

/**
 * Ingests a file the bank sent back (docs/ach.md "Returns and notices of change"): it is read
 * whole first (a file the format refuses changes nothing: InvalidRequest naming the record and
 * field), then recorded by its SHA-256; a file ingested before answers its record as it was,
 * changing nothing. Its returns (`ingestReturn`), then its notices of change (`ingestNotice`), are
 * applied in file order, then the file is `ingested` with its report, and its record as stored is
 * answered. A run that stops half-way is finished by ingesting the same file again, and runs of
 * one file at once agree: what was applied is recorded once.
 */
export const ingestAchFile =
  (deps: IngestionDeps) =>
  (bytes: Uint8Array, context: AuditContext = OPERATOR_CONTEXT): TE.TaskEither<IngestionError, AchInboundFileRecord> => {
    const now = deps.clock.now()
    return pipe(
      TE.fromEither(readable(deps, bytes)),
      TE.chainW(({ file, seal }) =>
        pipe(
          deps.inbound.openFile({ id: newId<InboundFileId>(deps.ids), sha256: file.sha256, receivedAt: now }),
          TE.chainW((record) => {
            if (record.status === 'ingested') return TE.right(record)
            const ingestion = { fileId: record.id, context, receivedOn: dateIn(ACH_TIME_ZONE, now), now }
            return pipe(
              TE.Do,
              TE.bind('returns', () => TE.traverseSeqArray(ingestReturn(deps, ingestion))(file.returns)),
              // Checked by `readable`: a file with notices has a seal here.
              TE.bind('notices', () => (seal === undefined ? TE.right([]) : TE.traverseSeqArray(ingestNotice({ ...deps, accountSeal: seal }, ingestion))(file.notices))),
              TE.map(({ returns, notices }): AchIngestReport => ({ returns: returns.map(reportedReturn), notices: notices.map(reportedNotice), others: file.others })),
              TE.chainW((report) => deps.inbound.finish(record.id, report)),
              // The record as stored: of runs of one file at once, the first to finish wrote it.
              TE.chainW(() => findAchInboundFile(deps)(record.id)),
            )
          }),
        ),
      ),
    )
  }

/** The command that names an inbound file: its `inboundFileId`, and nothing else. */
export const InboundFileCommand: t.Type<{ readonly inboundFileId: InboundFileId }, { readonly inboundFileId: InboundFileId }, unknown> = commandOf(['inboundFileId'], EmptyInput)

/** The inbound file `id` as recorded, with its report once ingested. */
export const findAchInboundFile =
  (deps: Pick<IngestionDeps, 'inbound'>) =>
  (id: InboundFileId): TE.TaskEither<NotFound | StoreUnavailable, AchInboundFileRecord> =>
    pipe(deps.inbound.findFile(id), TE.chainW(TE.fromOption(() => notFound('ach_inbound_file'))))
