import type * as O from 'fp-ts/lib/Option.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { StoreUnavailable } from '../domain/foundations/errors.js'
import type { ClientId, PartyId, PaymentId, PaymentMethodId } from '../domain/foundations/ids.js'

/**
 * Where a bank file stands (docs/ach.md "Origination job"): its payments being claimed, then
 * posted one by one, then the file built (its bytes' hash recorded), then written where the bank
 * collects it; `empty` when no payment of its cut-off was left to send (no file is written).
 */
export type AchFileStatus = 'claiming' | 'posting' | 'built' | 'written' | 'empty'

/** A bank file of debits: one per cut-off (`runKey`), recorded before it is written. */
export type AchFile = {
  readonly id: string
  /** The origination run it belongs to: `{YYYY-MM-DD}T{HH:MM}`, the cut-off in New York time; a party's, `{cut-off}/{partyId}`. Unique. */
  readonly runKey: string
  /**
   * Whose cut-off it is: null for the world's (the scheduler's, an operator's), which take the
   * payments of parties without a test clock; a party on a test clock for its own, made by its
   * clock's advance in the clock's time (the test world's sandbox bank, decision 147).
   */
  readonly partyId: PartyId | null
  /** Payments created up to this instant go in the file. */
  readonly cutoffAt: Date
  /** The banking day the debits settle (E), `YYYY-MM-DD`. */
  readonly effectiveEntryDate: string
  /** The day (New York) and time (`HHMM`) written in its header: kept, so it is rebuilt byte for byte. */
  readonly creationDate: string
  readonly creationTime: string
  readonly status: AchFileStatus
  /** `A`–`Z`, `0`–`9`: which of the day's files it is; taken when it is built. */
  readonly fileIdModifier: string | null
  /** What it is written as, and what was built, once `built`. */
  readonly name: string | null
  readonly sha256: string | null
  readonly entryCount: number | null
  readonly debitTotal: number | null
  readonly entryHash: number | null
  readonly createdAt: Date
  readonly writtenAt: Date | null
}

/** The file id modifiers of one creation date, in the order they are taken: a day has 36 files at most. */
export const ACH_FILE_ID_MODIFIERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'

/** The figures of a built file, recorded before it is written. */
export type BuiltAchFile = {
  readonly name: string
  readonly sha256: string
  readonly entryCount: number
  readonly debitTotal: number
  readonly entryHash: number
}

/**
 * A payment's place in a file: `claimed` by its file's cut-off, then `sent` (the payment was
 * submitted: in the file for `amount`) or `dropped` (it failed at submission: not in the file);
 * a `sent` one is `settled` when its return window has passed, or `returned` when its bank sent it
 * back (even once settled). A payment has one entry at most, so it is never in two files.
 */
export type AchEntryStatus = 'claimed' | 'sent' | 'settled' | 'returned' | 'dropped'

/** The statuses of an entry that went in a file: what the return rates count as debits (once its file is written). */
export const SENT_ENTRY_STATUSES = ['sent', 'settled', 'returned'] as const satisfies readonly AchEntryStatus[]

/** A payment's entry in a bank file. */
export type AchEntry = {
  readonly paymentId: PaymentId
  readonly fileId: string
  readonly paymentMethodId: PaymentMethodId
  readonly clientId: ClientId
  /** 15 digits: the ODFI's 8 and a 7-digit number of the world's counter. Unique in the world. */
  readonly traceNumber: string
  readonly status: AchEntryStatus
  /** What the file debits: set when `sent`. */
  readonly amount: number | null
  /** The file's effective entry date (E), set when `sent`: the return window counts from it. */
  readonly submittedOn: string | null
}

/** A new file for a cut-off. */
export type NewAchFile = Pick<AchFile, 'id' | 'runKey' | 'partyId' | 'cutoffAt' | 'effectiveEntryDate' | 'creationDate' | 'creationTime' | 'createdAt'>

/**
 * The origination records of one world (docs/ach.md "Origination job"): which payments went in
 * which file. Every write can be repeated: a run resumed after a crash repeats at most its last step.
 */
export type AchOriginations = {
  /** The file of `file.runKey`: opened `claiming` when it is not there yet, else the one there (whose other fields win). */
  readonly openFile: (file: NewAchFile) => TE.TaskEither<StoreUnavailable, AchFile>
  /** The file `id`; none when there is none. */
  readonly findFile: (id: string) => TE.TaskEither<StoreUnavailable, O.Option<AchFile>>
  /** The file of run `runKey`, if one was opened. */
  readonly fileOfRun: (runKey: string) => TE.TaskEither<StoreUnavailable, O.Option<AchFile>>
  /**
   * Claims for file `fileId` up to `limit` `PENDING` payments created at or before its cut-off and
   * in no file yet, oldest first, each `claimed` with the next trace number (`tracePrefix`, the
   * ODFI's 8 digits, then the world's 7-digit counter): of its party's loans for a party's file, of
   * loans whose party has no test clock for the world's. Answers how many it claimed: fewer than
   * `limit` means none is left. A payment claimed by another file concurrently is left to it.
   */
  readonly claim: (fileId: string, tracePrefix: string, limit: number) => TE.TaskEither<StoreUnavailable, number>
  /** Moves the file from `claiming` to `posting`: it claims no more. */
  readonly startPosting: (fileId: string) => TE.TaskEither<StoreUnavailable, void>
  /** Up to `limit` of the file's `claimed` entries, in trace order. */
  readonly claimedEntries: (fileId: string, limit: number) => TE.TaskEither<StoreUnavailable, readonly AchEntry[]>
  /** The entry of payment `paymentId` `sent` for `amount`, effective `submittedOn`, if it is still `claimed`. */
  readonly markSent: (paymentId: PaymentId, amount: number, submittedOn: string) => TE.TaskEither<StoreUnavailable, void>
  /** The entry of payment `paymentId` `dropped`, if it is still `claimed`: its payment failed at submission. */
  readonly markDropped: (paymentId: PaymentId) => TE.TaskEither<StoreUnavailable, void>
  /**
   * Deletes the entry of payment `paymentId` if it is still `claimed` and its payment still
   * `PENDING`, read under its loan's lock (a submission of it under way is waited for, and keeps
   * its entry): the payment waits for a later cut-off.
   */
  readonly release: (paymentId: PaymentId) => TE.TaskEither<StoreUnavailable, void>
  /** What the file debits: its `sent` (or since `settled` or `returned`) entries in trace order, each with what its debit needs from its payment method. */
  readonly debitsOf: (fileId: string) => TE.TaskEither<StoreUnavailable, readonly AchDebitRow[]>
  /** The earliest file of `partyId`'s runs (the world's when null) before `runKey` that is neither `written` nor `empty`: a run that stopped and was never resumed. */
  readonly unfinishedBefore: (runKey: string, partyId: PartyId | null) => TE.TaskEither<StoreUnavailable, O.Option<AchFile>>
  /**
   * The file's modifier: the one it has, or the first of `A`–`Z`, `0`–`9` no other file of its
   * creation date and party (the world's files together) has, now recorded on it. None when the
   * day's 36 are taken.
   */
  readonly takeModifier: (fileId: string) => TE.TaskEither<StoreUnavailable, O.Option<string>>
  /** Records what was built and moves the file from `posting` to `built`. */
  readonly recordBuilt: (fileId: string, built: BuiltAchFile) => TE.TaskEither<StoreUnavailable, void>
  /** Moves the file from `posting` to `empty`: nothing of its cut-off was sent. */
  readonly recordEmpty: (fileId: string) => TE.TaskEither<StoreUnavailable, void>
  /** Moves the file from `built` to `written`. */
  readonly recordWritten: (fileId: string, at: Date) => TE.TaskEither<StoreUnavailable, void>
  /**
   * Up to `limit` `sent` entries of `written` files of `partyId` (the world's files when null)
   * effective on or before `submittedOnOrBefore`, in (effective date, payment id) order after
   * `after` (the last of an earlier page). A debit whose file was never written has not left: it
   * never settles.
   */
  readonly unsettled: (submittedOnOrBefore: string, after: O.Option<AchEntryCursor>, limit: number, partyId: PartyId | null) => TE.TaskEither<StoreUnavailable, readonly AchEntry[]>
  /** The entry of payment `paymentId` `settled`, if it is `sent`. */
  readonly markSettled: (paymentId: PaymentId) => TE.TaskEither<StoreUnavailable, void>
  /** The entry whose trace number is `traceNumber` (15 digits), whatever its status: what a return or a notice of change names. */
  readonly entryByTrace: (traceNumber: string) => TE.TaskEither<StoreUnavailable, O.Option<AchEntry>>
  /** The entry of payment `paymentId` `returned`, if it is `sent` or `settled`: it is never settled again. */
  readonly markReturned: (paymentId: PaymentId) => TE.TaskEither<StoreUnavailable, void>
}

/** An entry a file debits, with its payment method's holder name, account type and sealed numbers (null: none were kept). */
export type AchDebitRow = AchEntry & {
  readonly accountHolderName: string | null
  readonly accountType: 'checking' | 'savings' | null
  readonly sealedAccount: string | null
}

/** Where a page of `unsettled` entries ended. */
export type AchEntryCursor = { readonly submittedOn: string; readonly paymentId: PaymentId }
