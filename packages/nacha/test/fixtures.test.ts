import { readFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { expect } from 'chai'
import { parseNachaFile, writeNachaFile, type NachaFile } from '../src/index.js'
import { MOOV_FIXTURES } from './moov-fixtures.js'

/**
 * The fixtures of moov-io/ach (test/fixtures/moov-io, with its LICENSE and README.md): someone else's
 * reading of the format. Files are read as latin1 (one character a byte), so a byte outside
 * printable ASCII is refused where it stands instead of being decoded.
 */
const DIR = MOOV_FIXTURES
const read = (name: string): string => readFileSync(`${DIR}${name}`, 'latin1')

const parsed = (name: string): NachaFile => {
  const r = parseNachaFile(read(name))
  if (!r.ok) throw new Error(`${name}: ${JSON.stringify(r.error)}`)
  return r.file
}

/**
 * The normalisation a round trip needs, and nothing else:
 * - line endings (`\r\n` → `\n`; a last line with or without its `\n`; empty lines at the end);
 * - trailing padding lines (records of 94 nines): the writer pads to a multiple of 10 lines,
 *   some inputs have no padding (return-WEB.ach ends with its file control at line 10);
 * - records whose trailing blanks were trimmed are padded back with blanks to 94 characters:
 *   ppd-debit.ach and return-PPD-custom-reason-code.ach end their file header after the last
 *   non-blank character (`My Bank Name`, `Fake origin`) and their file control after the credit
 *   total (55 characters). The parser reads such a line as its record with blanks after it (it
 *   must not itself end in a blank: short-line.ach's is refused), and the writer writes 94.
 * Nothing else: every field, blank or not, comes back as it was. (return-WEB.ach justifies the
 * company identification differently in the batch header, `123456789 `, and in its control,
 * ` 123456789`; the model keeps the control's, so the writer reproduces it.)
 */
const normalised = (text: string): string =>
  text
    .replace(/\r\n/g, '\n')
    .split('\n')
    .filter((line) => line !== '' && line !== '9'.repeat(94))
    .map((line) => line.padEnd(94, ' '))
    .join('\n')

const VALID = [
  'ppd-debit.ach',
  'ppd-mixedDebitCredit.ach',
  'web-debit.ach',
  'loan-credit.ach',
  'gl-debit.ach',
  'cor-example.ach',
  'return-WEB.ach',
  'return-PPD-custom-reason-code.ach',
] as const

describe('NACHA fixtures of moov-io/ach', () => {
  for (const name of VALID) {
    it(`${name} parses, and writing it gives it back byte for byte`, () => {
      const file = parsed(name)
      const written = writeNachaFile(file)
      expect(normalised(written)).to.equal(normalised(read(name)))
      const lines = written.split('\n')
      expect(lines.pop()).to.equal('')
      expect(lines.length % 10).to.equal(0)
      for (const line of lines) expect(line).to.have.length(94)
      expect(parseNachaFile(written)).to.deep.equal({ ok: true, file })
    })
  }

  it('reads the fields of ppd-debit.ach as they are', () => {
    const file = parsed('ppd-debit.ach')
    expect(file.header).to.deep.equal({
      priorityCode: '01',
      immediateDestination: '231380104',
      immediateOrigin: '0121042882',
      fileCreationDate: '190624',
      fileCreationTime: '0000',
      fileIdModifier: 'A',
      immediateDestinationName: 'Federal Reserve Bank',
      immediateOriginName: 'My Bank Name',
      referenceCode: '',
    })
    const [batch] = file.batches
    expect(batch?.header).to.deep.include({ serviceClassCode: 225, companyName: 'Name on Account', companyIdentification: '121042882', secCode: 'PPD', batchNumber: 1, odfiIdentification: '12104288' })
    expect(batch?.entries[0]).to.deep.equal({
      transactionCode: 27,
      rdfiIdentification: '23138010',
      checkDigit: 4,
      dfiAccountNumber: '12345678',
      amount: 100000000,
      identificationNumber: '',
      name: 'Receiver Account Name',
      discretionaryData: '',
      addendaRecordIndicator: 0,
      traceNumber: '121042880000001',
      addenda: [],
    })
    expect(file.control).to.deep.equal({ batchCount: 1, blockCount: 1, entryAddendaCount: 1, entryHash: 23138010, totalDebit: 100000000, totalCredit: 0 })
  })

  it('reads addenda 98 and 99', () => {
    expect(parsed('cor-example.ach').batches[0]?.entries[0]?.addenda).to.deep.equal([
      { typeCode: '98', changeCode: 'C01', originalTraceNumber: '121042880000001', originalRdfiIdentification: '12104288', correctedData: '1918171614', traceNumber: '091012980000088' },
    ])
    expect(parsed('return-WEB.ach').batches.map((b) => b.entries[0]?.addenda[0])).to.deep.equal([
      { typeCode: '99', returnReasonCode: 'R01', originalTraceNumber: '091400600000001', dateOfDeath: '', originalRdfiIdentification: '09100001', addendaInformation: '', traceNumber: '091000017611242' },
      { typeCode: '99', returnReasonCode: 'R03', originalTraceNumber: '091400600000003', dateOfDeath: '', originalRdfiIdentification: '02100002', addendaInformation: '', traceNumber: '021000029461242' },
    ])
    expect(parsed('return-PPD-custom-reason-code.ach').batches[0]?.entries[0]?.addenda[0]).to.deep.include({ typeCode: '99', returnReasonCode: 'R97' })
  })

  it('accepts \\r\\n line endings and no padding', () => {
    const text = read('web-debit.ach')
    const crlf = text.replace(/\n/g, '\r\n')
    expect(parseNachaFile(crlf)).to.deep.equal(parseNachaFile(text))
    const unpadded = text.split('\n').filter((l) => l !== '9'.repeat(94)).join('\n')
    expect(parseNachaFile(unpadded)).to.deep.equal(parseNachaFile(text))
  })

  it('reads a file of records without line endings, and refuses a COR entry with an amount or a plain credit code', () => {
    const text = read('ppd-mixedDebitCredit.ach')
    expect(parseNachaFile(text.split('\n').join(''))).to.deep.equal(parseNachaFile(text))
    const cor = read('cor-example.ach').split('\n')
    const withAmount = [...cor.slice(0, 2), cor[2]!.slice(0, 29) + '0000000001' + cor[2]!.slice(39), ...cor.slice(3)].join('\n')
    expect(parseNachaFile(withAmount)).to.deep.nested.include({ 'error.record': 3, 'error.field': 'amount' })
    const plainCredit = [...cor.slice(0, 2), '622' + cor[2]!.slice(3), ...cor.slice(3)].join('\n')
    expect(parseNachaFile(plainCredit)).to.deep.nested.include({ 'error.record': 3, 'error.field': 'transaction code' })
  })

  /** Each refused file with the record (1-based line) and field of its first problem. */
  const REFUSED: ReadonlyArray<readonly [string, number, string, string]> = [
    // Its file header is 93 characters ending in a blank (every field after the origin is one place to the left).
    ['20110729A-invalid.ach', 1, '1', 'record length'],
    ['ppd-debit-invalid-entryDetail-checkDigit.ach', 3, '6', 'check digit'],
    // An entry detail of 98 characters (4 blanks too many); moov-io trims them, this parser refuses.
    ['long-line.ach', 3, '6', 'record length'],
    // A file control of 74 characters ending in blanks: not a record whose trailing blanks were trimmed.
    ['short-line.ach', 5, '9', 'record length'],
    // The crashers are each one line of 94-character records, the first a batch header.
    ['crashers/0.ach', 1, '5', 'record type'],
    ['crashers/1.ach', 1, '5', 'record type'],
    ['crashers/2.ach', 1, '5', 'record type'],
    ['crashers/3.ach', 1, '5', 'record type'],
    ['crashers/4.ach', 1, '5', 'record type'],
    ['crashers/5.ach', 1, '5', 'record type'],
  ]
  for (const [name, record, recordType, field] of REFUSED) {
    it(`refuses ${name} at record ${record}, field ${field}`, () => {
      const r = parseNachaFile(read(name))
      expect(r.ok).to.equal(false)
      if (!r.ok) {
        expect(r.error).to.deep.include({ record, recordType, field })
        expect(r.error.reason).to.be.a('string').and.not.equal('')
      }
    })
  }

  it('refuses the crashers decoded as UTF-8 too', () => {
    for (let i = 0; i <= 5; i++) {
      const r = parseNachaFile(readFileSync(`${DIR}crashers/${i}.ach`, 'utf8'))
      expect(r.ok, `crasher ${i}`).to.equal(false)
      if (!r.ok) expect(r.error.record).to.equal(1)
    }
  })

  it('parses the gzipped file of 200 batches and 100,000 entries, its counts and totals as its file control says', function () {
    this.timeout(120_000)
    const text = gunzipSync(readFileSync(`${DIR}CCD+addenda05-200-batches-100000-entries.ach.gz`)).toString('latin1')
    const r = parseNachaFile(text)
    if (!r.ok) throw new Error(JSON.stringify(r.error))
    const { batches, control } = r.file
    expect(control).to.deep.equal({ batchCount: 200, blockCount: 20041, entryAddendaCount: 200000, entryHash: 3801000000, totalDebit: 123400000, totalCredit: 0 })
    expect(batches).to.have.length(control.batchCount)
    const entries = batches.flatMap((b) => b.entries)
    expect(entries).to.have.length(100_000)
    expect(entries.length + entries.reduce((n, e) => n + e.addenda.length, 0)).to.equal(control.entryAddendaCount)
    expect(entries.reduce((n, e) => n + e.amount, 0)).to.equal(control.totalDebit)
    expect(entries.reduce((n, e) => n + Number(e.rdfiIdentification), 0) % 10_000_000_000).to.equal(control.entryHash)
    expect(batches.every((b) => b.header.secCode === 'CCD')).to.equal(true)
    expect(writeNachaFile(r.file)).to.equal(text)
  })
})
