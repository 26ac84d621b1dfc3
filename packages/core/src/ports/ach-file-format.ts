import type * as E from 'fp-ts/lib/Either.js'
import type { PaymentId } from '../domain/foundations/ids.js'

/** One debit of a bank file, its account opened from its seal. */
export type AchDebit = {
  readonly paymentId: PaymentId
  /** 15 digits, beginning with the format's `tracePrefix`. */
  readonly traceNumber: string
  /** `CCD` for a company's account, `PPD` for an individual's. */
  readonly secCode: 'CCD' | 'PPD'
  readonly routingNumber: string
  readonly accountNumber: string
  readonly accountType: 'checking' | 'savings'
  /** In minor units (cents). */
  readonly amount: number
  /** The account holder's name as the partner gave it. */
  readonly name: string
}

/** What a bank file holds: its debits in trace order, and what its header says. */
export type AchFileContents = {
  /** The banking day the debits settle (E), `YYYY-MM-DD`. */
  readonly effectiveEntryDate: string
  /** `YYYY-MM-DD` and `HHMM`, New York time. */
  readonly creationDate: string
  readonly creationTime: string
  /** `A`–`Z`, `0`–`9`. */
  readonly fileIdModifier: string
  readonly debits: readonly AchDebit[]
}

/** A bank file as written: its name, bytes, their SHA-256 (hex), its debit entries (addenda not counted), their total and the entry hash. */
export type FormattedAchFile = {
  readonly name: string
  readonly bytes: Uint8Array
  readonly sha256: string
  readonly entryCount: number
  readonly debitTotal: number
  readonly entryHash: number
}

/** Contents the format cannot write (a value that does not fit its field): nothing is written. */
export type AchFileRefused = { readonly _tag: 'AchFileRefused'; readonly reason: string }

/**
 * The bank's file format for one originator (in the adapters: NACHA, with the ODFI and company
 * the deployment is set up with). The same contents always give the same bytes, so a file
 * recorded before it was written is rebuilt byte for byte.
 */
export type AchFileFormat = {
  /** The 8 digits every trace number of this originator begins with: the ODFI's routing identification. */
  readonly tracePrefix: string
  /** The file of `contents`, named and hashed, or why it cannot be written. */
  readonly format: (contents: AchFileContents) => E.Either<AchFileRefused, FormattedAchFile>
}
