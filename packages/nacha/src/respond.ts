import type { BuildResult } from './build.js'
import type { Correction } from './inbound.js'
import { checkDigitOf, CREDIT_CODES, DEBIT_CODES, type Addenda98, type Addenda99, type BatchHeader, type EntryDetail, type NachaFile, type ServiceClassCode } from './model.js'
import { parseNachaFile } from './parse.js'
import { NachaFieldError, writeNachaFile, type WritableBatch } from './write.js'

/**
 * The receiving bank's side: a file of returns (addenda 99) and notifications of change (COR,
 * addenda 98) answering entries of a file it received, as a bank sends them back to the
 * originator's. Used by sandboxes and tests to play the bank; real banks' files are read with
 * `returnsOf` and `noticesOf`.
 */

/** One answer to an entry of the original file, named by that entry's trace number. */
export type EntryResponse =
  | {
      readonly kind: 'return'
      readonly originalTraceNumber: string
      /** `R01`, `R02`, … */
      readonly returnReasonCode: string
      /** Positions 36–79 of the addenda 99; blank when left out. */
      readonly addendaInformation?: string
    }
  | {
      readonly kind: 'notice'
      readonly originalTraceNumber: string
      /** What the originator must change: its corrected data is written per NACHA's layout (`correctedDataOf`). */
      readonly correction: Correction
    }

/** What `buildResponseFile` needs: the file answered, the bank answering, when, and the answers. */
export type ResponseInput = {
  /** The file whose entries are answered (as parsed): its batches' company fields and its entries are copied. */
  readonly original: NachaFile
  /** The bank answering: its 9-digit routing number (the file's immediate origin; its first 8 digits begin every trace number) and name (23 characters at most). */
  readonly bank: { readonly routingNumber: string; readonly name: string }
  /** YYMMDD. */
  readonly fileCreationDate: string
  /** HHMM, or blank when left out. */
  readonly fileCreationTime?: string
  /** `A` when left out. */
  readonly fileIdModifier?: string
  /** YYMMDD: the effective entry date of every batch. */
  readonly effectiveEntryDate: string
  readonly responses: readonly EntryResponse[]
}

/** The transaction code of a return or notification of change for an entry of `original`'s code (26 for a checking debit, 27, …); none for codes that are not answered. */
const RESPONSE_CODES: ReadonlyMap<number, number> = new Map([
  [22, 21], [23, 21], [27, 26], [28, 26],
  [32, 31], [33, 31], [37, 36], [38, 36],
  [42, 41], [43, 41], [47, 46], [48, 46],
  [52, 51], [53, 51], [55, 56],
])

/**
 * The corrected data (positions 36–79 of an addenda 98, trailing blanks dropped) of `correction`,
 * per NACHA's layouts, which `parseCorrectedData` reads back: C01 account 1–17; C02 routing 1–9;
 * C03 routing 1–9, blanks, account 13–29; C05 transaction code 1–2; C06 account 1–17, blanks,
 * transaction code 21–22; C07 routing 1–9, account 10–26, transaction code 27–28.
 */
export const correctedDataOf = (correction: Correction): string => {
  const account = (value: string): string => value.padEnd(17, ' ')
  const code = (value: number): string => String(value).padStart(2, '0')
  switch (correction.changeCode) {
    case 'C01':
      return correction.accountNumber
    case 'C02':
      return correction.routingNumber
    case 'C03':
      return `${correction.routingNumber}   ${correction.accountNumber}`
    case 'C05':
      return code(correction.transactionCode)
    case 'C06':
      return `${account(correction.accountNumber)}   ${code(correction.transactionCode)}`
    case 'C07':
      return `${correction.routingNumber}${account(correction.accountNumber)}${code(correction.transactionCode)}`
  }
}

/** 225 when every entry is a debit, 220 when every one is a credit, 200 when they mix. */
const serviceClassOf = (entries: readonly EntryDetail[]): ServiceClassCode =>
  entries.every((e) => DEBIT_CODES.has(e.transactionCode)) ? 225 : entries.every((e) => CREDIT_CODES.has(e.transactionCode)) ? 220 : 200

/** Where an entry of the original file is: its batch's header and the entry. */
type Original = { readonly batchIndex: number; readonly header: BatchHeader; readonly entry: EntryDetail }

/** The original entries by trace number. */
const originalsOf = (file: NachaFile): ReadonlyMap<string, Original> => {
  const out = new Map<string, Original>()
  file.batches.forEach((batch, batchIndex) => {
    for (const entry of batch.entries) out.set(entry.traceNumber, { batchIndex, header: batch.header, entry })
  })
  return out
}

/**
 * A file answering entries of `input.original`: for each of its batches holding an answered
 * entry, a batch of its returns (the original's SEC code and company fields) and then a `COR`
 * batch of its notifications of change, each entry in the original's order. An answer copies its
 * entry's account, name and identification; a return keeps the amount, a notification is zero.
 * Its transaction code is the response code of the original's (26 for a checking debit), its
 * trace the bank's 8 digits and a sequence from 1, and its RDFI the original's ODFI. The file
 * goes from the bank to the original's immediate origin. The file, read back as `buildNachaFile`
 * reads its own, or the first problem: field `original trace number` for an answer to no entry,
 * or to one already answered; `responses` when there are none; `transaction code` for an entry
 * that cannot be answered.
 */
export const buildResponseFile = (input: ResponseInput): BuildResult => {
  try {
    const bank8 = input.bank.routingNumber.slice(0, 8)
    const originals = originalsOf(input.original)
    const answered = new Map<string, { readonly original: Original; readonly response: EntryResponse }>()
    for (const response of input.responses) {
      const original = originals.get(response.originalTraceNumber)
      if (original === undefined) throw new NachaFieldError('original trace number', `${JSON.stringify(response.originalTraceNumber)} is the trace number of no entry of the original file`)
      if (answered.has(response.originalTraceNumber)) throw new NachaFieldError('original trace number', `${response.originalTraceNumber} is answered twice`)
      answered.set(response.originalTraceNumber, { original, response })
    }
    if (answered.size === 0) throw new NachaFieldError('responses', 'a response file answers at least one entry')
    let sequence = 0
    const entryOf = (original: Original, response: EntryResponse): EntryDetail => {
      const code = RESPONSE_CODES.get(original.entry.transactionCode)
      if (code === undefined) throw new NachaFieldError('transaction code', `an entry of transaction code ${original.entry.transactionCode} (trace ${original.entry.traceNumber}) is not answered by a return or notification of change`)
      const traceNumber = `${bank8}${String(++sequence).padStart(7, '0')}`
      const odfi = original.header.odfiIdentification
      const addenda: Addenda98 | Addenda99 =
        response.kind === 'return'
          ? { typeCode: '99', returnReasonCode: response.returnReasonCode, originalTraceNumber: original.entry.traceNumber, dateOfDeath: '', originalRdfiIdentification: original.entry.rdfiIdentification, addendaInformation: response.addendaInformation ?? '', traceNumber }
          : { typeCode: '98', changeCode: response.correction.changeCode, originalTraceNumber: original.entry.traceNumber, originalRdfiIdentification: original.entry.rdfiIdentification, correctedData: correctedDataOf(response.correction), traceNumber }
      return {
        transactionCode: code,
        rdfiIdentification: odfi,
        checkDigit: checkDigitOf(odfi),
        dfiAccountNumber: original.entry.dfiAccountNumber,
        amount: response.kind === 'return' ? original.entry.amount : 0,
        identificationNumber: original.entry.identificationNumber,
        name: original.entry.name,
        discretionaryData: original.entry.discretionaryData,
        addendaRecordIndicator: 1,
        traceNumber,
        addenda: [addenda],
      }
    }
    const batches: WritableBatch[] = []
    input.original.batches.forEach((batch, batchIndex) => {
      for (const kind of ['return', 'notice'] as const) {
        const mine = batch.entries.flatMap((entry) => {
          const found = answered.get(entry.traceNumber)
          return found !== undefined && found.original.batchIndex === batchIndex && found.response.kind === kind ? [found] : []
        })
        if (mine.length === 0) continue
        const entries = mine.map(({ original, response }) => entryOf(original, response))
        const header: BatchHeader = {
          ...batch.header,
          serviceClassCode: serviceClassOf(entries),
          secCode: kind === 'return' ? batch.header.secCode : 'COR',
          effectiveEntryDate: input.effectiveEntryDate,
          settlementDate: '',
          originatorStatusCode: '1',
          odfiIdentification: bank8,
          batchNumber: batches.length + 1,
        }
        batches.push({ header, entries })
      }
    })
    const original = input.original.header
    const text = writeNachaFile({
      header: {
        priorityCode: '01',
        immediateDestination: original.immediateOrigin.trim(),
        immediateOrigin: input.bank.routingNumber,
        fileCreationDate: input.fileCreationDate,
        fileCreationTime: input.fileCreationTime ?? '',
        fileIdModifier: input.fileIdModifier ?? 'A',
        immediateDestinationName: original.immediateOriginName,
        immediateOriginName: input.bank.name,
        referenceCode: '',
      },
      batches,
    })
    const read = parseNachaFile(text)
    return read.ok ? { ok: true, file: read.file, text } : read
  } catch (error) {
    if (error instanceof NachaFieldError) return { ok: false, error: { record: 0, recordType: '', field: error.field, reason: error.reason } }
    return { ok: false, error: { record: 0, recordType: '', field: 'input', reason: error instanceof Error ? error.message : String(error) } }
  }
}
