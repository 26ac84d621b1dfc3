/**
 * The model of a NACHA (ACH) file: every record as readonly data, every amount an integer number
 * of cents (a safe integer, never a float), identifiers as strings of digits. Text fields hold
 * the field as the file has it, less its trailing blanks (alphanumeric fields are left-justified,
 * so the writer restores them exactly); numeric fields hold their value.
 */

/** The file header record (type 1). Record size `094`, blocking factor `10` and format code `1` are implied. */
export type FileHeader = {
  /** Positions 2–3, `01`. */
  readonly priorityCode: string
  /** Positions 4–13: a routing number (9 digits, written after a blank) or 10 digits. */
  readonly immediateDestination: string
  /** Positions 14–23: a routing number (9 digits, written after a blank) or 10 digits. */
  readonly immediateOrigin: string
  /** Positions 24–29, YYMMDD. */
  readonly fileCreationDate: string
  /** Positions 30–33, HHMM, or `''` when blank. */
  readonly fileCreationTime: string
  /** Position 34: `A`–`Z` or `0`–`9`, telling apart the files of one day. */
  readonly fileIdModifier: string
  /** Positions 41–63. */
  readonly immediateDestinationName: string
  /** Positions 64–86. */
  readonly immediateOriginName: string
  /** Positions 87–94. */
  readonly referenceCode: string
}

/** Service class codes of a batch: 200 mixed debits and credits, 220 credits only, 225 debits only, 280 automated accounting advices. */
export type ServiceClassCode = 200 | 220 | 225 | 280

/** The batch header record (type 5). */
export type BatchHeader = {
  /** Positions 2–4. */
  readonly serviceClassCode: ServiceClassCode
  /** Positions 5–20. */
  readonly companyName: string
  /** Positions 21–40. */
  readonly companyDiscretionaryData: string
  /** Positions 41–50. */
  readonly companyIdentification: string
  /** Positions 51–53: the standard entry class code (`CCD`, `PPD`, `WEB`, `COR`, …). */
  readonly secCode: string
  /** Positions 54–63. */
  readonly companyEntryDescription: string
  /** Positions 64–69 (free text, usually a date). */
  readonly companyDescriptiveDate: string
  /** Positions 70–75, YYMMDD, or `''` when blank; 6 digits, not checked as a date (moov-io's COR file has `000000`). */
  readonly effectiveEntryDate: string
  /** Positions 76–78, the Julian settlement day the ACH operator inserts, or `''` when blank. */
  readonly settlementDate: string
  /** Position 79: `0`, `1` or `2`. */
  readonly originatorStatusCode: string
  /** Positions 80–87: the originating DFI's 8-digit routing identification. */
  readonly odfiIdentification: string
  /** Positions 88–94. */
  readonly batchNumber: number
}

/** Addenda record type 05: payment related information. */
export type Addenda05 = {
  readonly typeCode: '05'
  /** Positions 4–83. */
  readonly paymentRelatedInformation: string
  /** Positions 84–87: 1 for the first addenda of its entry, 2 for the next… */
  readonly sequenceNumber: number
  /** Positions 88–94: the last 7 digits of its entry's trace number. */
  readonly entryDetailSequenceNumber: number
}

/** Addenda record type 98: a notification of change (COR). */
export type Addenda98 = {
  readonly typeCode: '98'
  /** Positions 4–6: `C01`, `C02`, … */
  readonly changeCode: string
  /** Positions 7–21: the trace number of the original entry. */
  readonly originalTraceNumber: string
  /** Positions 28–35: the original RDFI's 8-digit routing identification. */
  readonly originalRdfiIdentification: string
  /** Positions 36–64: the corrected data. */
  readonly correctedData: string
  /** Positions 80–94. */
  readonly traceNumber: string
}

/** Addenda record type 99: a return. */
export type Addenda99 = {
  readonly typeCode: '99'
  /** Positions 4–6: `R01`, `R02`, … */
  readonly returnReasonCode: string
  /** Positions 7–21: the trace number of the original entry. */
  readonly originalTraceNumber: string
  /** Positions 22–27, YYMMDD, or `''` when blank. */
  readonly dateOfDeath: string
  /** Positions 28–35: the original RDFI's 8-digit routing identification. */
  readonly originalRdfiIdentification: string
  /** Positions 36–79. */
  readonly addendaInformation: string
  /** Positions 80–94. */
  readonly traceNumber: string
}

/** An addenda record of an entry (type 7) of the types this package reads. */
export type Addenda = Addenda05 | Addenda98 | Addenda99

/** The entry detail record (type 6), with the addenda records that follow it. */
export type EntryDetail = {
  /** Positions 2–3 (22 checking credit, 27 checking debit, 32/37 savings, 42/47 GL, 52/55 loan, …). */
  readonly transactionCode: number
  /** Positions 4–11: the receiving DFI's 8-digit routing identification. */
  readonly rdfiIdentification: string
  /** Position 12: the routing number's check digit. */
  readonly checkDigit: number
  /** Positions 13–29. */
  readonly dfiAccountNumber: string
  /** Positions 30–39, in cents. */
  readonly amount: number
  /** Positions 40–54: the individual identification number (PPD, WEB) or identification number (CCD). */
  readonly identificationNumber: string
  /** Positions 55–76: the individual name (PPD, WEB) or receiving company name (CCD). */
  readonly name: string
  /** Positions 77–78 (WEB: the payment type code). */
  readonly discretionaryData: string
  /** Position 79: 1 when addenda records follow. */
  readonly addendaRecordIndicator: 0 | 1
  /** Positions 80–94: the ODFI's 8 digits and a 7-digit sequence number. */
  readonly traceNumber: string
  /** The addenda records that follow the entry, in order. */
  readonly addenda: readonly Addenda[]
}

/** The batch control record (type 8). */
export type BatchControl = {
  /** Positions 2–4: the batch header's. */
  readonly serviceClassCode: ServiceClassCode
  /** Positions 5–10: entry and addenda records in the batch. */
  readonly entryAddendaCount: number
  /** Positions 11–20: the sum of the entries' RDFI identifications, its last 10 digits. */
  readonly entryHash: number
  /** Positions 21–32, in cents. */
  readonly totalDebit: number
  /** Positions 33–44, in cents. */
  readonly totalCredit: number
  /** Positions 45–54: the batch header's. */
  readonly companyIdentification: string
  /** Positions 55–73. */
  readonly messageAuthenticationCode: string
  /** Positions 80–87: the batch header's. */
  readonly odfiIdentification: string
  /** Positions 88–94: the batch header's. */
  readonly batchNumber: number
}

/** One batch: its header, entries (with their addenda) and control. */
export type Batch = {
  readonly header: BatchHeader
  readonly entries: readonly EntryDetail[]
  readonly control: BatchControl
}

/** The file control record (type 9). */
export type FileControl = {
  /** Positions 2–7. */
  readonly batchCount: number
  /** Positions 8–13: blocks of 10 records, the padding included. */
  readonly blockCount: number
  /** Positions 14–21: entry and addenda records in the file. */
  readonly entryAddendaCount: number
  /** Positions 22–31: the sum of the batches' entry hashes, its last 10 digits. */
  readonly entryHash: number
  /** Positions 32–43, in cents. */
  readonly totalDebit: number
  /** Positions 44–55, in cents. */
  readonly totalCredit: number
}

/** A whole NACHA file. */
export type NachaFile = {
  readonly header: FileHeader
  readonly batches: readonly Batch[]
  readonly control: FileControl
}

/** The first problem found in a file: its 1-based line, the record's type (its first character), the field and why. */
export type NachaError = {
  readonly record: number
  readonly recordType: string
  readonly field: string
  readonly reason: string
}

/** What the parser answers: the file, or the first problem in it. */
export type ParseResult = { readonly ok: true; readonly file: NachaFile } | { readonly ok: false; readonly error: NachaError }

/** Transaction codes of credits (automated returns and notifications of change for credits, credits, prenotes, zero-dollar credits). */
export const CREDIT_CODES: ReadonlySet<number> = new Set([21, 22, 23, 24, 31, 32, 33, 34, 41, 42, 43, 44, 51, 52, 53, 54])

/** Transaction codes of debits (automated returns and notifications of change for debits, debits, prenotes, zero-dollar debits). */
export const DEBIT_CODES: ReadonlySet<number> = new Set([26, 27, 28, 29, 36, 37, 38, 39, 46, 47, 48, 49, 55, 56])

/** Transaction codes whose amount must be zero: prenotifications and zero-dollar entries. */
export const ZERO_AMOUNT_CODES: ReadonlySet<number> = new Set([23, 24, 28, 29, 33, 34, 38, 39, 43, 44, 48, 49, 53, 54])

/** The check digit of an 8-digit routing identification (weights 3, 7, 1). */
export const checkDigitOf = (rdfi8: string): number => {
  const w = [3, 7, 1, 3, 7, 1, 3, 7]
  let sum = 0
  for (let i = 0; i < 8; i++) sum += (rdfi8.charCodeAt(i) - 48) * (w[i] ?? 0)
  return (10 - (sum % 10)) % 10
}
