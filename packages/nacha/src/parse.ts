import {
  CREDIT_CODES,
  DEBIT_CODES,
  ZERO_AMOUNT_CODES,
  checkDigitOf,
  type Addenda,
  type Batch,
  type BatchControl,
  type BatchHeader,
  type EntryDetail,
  type FileControl,
  type FileHeader,
  type NachaError,
  type NachaFile,
  type ParseResult,
  type ServiceClassCode,
} from './model.js'

/** A record is 94 characters. */
export const RECORD_LENGTH = 94

/** Standard entry class codes read with the common layout of record 6 (IAT and ADV have layouts of their own and are refused). */
export const SEC_CODES: ReadonlySet<string> = new Set([
  'ACK', 'ARC', 'ATX', 'BOC', 'CCD', 'CIE', 'COR', 'CTX', 'DNE', 'ENR', 'MTE', 'POP', 'POS', 'PPD', 'RCK', 'SHR', 'TEL', 'TRC', 'TRX', 'WEB', 'XCK',
])

/** Transaction codes of automated returns and notifications of change: the only ones of a COR batch. */
const RETURN_NOC_CODES: ReadonlySet<number> = new Set([21, 26, 31, 36, 41, 46, 51, 56])

/** SEC codes whose entries may carry more than one addenda 05 (up to 9999). */
const MANY_ADDENDA = new Set(['CTX', 'ENR', 'TRX'])

/** The first problem, thrown inside the parser and caught at its edge (never out of it). */
class Refusal {
  constructor(readonly error: NachaError) {}
}

/** One line being read: its number, its text (94 characters) and its type, for the errors. */
type Line = { readonly no: number; readonly text: string; readonly type: string }

function refuse(line: Line, field: string, reason: string): never {
  throw new Refusal({ record: line.no, recordType: line.type, field, reason })
}

/** Positions `start`–`start + length - 1` (1-based, as NACHA numbers them). */
const raw = (line: Line, start: number, length: number): string => line.text.slice(start - 1, start - 1 + length)

/** A text field: printable ASCII, its trailing blanks dropped. */
const text = (line: Line, start: number, length: number, field: string): string => {
  const s = line.text
  for (let i = start - 1; i < start - 1 + length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x20 || c > 0x7e) refuse(line, field, `character ${i + 1} is not printable ASCII (code ${c})`)
  }
  let end = start - 1 + length
  while (end > start - 1 && s.charCodeAt(end - 1) === 0x20) end--
  return s.slice(start - 1, end)
}

/** A field of digits only, as a string. */
const digits = (line: Line, start: number, length: number, field: string): string => {
  const s = line.text
  for (let i = start - 1; i < start - 1 + length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x30 || c > 0x39) refuse(line, field, `must be ${length} digits; found ${JSON.stringify(raw(line, start, length))}`)
  }
  return s.slice(start - 1, start - 1 + length)
}

/** A numeric field (at most 15 digits, a safe integer). */
const num = (line: Line, start: number, length: number, field: string): number => {
  const s = line.text
  let value = 0
  for (let i = start - 1; i < start - 1 + length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x30 || c > 0x39) refuse(line, field, `must be ${length} digits; found ${JSON.stringify(raw(line, start, length))}`)
    value = value * 10 + (c - 48)
  }
  return value
}

/** A field of digits, or all blanks (answered `''`). */
const digitsOrBlank = (line: Line, start: number, length: number, field: string): string =>
  raw(line, start, length).trim() === '' ? '' : digits(line, start, length, field)

const blank = (line: Line, start: number, length: number, field: string): void => {
  if (raw(line, start, length) !== ' '.repeat(length)) refuse(line, field, `reserved: must be blank; found ${JSON.stringify(raw(line, start, length))}`)
}

/** YYMMDD with a month 01–12 and a day 01–31. */
const date = (line: Line, start: number, field: string): string => {
  const d = digits(line, start, 6, field)
  const month = Number(d.slice(2, 4))
  const day = Number(d.slice(4, 6))
  if (month < 1 || month > 12 || day < 1 || day > 31) refuse(line, field, `${d} is not a date (YYMMDD)`)
  return d
}

const dateOrBlank = (line: Line, start: number, field: string): string => (raw(line, start, 6) === '      ' ? '' : date(line, start, field))

/** A routing field of 10 positions: a blank and 9 digits, or 10 digits. */
const routing10 = (line: Line, start: number, field: string): string => {
  const r = raw(line, start, 10)
  if (r.charCodeAt(0) === 0x20) return digits(line, start + 1, 9, field)
  return digits(line, start, 10, field)
}

const SERVICE_CLASSES: ReadonlySet<number> = new Set([200, 220, 225, 280])

const serviceClass = (line: Line, start: number): ServiceClassCode => {
  const code = num(line, start, 3, 'service class code')
  if (!SERVICE_CLASSES.has(code)) refuse(line, 'service class code', `${code} is not 200, 220, 225 or 280`)
  return code as ServiceClassCode
}

const fileHeader = (line: Line): FileHeader => {
  const priorityCode = digits(line, 2, 2, 'priority code')
  if (priorityCode !== '01') refuse(line, 'priority code', `must be 01; found ${priorityCode}`)
  const header: FileHeader = {
    priorityCode,
    immediateDestination: routing10(line, 4, 'immediate destination'),
    immediateOrigin: routing10(line, 14, 'immediate origin'),
    fileCreationDate: date(line, 24, 'file creation date'),
    fileCreationTime: digitsOrBlank(line, 30, 4, 'file creation time'),
    fileIdModifier: raw(line, 34, 1),
    immediateDestinationName: '',
    immediateOriginName: '',
    referenceCode: '',
  }
  const time = header.fileCreationTime
  if (time !== '' && (Number(time.slice(0, 2)) > 23 || Number(time.slice(2)) > 59)) refuse(line, 'file creation time', `${time} is not a time (HHMM)`)
  if (!/^[A-Z0-9]$/.test(header.fileIdModifier)) refuse(line, 'file id modifier', `must be A–Z or 0–9; found ${JSON.stringify(header.fileIdModifier)}`)
  if (raw(line, 35, 3) !== '094') refuse(line, 'record size', `must be 094; found ${JSON.stringify(raw(line, 35, 3))}`)
  if (raw(line, 38, 2) !== '10') refuse(line, 'blocking factor', `must be 10; found ${JSON.stringify(raw(line, 38, 2))}`)
  if (raw(line, 40, 1) !== '1') refuse(line, 'format code', `must be 1; found ${JSON.stringify(raw(line, 40, 1))}`)
  return {
    ...header,
    immediateDestinationName: text(line, 41, 23, 'immediate destination name'),
    immediateOriginName: text(line, 64, 23, 'immediate origin name'),
    referenceCode: text(line, 87, 8, 'reference code'),
  }
}

const batchHeader = (line: Line): BatchHeader => {
  const serviceClassCode = serviceClass(line, 2)
  const companyName = text(line, 5, 16, 'company name')
  const companyDiscretionaryData = text(line, 21, 20, 'company discretionary data')
  const companyIdentification = text(line, 41, 10, 'company identification')
  const secCode = text(line, 51, 3, 'standard entry class code')
  if (!SEC_CODES.has(secCode)) {
    refuse(line, 'standard entry class code', secCode === 'IAT' || secCode === 'ADV' ? `${secCode} batches are not supported` : `${JSON.stringify(secCode)} is not a standard entry class code`)
  }
  const companyEntryDescription = text(line, 54, 10, 'company entry description')
  const companyDescriptiveDate = text(line, 64, 6, 'company descriptive date')
  const effectiveEntryDate = digitsOrBlank(line, 70, 6, 'effective entry date')
  const settlementDate = digitsOrBlank(line, 76, 3, 'settlement date')
  const originatorStatusCode = raw(line, 79, 1)
  if (originatorStatusCode !== '0' && originatorStatusCode !== '1' && originatorStatusCode !== '2') {
    refuse(line, 'originator status code', `must be 0, 1 or 2; found ${JSON.stringify(originatorStatusCode)}`)
  }
  return {
    serviceClassCode,
    companyName,
    companyDiscretionaryData,
    companyIdentification,
    secCode,
    companyEntryDescription,
    companyDescriptiveDate,
    effectiveEntryDate,
    settlementDate,
    originatorStatusCode,
    odfiIdentification: digits(line, 80, 8, 'originating DFI identification'),
    batchNumber: num(line, 88, 7, 'batch number'),
  }
}

/** An entry detail record without its addenda (added as they are read). */
const entryDetail = (line: Line, batch: BatchHeader): EntryDetail => {
  const transactionCode = num(line, 2, 2, 'transaction code')
  const isCredit = CREDIT_CODES.has(transactionCode)
  if (!isCredit && !DEBIT_CODES.has(transactionCode)) refuse(line, 'transaction code', `${transactionCode} is not a transaction code`)
  if (batch.serviceClassCode === 220 && !isCredit) refuse(line, 'transaction code', `${transactionCode} is a debit in a credits-only (220) batch`)
  if (batch.serviceClassCode === 225 && isCredit) refuse(line, 'transaction code', `${transactionCode} is a credit in a debits-only (225) batch`)
  if (batch.secCode === 'COR' && !RETURN_NOC_CODES.has(transactionCode)) {
    refuse(line, 'transaction code', `${transactionCode} in a COR batch: a notification of change takes 21, 26, 31, 36, 41, 46, 51 or 56`)
  }
  const rdfiIdentification = digits(line, 4, 8, 'RDFI identification')
  const checkDigit = num(line, 12, 1, 'check digit')
  const expected = checkDigitOf(rdfiIdentification)
  if (checkDigit !== expected) refuse(line, 'check digit', `${checkDigit} is not the check digit of ${rdfiIdentification} (${expected})`)
  const dfiAccountNumber = text(line, 13, 17, 'DFI account number')
  if (dfiAccountNumber.trim() === '') refuse(line, 'DFI account number', 'is blank')
  const amount = num(line, 30, 10, 'amount')
  if (amount !== 0 && batch.secCode === 'COR') refuse(line, 'amount', `must be zero in a COR batch; found ${amount}`)
  if (amount !== 0 && ZERO_AMOUNT_CODES.has(transactionCode)) refuse(line, 'amount', `must be zero for transaction code ${transactionCode} (prenote or zero-dollar entry); found ${amount}`)
  const identificationNumber = text(line, 40, 15, 'identification number')
  const name = text(line, 55, 22, 'name')
  const discretionaryData = text(line, 77, 2, 'discretionary data')
  const indicator = raw(line, 79, 1)
  if (indicator !== '0' && indicator !== '1') refuse(line, 'addenda record indicator', `must be 0 or 1; found ${JSON.stringify(indicator)}`)
  const traceNumber = digits(line, 80, 15, 'trace number')
  if (!traceNumber.startsWith(batch.odfiIdentification)) {
    refuse(line, 'trace number', `${traceNumber} does not begin with the batch's originating DFI identification ${batch.odfiIdentification}`)
  }
  return {
    transactionCode,
    rdfiIdentification,
    checkDigit,
    dfiAccountNumber,
    amount,
    identificationNumber,
    name,
    discretionaryData,
    addendaRecordIndicator: indicator === '1' ? 1 : 0,
    traceNumber,
    addenda: [],
  }
}

const addenda = (line: Line, secCode: string, entry: EntryDetail, previous: readonly Addenda[]): Addenda => {
  const typeCode = raw(line, 2, 2)
  if (typeCode === '05') {
    if (secCode === 'COR') refuse(line, 'addenda type code', 'a notification of change (COR) entry takes an addenda 98, not 05')
    if (previous.some((a) => a.typeCode !== '05')) refuse(line, 'addenda type code', 'an entry with a return or notification of change addenda takes no other addenda')
    const max = MANY_ADDENDA.has(secCode) ? 9999 : 1
    if (previous.length >= max) refuse(line, 'addenda type code', `a ${secCode} entry takes at most ${max} addenda record${max === 1 ? '' : 's'}`)
    const paymentRelatedInformation = text(line, 4, 80, 'payment related information')
    const sequenceNumber = num(line, 84, 4, 'addenda sequence number')
    if (sequenceNumber !== previous.length + 1) refuse(line, 'addenda sequence number', `must be ${previous.length + 1}; found ${sequenceNumber}`)
    const entryDetailSequenceNumber = num(line, 88, 7, 'entry detail sequence number')
    const expected = Number(entry.traceNumber.slice(8))
    if (entryDetailSequenceNumber !== expected) refuse(line, 'entry detail sequence number', `must be ${expected}, the last 7 digits of the entry's trace number; found ${entryDetailSequenceNumber}`)
    return { typeCode, paymentRelatedInformation, sequenceNumber, entryDetailSequenceNumber }
  }
  if (typeCode === '98' || typeCode === '99') {
    if (previous.length > 0) refuse(line, 'addenda type code', `an entry takes one addenda ${typeCode} and no other addenda`)
    if (typeCode === '98' && secCode !== 'COR') refuse(line, 'addenda type code', `an addenda 98 (notification of change) belongs in a COR batch, not ${secCode}`)
    if (typeCode === '99' && secCode === 'COR') refuse(line, 'addenda type code', 'a COR entry takes an addenda 98, not 99')
    const code = text(line, 4, 3, typeCode === '98' ? 'change code' : 'return reason code')
    const letter = typeCode === '98' ? 'C' : 'R'
    if (!new RegExp(`^${letter}[0-9]{2}$`).test(code)) refuse(line, typeCode === '98' ? 'change code' : 'return reason code', `must be ${letter} and two digits; found ${JSON.stringify(code)}`)
    const originalTraceNumber = digits(line, 7, 15, 'original trace number')
    if (typeCode === '98') {
      blank(line, 22, 6, 'reserved')
      const originalRdfiIdentification = digits(line, 28, 8, 'original RDFI identification')
      const correctedData = text(line, 36, 29, 'corrected data')
      if (correctedData.trim() === '') refuse(line, 'corrected data', 'is blank')
      blank(line, 65, 15, 'reserved')
      return { typeCode, changeCode: code, originalTraceNumber, originalRdfiIdentification, correctedData, traceNumber: digits(line, 80, 15, 'trace number') }
    }
    return {
      typeCode,
      returnReasonCode: code,
      originalTraceNumber,
      dateOfDeath: dateOrBlank(line, 22, 'date of death'),
      originalRdfiIdentification: digits(line, 28, 8, 'original RDFI identification'),
      addendaInformation: text(line, 36, 44, 'addenda information'),
      traceNumber: digits(line, 80, 15, 'trace number'),
    }
  }
  return refuse(line, 'addenda type code', `${JSON.stringify(typeCode)} is not an addenda type this parser reads (05, 98, 99)`)
}

/** Compares a control's figure with what its records add up to. */
const control = (line: Line, field: string, found: number, computed: number, width: number): void => {
  if (found !== computed) refuse(line, field, `is ${String(found).padStart(width, '0')}; the records add up to ${String(computed).padStart(width, '0')}`)
}

const HASH_MOD = 10_000_000_000

/** The lines of a text: `\n` or `\r\n` endings, trailing empty lines dropped; one line of 94-character records split into them. */
const linesOf = (input: string): string[] => {
  const lines = input.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] ?? ''
    if (l.endsWith('\r')) lines[i] = l.slice(0, -1)
  }
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop()
  const only = lines[0]
  if (lines.length === 1 && only !== undefined && only.length > RECORD_LENGTH && only.length % RECORD_LENGTH === 0) {
    const records: string[] = []
    for (let i = 0; i < only.length; i += RECORD_LENGTH) records.push(only.slice(i, i + RECORD_LENGTH))
    return records
  }
  return lines
}

const PADDING = '9'.repeat(RECORD_LENGTH)

/**
 * A line as a record of 94 characters. A shorter line is taken as a record whose trailing blanks
 * were trimmed (as some systems do) and padded back, so long as it does not itself end in a blank;
 * a longer line, or a shorter one ending in a blank, is a record of the wrong length.
 */
const recordOf = (no: number, given: string): Line => {
  const type = given.charAt(0)
  if (given.length === RECORD_LENGTH) return { no, text: given, type }
  const line = { no, text: given, type }
  if (given.length === 0 || given.length > RECORD_LENGTH || given.charCodeAt(given.length - 1) === 0x20) {
    refuse(line, 'record length', `${given.length} characters; a record is ${RECORD_LENGTH}`)
  }
  return { no, text: given.padEnd(RECORD_LENGTH, ' '), type }
}

const parseUnsafe = (input: string): NachaFile => {
  const lines = linesOf(input)
  if (lines.length === 0) refuse({ no: 1, text: '', type: '' }, 'record type', 'the file is empty')
  const first = recordOf(1, lines[0] ?? '')
  if (first.type !== '1') refuse(first, 'record type', `the file must begin with a file header (1); found ${JSON.stringify(first.type)}`)
  const header = fileHeader(first)
  const batches: Batch[] = []
  /** The batch being read: its entries, each with the array its addenda are pushed onto (the model's readonly array, filled here only). */
  let open: { header: BatchHeader; entries: EntryDetail[]; addenda: Addenda[][] } | undefined
  let lastBatchNumber = 0
  let fileControl: FileControl | undefined
  let i = 1
  for (; i < lines.length && fileControl === undefined; i++) {
    const line = recordOf(i + 1, lines[i] ?? '')
    switch (line.type) {
      case '1':
        refuse(line, 'record type', 'a second file header')
        break
      case '5': {
        if (open !== undefined) refuse(line, 'record type', `a batch header inside batch ${open.header.batchNumber}, which has no batch control`)
        const bh = batchHeader(line)
        if (bh.batchNumber <= lastBatchNumber) refuse(line, 'batch number', `${bh.batchNumber} after batch ${lastBatchNumber}: batch numbers must ascend`)
        lastBatchNumber = bh.batchNumber
        open = { header: bh, entries: [], addenda: [] }
        break
      }
      case '6': {
        if (open === undefined) refuse(line, 'record type', 'an entry detail outside a batch')
        const batch = open as NonNullable<typeof open>
        const previous = batch.entries[batch.entries.length - 1]
        if (previous !== undefined && previous.addendaRecordIndicator === 1 && previous.addenda.length === 0) {
          refuse(line, 'record type', `the entry before (trace ${previous.traceNumber}) has addenda record indicator 1 but no addenda`)
        }
        const entry = entryDetail(line, batch.header)
        if (previous !== undefined && entry.traceNumber <= previous.traceNumber) {
          refuse(line, 'trace number', `${entry.traceNumber} after ${previous.traceNumber}: trace numbers must ascend within a batch`)
        }
        if (batch.header.secCode === 'COR' && entry.addendaRecordIndicator !== 1) refuse(line, 'addenda record indicator', 'a COR entry must have its addenda 98')
        batch.entries.push(entry)
        batch.addenda.push(entry.addenda as Addenda[])
        break
      }
      case '7': {
        const entry = open?.entries[open.entries.length - 1]
        const list = open?.addenda[open.addenda.length - 1]
        if (open === undefined || entry === undefined || list === undefined) return refuse(line, 'record type', 'an addenda record with no entry detail before it')
        if (entry.addendaRecordIndicator !== 1) refuse(line, 'record type', `an addenda record after an entry (trace ${entry.traceNumber}) whose addenda record indicator is 0`)
        list.push(addenda(line, open.header.secCode, entry, list))
        break
      }
      case '8': {
        if (open === undefined) return refuse(line, 'record type', 'a batch control outside a batch')
        const lastEntry = open.entries[open.entries.length - 1]
        if (lastEntry !== undefined && lastEntry.addendaRecordIndicator === 1 && lastEntry.addenda.length === 0) {
          refuse(line, 'record type', `the entry before (trace ${lastEntry.traceNumber}) has addenda record indicator 1 but no addenda`)
        }
        if (open.entries.length === 0) refuse(line, 'record type', `batch ${open.header.batchNumber} has no entries`)
        const h = open.header
        const serviceClassCode = serviceClass(line, 2)
        if (serviceClassCode !== h.serviceClassCode) refuse(line, 'service class code', `${serviceClassCode} differs from the batch header's ${h.serviceClassCode}`)
        const entryAddendaCount = num(line, 5, 6, 'entry/addenda count')
        const entryHash = num(line, 11, 10, 'entry hash')
        const totalDebit = num(line, 21, 12, 'total debit entry dollar amount')
        const totalCredit = num(line, 33, 12, 'total credit entry dollar amount')
        const companyIdentification = text(line, 45, 10, 'company identification')
        const messageAuthenticationCode = text(line, 55, 19, 'message authentication code')
        blank(line, 74, 6, 'reserved')
        const odfiIdentification = digits(line, 80, 8, 'originating DFI identification')
        const batchNumber = num(line, 88, 7, 'batch number')
        let count = 0
        let hash = 0
        let debit = 0
        let credit = 0
        const entries = open.entries
        for (let e = 0; e < entries.length; e++) {
          const entry = entries[e] as EntryDetail
          count += 1 + entry.addenda.length
          hash += Number(entry.rdfiIdentification)
          if (CREDIT_CODES.has(entry.transactionCode)) credit += entry.amount
          else debit += entry.amount
        }
        control(line, 'entry/addenda count', entryAddendaCount, count, 6)
        control(line, 'entry hash', entryHash, hash % HASH_MOD, 10)
        control(line, 'total debit entry dollar amount', totalDebit, debit, 12)
        control(line, 'total credit entry dollar amount', totalCredit, credit, 12)
        // Compared without blanks: moov-io's return-WEB.ach justifies the two differently (`123456789 ` and ` 123456789`).
        if (companyIdentification.trim() !== h.companyIdentification.trim()) {
          refuse(line, 'company identification', `${JSON.stringify(companyIdentification)} differs from the batch header's ${JSON.stringify(h.companyIdentification)}`)
        }
        if (odfiIdentification !== h.odfiIdentification) refuse(line, 'originating DFI identification', `${odfiIdentification} differs from the batch header's ${h.odfiIdentification}`)
        if (batchNumber !== h.batchNumber) refuse(line, 'batch number', `${batchNumber} differs from the batch header's ${h.batchNumber}`)
        const batchControl: BatchControl = {
          serviceClassCode,
          entryAddendaCount,
          entryHash,
          totalDebit,
          totalCredit,
          companyIdentification,
          messageAuthenticationCode,
          odfiIdentification,
          batchNumber,
        }
        batches.push({ header: h, entries, control: batchControl })
        open = undefined
        break
      }
      case '9': {
        if (open !== undefined) refuse(line, 'record type', `a file control inside batch ${open.header.batchNumber}, which has no batch control`)
        const batchCount = num(line, 2, 6, 'batch count')
        const blockCount = num(line, 8, 6, 'block count')
        const entryAddendaCount = num(line, 14, 8, 'entry/addenda count')
        const entryHash = num(line, 22, 10, 'entry hash')
        const totalDebit = num(line, 32, 12, 'total debit entry dollar amount in file')
        const totalCredit = num(line, 44, 12, 'total credit entry dollar amount in file')
        blank(line, 56, 39, 'reserved')
        let count = 0
        let hash = 0
        let debit = 0
        let credit = 0
        for (const b of batches) {
          count += b.control.entryAddendaCount
          hash += b.control.entryHash
          debit += b.control.totalDebit
          credit += b.control.totalCredit
        }
        control(line, 'batch count', batchCount, batches.length, 6)
        control(line, 'block count', blockCount, Math.ceil(line.no / 10), 6)
        control(line, 'entry/addenda count', entryAddendaCount, count, 8)
        control(line, 'entry hash', entryHash, hash % HASH_MOD, 10)
        control(line, 'total debit entry dollar amount in file', totalDebit, debit, 12)
        control(line, 'total credit entry dollar amount in file', totalCredit, credit, 12)
        fileControl = { batchCount, blockCount, entryAddendaCount, entryHash, totalDebit, totalCredit }
        break
      }
      default:
        refuse(line, 'record type', `${JSON.stringify(line.type)} is not a record type (1, 5, 6, 7, 8, 9)`)
    }
  }
  if (fileControl === undefined) {
    const no = lines.length + 1
    return refuse({ no, text: '', type: '' }, 'record type', open !== undefined ? `the file ends inside batch ${open.header.batchNumber}, with no batch control` : 'the file ends without a file control (9)')
  }
  for (; i < lines.length; i++) {
    const given = lines[i] ?? ''
    if (given !== PADDING) {
      const line = { no: i + 1, text: given, type: given.charAt(0) }
      if (given.length !== RECORD_LENGTH) refuse(line, 'record length', `${given.length} characters; after the file control only padding records (94 nines) may follow`)
      refuse(line, 'record type', 'after the file control only padding records (94 nines) may follow')
    }
  }
  return { header, batches, control: fileControl }
}

/**
 * Reads a NACHA file (`\n` or `\r\n` line endings, padding records of all 9s after the file
 * control) into its model, checking every field and every control total: the file, or the first
 * problem found, with its 1-based line (its 94-character record when the file is one line of
 * records without line endings; the line after the last when a record is missing at the end).
 * Never throws.
 */
export const parseNachaFile = (input: string): ParseResult => {
  try {
    if (typeof input !== 'string') return { ok: false, error: { record: 0, recordType: '', field: 'file', reason: 'the input is not text' } }
    return { ok: true, file: parseUnsafe(input) }
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, error: error.error }
    return { ok: false, error: { record: 0, recordType: '', field: 'file', reason: `unreadable: ${error instanceof Error ? error.message : String(error)}` } }
  }
}
