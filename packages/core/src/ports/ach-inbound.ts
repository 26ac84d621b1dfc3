import type * as E from 'fp-ts/lib/Either.js'
import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { ReturnCategory } from '../domain/ach/return-codes.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'
import type { ClientId, InboundFileId, PaymentId, PaymentMethodId } from '../domain/foundations/ids.js'

/**
 * Files the bank sends back (docs/ach.md "Returns and notices of change"): returns (an entry
 * with an addenda 99) and notices of change (addenda 98), each naming by trace number the entry
 * of ours it is about.
 */

/** A returned entry: which of our entries, why, for how much. */
export type InboundReturn = {
  /** The entry detail record's 1-based line in the file. */
  readonly record: number
  /** The trace number of the entry returned (15 digits): one of ours when we originated it. */
  readonly originalTrace: string
  /** `R01`, `R02`, … as the file has it. */
  readonly returnCode: string
  /** In cents, as the return entry has it. */
  readonly amount: number
}

/** What a notice of change corrects: the fields its change code corrects, read and checked. */
export type AccountCorrection = {
  readonly routingNumber?: string
  readonly accountNumber?: string
  readonly accountType?: 'checking' | 'savings'
}

/** A notice of change: which of our entries, which change, and the correction when it is one we apply. */
export type InboundNotice = {
  readonly record: number
  readonly originalTrace: string
  /** `C01`, `C02`, … as the file has it. */
  readonly changeCode: string
  /** The correction; why there is none (a change code we do not apply, or corrected data that does not read) otherwise. */
  readonly correction: E.Either<string, AccountCorrection>
}

/** An entry that is neither a return nor a notice (a forward entry): reported, never applied. */
export type InboundOther = { readonly record: number; readonly traceNumber: string; readonly amount: number }

/** An inbound file as read: its SHA-256 (hex) and its items in file order. */
export type InboundAchFile = {
  readonly sha256: string
  readonly returns: readonly InboundReturn[]
  readonly notices: readonly InboundNotice[]
  readonly others: readonly InboundOther[]
}

/** A file the format refuses: the record (1-based line) and field at fault, and why. Nothing is applied. */
export type AchFileUnreadable = { readonly _tag: 'AchFileUnreadable'; readonly record: number; readonly field: string; readonly reason: string }

/** The bank's inbound file format (in the adapters: NACHA). Never throws. */
export type AchInboundFormat = {
  /** The file of `bytes`: its items, or the record and field it is refused at. */
  readonly read: (bytes: Uint8Array) => E.Either<AchFileUnreadable, InboundAchFile>
}

/**
 * What became of a return: `applied` (the payment is `RETURNED`, its posting reversed),
 * `loan_charged_off` (`RETURNED`, nothing posted: the loan is written off), `already_reversed`
 * (an operator had reversed it: recorded, nothing changed), `duplicate` (this entry's return was
 * recorded already, from this file or another), `not_sent` (the entry never went in a file),
 * `unmatched` (no entry of ours has that trace number).
 */
export type ReturnOutcome = 'applied' | 'loan_charged_off' | 'already_reversed' | 'duplicate' | 'not_sent' | 'unmatched'

/** A return as recorded, with its outcome. */
export type AchReturnRecord = {
  readonly id: string
  readonly inboundFileId: InboundFileId
  readonly record: number
  readonly originalTrace: string
  readonly returnCode: string
  readonly category: ReturnCategory
  readonly amount: number
  /** The payment and API client of the entry it matched; null when unmatched. */
  readonly paymentId: PaymentId | null
  readonly clientId: ClientId | null
  /** The day it was received (New York). */
  readonly receivedOn: string
  readonly outcome: ReturnOutcome
  /** Received after its code's return window: applied all the same (the bank has the money back), flagged for an operator. */
  readonly late: boolean
}

/**
 * What became of a notice of change: `applied` (the method's account corrected, audited),
 * `duplicate` (another file's notice of this entry was recorded), `unsupported` (not a correction
 * we apply: `detail` says why, for an operator), `method_blocked` (its method takes no debit any
 * more: nothing to correct), `unmatched` (no entry of ours has that trace number).
 */
export type NoticeOutcome = 'applied' | 'duplicate' | 'unsupported' | 'method_blocked' | 'unmatched'

/** A notice of change as recorded: never its corrected data (an account number is a secret; the vault holds it once applied). */
export type AchNoticeRecord = {
  readonly id: string
  readonly inboundFileId: InboundFileId
  readonly record: number
  readonly originalTrace: string
  readonly changeCode: string
  readonly paymentMethodId: PaymentMethodId | null
  readonly receivedOn: string
  readonly outcome: NoticeOutcome
  /** Why it is `unsupported`; null otherwise. */
  readonly detail: string | null
}

/** What an ingestion did with each item of a file, in file order. */
export type AchIngestReport = {
  readonly returns: readonly Omit<AchReturnRecord, 'id' | 'inboundFileId' | 'category' | 'receivedOn'>[]
  readonly notices: readonly Omit<AchNoticeRecord, 'id' | 'inboundFileId' | 'receivedOn'>[]
  readonly others: readonly InboundOther[]
}

/** An inbound file as recorded: `ingesting` until every item is applied, then `ingested` with its report. */
export type AchInboundFileRecord = {
  readonly id: InboundFileId
  readonly sha256: string
  readonly receivedAt: Date
  readonly status: 'ingesting' | 'ingested'
  readonly report: AchIngestReport | null
}

/**
 * The inbound records of one world. A file is known by its SHA-256, a return and a notice by the
 * trace number they name: each is recorded once, whatever is ingested again.
 */
export type AchInbound = {
  /** The file `sha256`: recorded `ingesting` when it is new, else the one there (whose fields win). */
  readonly openFile: (file: Pick<AchInboundFileRecord, 'id' | 'sha256' | 'receivedAt'>) => TE.TaskEither<StoreUnavailable, AchInboundFileRecord>
  /** The file `id`; none when there is none. */
  readonly findFile: (id: InboundFileId) => TE.TaskEither<StoreUnavailable, O.Option<AchInboundFileRecord>>
  /** The return recorded for `entry`'s trace number: `entry`, now recorded, or the one recorded before it (from this file or another), unchanged. */
  readonly recordReturn: (entry: AchReturnRecord) => TE.TaskEither<StoreUnavailable, AchReturnRecord>
  /** The notice recorded for `notice`'s trace number: `notice`, now recorded, or the one recorded before it, unchanged. */
  readonly recordNotice: (notice: AchNoticeRecord) => TE.TaskEither<StoreUnavailable, AchNoticeRecord>
  /** Moves the file to `ingested` with `report`, if it is `ingesting`: the first report stays. */
  readonly finish: (id: InboundFileId, report: AchIngestReport) => TE.TaskEither<StoreUnavailable, void>
}
