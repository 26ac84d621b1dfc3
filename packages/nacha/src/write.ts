import { CREDIT_CODES, DEBIT_CODES, type Addenda, type BatchHeader, type EntryDetail, type FileHeader } from './model.js'

/**
 * A batch as the writer takes it: its control is computed, but for the message authentication code
 * and the blanks around the company identification, kept when given.
 */
export type WritableBatch = {
  readonly header: BatchHeader
  readonly entries: readonly EntryDetail[]
  readonly control?: {
    readonly messageAuthenticationCode?: string
    /** The header's company identification, justified as the control record had it (the header's when left out). */
    readonly companyIdentification?: string
  }
}

/** A file as the writer takes it (a parsed `NachaFile` is one): every control is computed. */
export type WritableNachaFile = {
  readonly header: FileHeader
  readonly batches: readonly WritableBatch[]
}

/** A value that does not fit its field, thrown by `writeNachaFile`: the field, and why. */
export class NachaFieldError extends RangeError {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`)
  }
}

function fail(field: string, reason: string): never {
  throw new NachaFieldError(field, reason)
}

/** A text field, left-justified and blank-filled. */
const a = (value: string, length: number, field: string): string => {
  if (value.length > length) fail(field, `${JSON.stringify(value)} is longer than ${length} characters`)
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c < 0x20 || c > 0x7e) fail(field, `${JSON.stringify(value)} is not printable ASCII`)
  }
  return value.padEnd(length, ' ')
}

/** A numeric field: a safe, non-negative integer, right-justified and zero-filled. */
const n = (value: number, length: number, field: string): string => {
  if (!Number.isSafeInteger(value) || value < 0) fail(field, `${value} is not a non-negative integer`)
  const s = String(value)
  if (s.length > length) fail(field, `${value} does not fit in ${length} digits`)
  return s.padStart(length, '0')
}

/** A field of exactly `length` digits given as a string. */
const d = (value: string, length: number, field: string): string => {
  if (value.length !== length || !/^[0-9]*$/.test(value)) fail(field, `${JSON.stringify(value)} is not ${length} digits`)
  return value
}

/** Digits, or blanks for `''`. */
const dOrBlank = (value: string, length: number, field: string): string => (value === '' ? ' '.repeat(length) : d(value, length, field))

/** A routing field of 10 positions: 9 digits after a blank, or 10 digits. */
const routing10 = (value: string, field: string): string => (value.length === 9 ? ` ${d(value, 9, field)}` : d(value, 10, field))

const fileHeaderRecord = (h: FileHeader): string =>
  '1' +
  d(h.priorityCode, 2, 'priority code') +
  routing10(h.immediateDestination, 'immediate destination') +
  routing10(h.immediateOrigin, 'immediate origin') +
  d(h.fileCreationDate, 6, 'file creation date') +
  dOrBlank(h.fileCreationTime, 4, 'file creation time') +
  a(h.fileIdModifier, 1, 'file id modifier') +
  '094' +
  '10' +
  '1' +
  a(h.immediateDestinationName, 23, 'immediate destination name') +
  a(h.immediateOriginName, 23, 'immediate origin name') +
  a(h.referenceCode, 8, 'reference code')

const batchHeaderRecord = (h: BatchHeader): string =>
  '5' +
  n(h.serviceClassCode, 3, 'service class code') +
  a(h.companyName, 16, 'company name') +
  a(h.companyDiscretionaryData, 20, 'company discretionary data') +
  a(h.companyIdentification, 10, 'company identification') +
  a(h.secCode, 3, 'standard entry class code') +
  a(h.companyEntryDescription, 10, 'company entry description') +
  a(h.companyDescriptiveDate, 6, 'company descriptive date') +
  dOrBlank(h.effectiveEntryDate, 6, 'effective entry date') +
  dOrBlank(h.settlementDate, 3, 'settlement date') +
  a(h.originatorStatusCode, 1, 'originator status code') +
  d(h.odfiIdentification, 8, 'originating DFI identification') +
  n(h.batchNumber, 7, 'batch number')

const entryRecord = (e: EntryDetail): string =>
  '6' +
  n(e.transactionCode, 2, 'transaction code') +
  d(e.rdfiIdentification, 8, 'RDFI identification') +
  n(e.checkDigit, 1, 'check digit') +
  a(e.dfiAccountNumber, 17, 'DFI account number') +
  n(e.amount, 10, 'amount') +
  a(e.identificationNumber, 15, 'identification number') +
  a(e.name, 22, 'name') +
  a(e.discretionaryData, 2, 'discretionary data') +
  n(e.addendaRecordIndicator, 1, 'addenda record indicator') +
  d(e.traceNumber, 15, 'trace number')

const addendaRecord = (x: Addenda): string => {
  switch (x.typeCode) {
    case '05':
      return '705' + a(x.paymentRelatedInformation, 80, 'payment related information') + n(x.sequenceNumber, 4, 'addenda sequence number') + n(x.entryDetailSequenceNumber, 7, 'entry detail sequence number')
    case '98':
      return (
        '798' +
        a(x.changeCode, 3, 'change code') +
        d(x.originalTraceNumber, 15, 'original trace number') +
        ' '.repeat(6) +
        d(x.originalRdfiIdentification, 8, 'original RDFI identification') +
        a(x.correctedData, 29, 'corrected data') +
        ' '.repeat(15) +
        d(x.traceNumber, 15, 'trace number')
      )
    case '99':
      return (
        '799' +
        a(x.returnReasonCode, 3, 'return reason code') +
        d(x.originalTraceNumber, 15, 'original trace number') +
        dOrBlank(x.dateOfDeath, 6, 'date of death') +
        d(x.originalRdfiIdentification, 8, 'original RDFI identification') +
        a(x.addendaInformation, 44, 'addenda information') +
        d(x.traceNumber, 15, 'trace number')
      )
  }
}

const HASH_MOD = 10_000_000_000

/** The figures of a control record. */
type Totals = { count: number; hash: number; debit: number; credit: number }

/**
 * Writes a NACHA file: each record exactly 94 characters and ended by `\n`, every control computed
 * from the records (entry/addenda counts, entry hashes, debit and credit totals by transaction
 * code, batch and block counts), padded with records of 9s to a multiple of 10 lines. Throws a
 * `RangeError` naming the field when a value does not fit its field (a programming error: build
 * files with `buildNachaFile`, which answers such problems as a result).
 */
export const writeNachaFile = (file: WritableNachaFile): string => {
  const out: string[] = [fileHeaderRecord(file.header)]
  const total: Totals = { count: 0, hash: 0, debit: 0, credit: 0 }
  for (const batch of file.batches) {
    const h = batch.header
    out.push(batchHeaderRecord(h))
    const sum: Totals = { count: 0, hash: 0, debit: 0, credit: 0 }
    for (const e of batch.entries) {
      out.push(entryRecord(e))
      for (const x of e.addenda) out.push(addendaRecord(x))
      sum.count += 1 + e.addenda.length
      sum.hash += Number(e.rdfiIdentification)
      if (CREDIT_CODES.has(e.transactionCode)) sum.credit += e.amount
      else if (DEBIT_CODES.has(e.transactionCode)) sum.debit += e.amount
      else fail('transaction code', `${e.transactionCode} is not a transaction code`)
    }
    sum.hash %= HASH_MOD
    const companyIdentification = batch.control?.companyIdentification ?? h.companyIdentification
    if (companyIdentification.trim() !== h.companyIdentification.trim()) {
      fail('company identification', `the control's ${JSON.stringify(companyIdentification)} differs from the header's ${JSON.stringify(h.companyIdentification)}`)
    }
    out.push(
      '8' +
        n(h.serviceClassCode, 3, 'service class code') +
        n(sum.count, 6, 'entry/addenda count') +
        n(sum.hash, 10, 'entry hash') +
        n(sum.debit, 12, 'total debit entry dollar amount') +
        n(sum.credit, 12, 'total credit entry dollar amount') +
        a(companyIdentification, 10, 'company identification') +
        a(batch.control?.messageAuthenticationCode ?? '', 19, 'message authentication code') +
        ' '.repeat(6) +
        d(h.odfiIdentification, 8, 'originating DFI identification') +
        n(h.batchNumber, 7, 'batch number'),
    )
    total.count += sum.count
    total.hash += sum.hash
    total.debit += sum.debit
    total.credit += sum.credit
  }
  const records = out.length + 1
  out.push(
    '9' +
      n(file.batches.length, 6, 'batch count') +
      n(Math.ceil(records / 10), 6, 'block count') +
      n(total.count, 8, 'entry/addenda count') +
      n(total.hash % HASH_MOD, 10, 'entry hash') +
      n(total.debit, 12, 'total debit entry dollar amount in file') +
      n(total.credit, 12, 'total credit entry dollar amount in file') +
      ' '.repeat(39),
  )
  const padding = '9'.repeat(94)
  while (out.length % 10 !== 0) out.push(padding)
  return out.join('\n') + '\n'
}
