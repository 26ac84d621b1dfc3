import { CREDIT_CODES, DEBIT_CODES, checkDigitOf, type Addenda98, type Addenda99, type EntryDetail, type NachaFile } from './model.js'

/**
 * Readers of inbound files (returns and notifications of change): one item per entry carrying
 * an addenda 99 or 98, with what matching it to an entry of ours, and applying it, needs. They
 * read a parsed `NachaFile` (every field and control already checked) and never throw.
 */

/** What every inbound item says of its entry: where it is, in which batch, and the entry's own figures. */
export type InboundEntry = {
  /** The entry detail record's 1-based line in the file, as the parser numbers records. */
  readonly record: number
  /** The batch header's batch number. */
  readonly batchNumber: number
  /** The batch header's standard entry class code (`COR` for notifications of change; a return keeps its original's, e.g. `WEB`). */
  readonly secCode: string
  /** The entry's transaction code (26 checking debit return or NOC, 21 credit, 36/31 savings, …). */
  readonly transactionCode: number
  /** The entry's own trace number (the returning or notifying DFI's), positions 80–94. */
  readonly traceNumber: string
  /** In cents: the original entry's amount for a return, 0 for a notification of change. */
  readonly amount: number
}

/** A returned entry (an entry with an addenda 99). */
export type ReturnEntry = InboundEntry & {
  /** `R01`, `R02`, … as the file has it (custom codes such as `R97` included). */
  readonly returnReasonCode: string
  /** The trace number of the entry returned: one of ours when we originated it. */
  readonly originalTraceNumber: string
  /** The original entry's receiving DFI, 8 digits. */
  readonly originalRdfiIdentification: string
  /** YYMMDD, given for R14 and R15 (death of the account holder or beneficiary); null when blank. */
  readonly dateOfDeath: string | null
  /** The addenda information text (positions 36–79), trailing blanks dropped; `''` when blank. */
  readonly addendaInformation: string
}

/** The change codes whose corrected data this package reads. */
export const SUPPORTED_CHANGE_CODES: ReadonlySet<string> = new Set(['C01', 'C02', 'C03', 'C05', 'C06', 'C07'])

/** The kind of account a transaction code is for (its tens digit: 2 checking, 3 savings, 4 general ledger, 5 loan). */
export type AccountKind = 'checking' | 'savings' | 'general-ledger' | 'loan'

/** A corrected transaction code (C05, C06, C07), with the account kind it means. */
type CorrectedCode = { readonly transactionCode: number; readonly accountType: AccountKind }

/** The corrected data of a supported change code, read per its NACHA layout (routing numbers 9 digits, check digit verified). */
export type Correction =
  | { readonly changeCode: 'C01'; readonly accountNumber: string }
  | { readonly changeCode: 'C02'; readonly routingNumber: string }
  | { readonly changeCode: 'C03'; readonly routingNumber: string; readonly accountNumber: string }
  | ({ readonly changeCode: 'C05' } & CorrectedCode)
  | ({ readonly changeCode: 'C06'; readonly accountNumber: string } & CorrectedCode)
  | ({ readonly changeCode: 'C07'; readonly routingNumber: string; readonly accountNumber: string } & CorrectedCode)

/** The reading of a notification's corrected data: the correction, or why there is none (`unsupported`: a change code this package does not read). */
export type CorrectionResult = { readonly ok: true; readonly correction: Correction } | { readonly ok: false; readonly unsupported: boolean; readonly reason: string }

/** A notification of change (an entry with an addenda 98, in a COR batch). */
export type NoticeOfChange = InboundEntry & {
  /** `C01`, `C02`, … as the file has it. */
  readonly changeCode: string
  /** The trace number of the entry the notification is about: one of ours when we originated it. */
  readonly originalTraceNumber: string
  /** The original entry's receiving DFI, 8 digits. */
  readonly originalRdfiIdentification: string
  /** The corrected data field (positions 36–64) as the file has it, trailing blanks dropped. */
  readonly correctedData: string
  /** The corrected data read per the change code's layout. */
  readonly corrected: CorrectionResult
}

/** The entry's record number, batch and figures, for an item of any kind. */
const inboundEntry = (record: number, batchNumber: number, secCode: string, entry: EntryDetail): InboundEntry => ({
  record,
  batchNumber,
  secCode,
  transactionCode: entry.transactionCode,
  traceNumber: entry.traceNumber,
  amount: entry.amount,
})

/** Calls `visit` on each entry with its record number (the parser's: 1 file header, then per batch a header, entries and their addenda, a control). */
const eachEntry = (file: NachaFile, visit: (record: number, batchNumber: number, secCode: string, entry: EntryDetail) => void): void => {
  let line = 1
  for (const batch of file.batches) {
    line += 1
    for (const entry of batch.entries) {
      line += 1
      visit(line, batch.header.batchNumber, batch.header.secCode, entry)
      line += entry.addenda.length
    }
    line += 1
  }
}

/** The returns of a file: one per entry with an addenda 99, in file order. Entries without one are left out (see `entriesWithoutAddendaOf`). */
export const returnsOf = (file: NachaFile): readonly ReturnEntry[] => {
  const out: ReturnEntry[] = []
  eachEntry(file, (record, batchNumber, secCode, entry) => {
    const a = entry.addenda.find((x): x is Addenda99 => x.typeCode === '99')
    if (a === undefined) return
    out.push({
      ...inboundEntry(record, batchNumber, secCode, entry),
      returnReasonCode: a.returnReasonCode,
      originalTraceNumber: a.originalTraceNumber,
      originalRdfiIdentification: a.originalRdfiIdentification,
      dateOfDeath: a.dateOfDeath === '' ? null : a.dateOfDeath,
      addendaInformation: a.addendaInformation,
    })
  })
  return out
}

/** The notifications of change of a file: one per entry with an addenda 98, in file order. Entries without one are left out (see `entriesWithoutAddendaOf`). */
export const noticesOf = (file: NachaFile): readonly NoticeOfChange[] => {
  const out: NoticeOfChange[] = []
  eachEntry(file, (record, batchNumber, secCode, entry) => {
    const a = entry.addenda.find((x): x is Addenda98 => x.typeCode === '98')
    if (a === undefined) return
    out.push({
      ...inboundEntry(record, batchNumber, secCode, entry),
      changeCode: a.changeCode,
      originalTraceNumber: a.originalTraceNumber,
      originalRdfiIdentification: a.originalRdfiIdentification,
      correctedData: a.correctedData,
      corrected: parseCorrectedData(a.changeCode, a.correctedData),
    })
  })
  return out
}

/** The entries of a file that are neither returns nor notifications of change (no addenda 98 or 99): forward entries, in file order. */
export const entriesWithoutAddendaOf = (file: NachaFile): readonly InboundEntry[] => {
  const out: InboundEntry[] = []
  eachEntry(file, (record, batchNumber, secCode, entry) => {
    if (!entry.addenda.some((x) => x.typeCode === '98' || x.typeCode === '99')) out.push(inboundEntry(record, batchNumber, secCode, entry))
  })
  return out
}

/** The account kind of a transaction code (2x checking, 3x savings, 4x general ledger, 5x loan), or undefined for a code that is none. */
export const accountKindOf = (transactionCode: number): AccountKind | undefined => {
  if (!CREDIT_CODES.has(transactionCode) && !DEBIT_CODES.has(transactionCode)) return undefined
  return (['checking', 'savings', 'general-ledger', 'loan'] as const)[Math.floor(transactionCode / 10) - 2]
}

/** A refusal inside `parseCorrectedData`, caught at its edge. */
class Invalid {
  constructor(readonly reason: string) {}
}

const invalid = (reason: string): never => {
  throw new Invalid(reason)
}

/** Positions `start`–`start + length - 1` (1-based) of the 29-character corrected data. */
const at = (data: string, start: number, length: number): string => data.slice(start - 1, start - 1 + length)

const routingAt = (data: string, code: string): string => {
  const r = at(data, 1, 9)
  if (!/^[0-9]{9}$/.test(r)) invalid(`${code}: the routing number (positions 1–9) must be 9 digits; found ${JSON.stringify(r)}`)
  const check = checkDigitOf(r.slice(0, 8))
  if (Number(r.charAt(8)) !== check) invalid(`${code}: ${r} is not a routing number (its check digit would be ${check})`)
  return r
}

/** An account number field: left-justified in NACHA's layout; leading blanks dropped too (moov-io's writer right-justifies C03's). */
const accountAt = (data: string, start: number, length: number, code: string): string => {
  const v = at(data, start, length).trim()
  if (v === '') invalid(`${code}: the account number (positions ${start}–${start + length - 1}) is blank`)
  return v
}

const blankAt = (data: string, start: number, length: number, code: string): void => {
  if (at(data, start, length).trim() !== '') invalid(`${code}: positions ${start}–${start + length - 1} must be blank; found ${JSON.stringify(at(data, start, length))}`)
}

/** A transaction code: the digits of `positions` with blanks removed (two digits, a transaction code), so NACHA's positions or moov-io's right-justified ones. */
const codeAt = (data: string, start: number, length: number, code: string): CorrectedCode => {
  const v = at(data, start, length).replace(/ /g, '')
  if (!/^[0-9]{2}$/.test(v)) invalid(`${code}: the transaction code (positions ${start}–${start + length - 1}) must be 2 digits; found ${JSON.stringify(at(data, start, length))}`)
  const transactionCode = Number(v)
  const accountType = accountKindOf(transactionCode)
  if (accountType === undefined) return invalid(`${code}: ${v} is not a transaction code`)
  return { transactionCode, accountType }
}

/**
 * Reads the corrected data (positions 36–64 of an addenda 98, 29 characters) of a change code,
 * per NACHA's layouts: C01 account number 1–17; C02 routing number 1–9; C03 routing number 1–9,
 * blanks 10–12, account number 13–29; C05 transaction code 1–2; C06 account number 1–17, blanks
 * 18–20, transaction code 21–22; C07 routing number 1–9, account number 10–26, transaction code
 * 27–28. Blanks elsewhere. Tolerated: an account number with leading blanks, and a transaction code
 * anywhere in the positions after the account (moov-io's writer puts C06's and C07's at 28–29).
 * Other change codes answer `unsupported`.
 */
export const parseCorrectedData = (changeCode: string, correctedData: string): CorrectionResult => {
  const data = correctedData.padEnd(29, ' ')
  try {
    if (data.length > 29) invalid(`corrected data of ${data.length} characters; the field is 29`)
    switch (changeCode) {
      case 'C01': {
        const accountNumber = accountAt(data, 1, 17, changeCode)
        blankAt(data, 18, 12, changeCode)
        return { ok: true, correction: { changeCode, accountNumber } }
      }
      case 'C02': {
        const routingNumber = routingAt(data, changeCode)
        blankAt(data, 10, 20, changeCode)
        return { ok: true, correction: { changeCode, routingNumber } }
      }
      case 'C03': {
        const routingNumber = routingAt(data, changeCode)
        blankAt(data, 10, 3, changeCode)
        return { ok: true, correction: { changeCode, routingNumber, accountNumber: accountAt(data, 13, 17, changeCode) } }
      }
      case 'C05': {
        const corrected = codeAt(data, 1, 2, changeCode)
        blankAt(data, 3, 27, changeCode)
        return { ok: true, correction: { changeCode, ...corrected } }
      }
      case 'C06': {
        const accountNumber = accountAt(data, 1, 17, changeCode)
        return { ok: true, correction: { changeCode, accountNumber, ...codeAt(data, 18, 12, changeCode) } }
      }
      case 'C07': {
        const routingNumber = routingAt(data, changeCode)
        const accountNumber = accountAt(data, 10, 17, changeCode)
        return { ok: true, correction: { changeCode, routingNumber, accountNumber, ...codeAt(data, 27, 3, changeCode) } }
      }
      default:
        return { ok: false, unsupported: true, reason: `${changeCode}: not a change code this package reads (${[...SUPPORTED_CHANGE_CODES].join(', ')})` }
    }
  } catch (error) {
    if (error instanceof Invalid) return { ok: false, unsupported: false, reason: error.reason }
    throw error
  }
}
