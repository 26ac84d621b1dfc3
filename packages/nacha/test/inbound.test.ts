import { readFileSync } from 'node:fs'
import { expect } from 'chai'
import {
  buildNachaFile,
  entriesWithoutAddendaOf,
  noticesOf,
  parseCorrectedData,
  parseNachaFile,
  returnsOf,
  writeNachaFile,
  type NachaFile,
  type ParseResult,
  type WritableNachaFile,
} from '../src/index.js'
import { MOOV_FIXTURES } from './moov-fixtures.js'

/** The readers of inbound files: returns (addenda 99) and notifications of change (addenda 98), field by field. */

const ok = (r: ParseResult): NachaFile => {
  if (!r.ok) throw new Error(JSON.stringify(r.error))
  return r.file
}

const read = (name: string): string => readFileSync(`${MOOV_FIXTURES}${name}`, 'latin1')
const parsed = (name: string): NachaFile => ok(parseNachaFile(read(name)))

/** Replaces positions `start`…(1-based) of line `no` (1-based). */
const patched = (text: string, no: number, start: number, value: string): string => {
  const lines = text.split('\n')
  const line = (lines[no - 1] ?? '').padEnd(94, ' ')
  lines[no - 1] = line.slice(0, start - 1) + value + line.slice(start - 1 + value.length)
  return lines.join('\n')
}

describe('returnsOf', () => {
  it('reads return-WEB.ach field by field', () => {
    const file = parsed('return-WEB.ach')
    expect(returnsOf(file)).to.deep.equal([
      {
        record: 3,
        batchNumber: 1,
        secCode: 'WEB',
        transactionCode: 26,
        traceNumber: '091000017611242',
        amount: 12354,
        returnReasonCode: 'R01',
        originalTraceNumber: '091400600000001',
        originalRdfiIdentification: '09100001',
        dateOfDeath: null,
        addendaInformation: '',
      },
      {
        record: 7,
        batchNumber: 2,
        secCode: 'WEB',
        transactionCode: 21,
        traceNumber: '021000029461242',
        amount: 4565,
        returnReasonCode: 'R03',
        originalTraceNumber: '091400600000003',
        originalRdfiIdentification: '02100002',
        dateOfDeath: null,
        addendaInformation: '',
      },
    ])
    expect(noticesOf(file)).to.deep.equal([])
    expect(entriesWithoutAddendaOf(file)).to.deep.equal([])
  })

  it('reads return-PPD-custom-reason-code.ach field by field (a code outside R01–R85 kept as it is)', () => {
    const file = parsed('return-PPD-custom-reason-code.ach')
    expect(returnsOf(file)).to.deep.equal([
      {
        record: 3,
        batchNumber: 1,
        secCode: 'PPD',
        transactionCode: 21,
        traceNumber: '092221170000001',
        amount: 106161,
        returnReasonCode: 'R97',
        originalTraceNumber: '092221172022300',
        originalRdfiIdentification: '12330515',
        dateOfDeath: null,
        addendaInformation: '',
      },
    ])
    expect(noticesOf(file)).to.deep.equal([])
  })

  it('reads a date of death (R14) and the addenda information', () => {
    let text = read('return-WEB.ach')
    text = patched(text, 4, 4, 'R14')
    text = patched(text, 4, 22, '260315')
    text = patched(text, 4, 36, 'BENEFICIARY DECEASED 2026-03-15')
    const [first, second] = returnsOf(ok(parseNachaFile(text)))
    expect(first).to.deep.include({ returnReasonCode: 'R14', dateOfDeath: '260315', addendaInformation: 'BENEFICIARY DECEASED 2026-03-15', originalTraceNumber: '091400600000001' })
    expect(second).to.deep.include({ returnReasonCode: 'R03', dateOfDeath: null })
  })

  it('matches a return to the built entry by its original trace number, and leaves out forward entries', () => {
    const built = ok(
      buildNachaFile({
        originator: { name: 'LENDGATE', companyIdentification: '1234567890', odfiRoutingNumber: '121042882', odfiName: 'ODFI BANK' },
        destination: { routingNumber: '231380104', name: 'FEDERAL RESERVE BANK' },
        fileCreationDate: '260529',
        batches: [
          {
            secCode: 'PPD',
            entryDescription: 'LOAN PMT',
            effectiveEntryDate: '260601',
            debits: [
              { traceNumber: '121042880000007', routingNumber: '231380104', accountNumber: '111', accountType: 'checking', amount: 5000, name: 'A' },
              { traceNumber: '121042880000009', routingNumber: '231380104', accountNumber: '222', accountType: 'savings', amount: 7000, name: 'B' },
            ],
          },
        ],
      }),
    )
    expect(returnsOf(built)).to.deep.equal([])
    expect(entriesWithoutAddendaOf(built)).to.deep.equal([
      { record: 3, batchNumber: 1, secCode: 'PPD', transactionCode: 27, traceNumber: '121042880000007', amount: 5000 },
      { record: 4, batchNumber: 1, secCode: 'PPD', transactionCode: 37, traceNumber: '121042880000009', amount: 7000 },
    ])
    // The RDFI returns the savings debit (trace …9) as R01, in a file of its own.
    const original = built.batches[0]!.entries[1]!
    const returned: WritableNachaFile = {
      header: { ...built.header, immediateDestination: '121042882', immediateOrigin: '231380104', immediateDestinationName: 'ODFI BANK', immediateOriginName: 'RDFI' },
      batches: [
        {
          header: { ...built.batches[0]!.header, odfiIdentification: '23138010' },
          entries: [
            {
              ...original,
              transactionCode: 36,
              traceNumber: '231380100000001',
              addendaRecordIndicator: 1,
              addenda: [{ typeCode: '99', returnReasonCode: 'R01', originalTraceNumber: original.traceNumber, dateOfDeath: '', originalRdfiIdentification: '23138010', addendaInformation: '', traceNumber: '231380100000001' }],
            },
          ],
        },
      ],
    }
    const [r] = returnsOf(ok(parseNachaFile(writeNachaFile(returned))))
    expect(r).to.deep.equal({
      record: 3,
      batchNumber: 1,
      secCode: 'PPD',
      transactionCode: 36,
      traceNumber: '231380100000001',
      amount: 7000,
      returnReasonCode: 'R01',
      originalTraceNumber: '121042880000009',
      originalRdfiIdentification: '23138010',
      dateOfDeath: null,
      addendaInformation: '',
    })
  })
})

describe('noticesOf', () => {
  it('reads cor-example.ach field by field', () => {
    const file = parsed('cor-example.ach')
    expect(noticesOf(file)).to.deep.equal([
      {
        record: 3,
        batchNumber: 1,
        secCode: 'COR',
        transactionCode: 21,
        traceNumber: '121042880000001',
        amount: 0,
        changeCode: 'C01',
        originalTraceNumber: '121042880000001',
        originalRdfiIdentification: '12104288',
        correctedData: '1918171614',
        corrected: { ok: true, correction: { changeCode: 'C01', accountNumber: '1918171614' } },
      },
    ])
    expect(returnsOf(file)).to.deep.equal([])
    expect(entriesWithoutAddendaOf(file)).to.deep.equal([])
  })

  it('reads a supported change code written into the fixture, and reports an unsupported one', () => {
    const text = read('cor-example.ach')
    const notice = (code: string, data: string) => noticesOf(ok(parseNachaFile(patched(patched(text, 4, 4, code), 4, 36, data.padEnd(29, ' ')))))[0]
    expect(notice('C07', '23138010412345678901234567' + '37')).to.deep.include({
      changeCode: 'C07',
      corrected: { ok: true, correction: { changeCode: 'C07', routingNumber: '231380104', accountNumber: '12345678901234567', transactionCode: 37, accountType: 'savings' } },
    })
    expect(notice('C04', 'JANE Q DOE')?.corrected).to.deep.equal({ ok: false, unsupported: true, reason: 'C04: not a change code this package reads (C01, C02, C03, C05, C06, C07)' })
  })
})

describe('parseCorrectedData', () => {
  const pad = (s: string) => s.padEnd(29, ' ')
  const parsedAs = (code: string, data: string) => {
    const r = parseCorrectedData(code, data)
    if (!r.ok) throw new Error(r.reason)
    return r.correction
  }

  it('reads each supported layout (NACHA positions)', () => {
    expect(parsedAs('C01', pad('12345678901234567'))).to.deep.equal({ changeCode: 'C01', accountNumber: '12345678901234567' })
    expect(parsedAs('C02', '231380104')).to.deep.equal({ changeCode: 'C02', routingNumber: '231380104' })
    expect(parsedAs('C03', '231380104' + '   ' + '744-5678-99')).to.deep.equal({ changeCode: 'C03', routingNumber: '231380104', accountNumber: '744-5678-99' })
    expect(parsedAs('C05', '37')).to.deep.equal({ changeCode: 'C05', transactionCode: 37, accountType: 'savings' })
    expect(parsedAs('C06', pad('12345' + ' '.repeat(15) + '27'))).to.deep.equal({ changeCode: 'C06', accountNumber: '12345', transactionCode: 27, accountType: 'checking' })
    expect(parsedAs('C07', '231380104' + '98765'.padEnd(17, ' ') + '32')).to.deep.equal({ changeCode: 'C07', routingNumber: '231380104', accountNumber: '98765', transactionCode: 32, accountType: 'savings' })
  })

  it("reads moov-io's writer's layouts (account right-justified in C03, transaction code at 28–29 in C06 and C07)", () => {
    expect(parsedAs('C03', '231380104' + '987'.padStart(20, ' '))).to.deep.equal({ changeCode: 'C03', routingNumber: '231380104', accountNumber: '987' })
    expect(parsedAs('C06', '555'.padEnd(27, ' ') + '37')).to.deep.equal({ changeCode: 'C06', accountNumber: '555', transactionCode: 37, accountType: 'savings' })
    expect(parsedAs('C07', '231380104' + '555'.padEnd(18, ' ') + '22')).to.deep.equal({ changeCode: 'C07', routingNumber: '231380104', accountNumber: '555', transactionCode: 22, accountType: 'checking' })
  })

  it('answers why corrected data does not fit its layout', () => {
    const refused = (code: string, data: string) => parseCorrectedData(code, data)
    expect(refused('C02', '231380105')).to.deep.equal({ ok: false, unsupported: false, reason: 'C02: 231380105 is not a routing number (its check digit would be 4)' })
    expect(refused('C02', '23138010')).to.deep.equal({ ok: false, unsupported: false, reason: 'C02: the routing number (positions 1–9) must be 9 digits; found "23138010 "' })
    expect(refused('C01', '')).to.deep.equal({ ok: false, unsupported: false, reason: 'C01: the account number (positions 1–17) is blank' })
    expect(refused('C03', '231380104123456')).to.deep.equal({ ok: false, unsupported: false, reason: 'C03: positions 10–12 must be blank; found "123"' })
    expect(refused('C05', '99')).to.deep.equal({ ok: false, unsupported: false, reason: 'C05: 99 is not a transaction code' })
    expect(refused('C06', '555')).to.deep.equal({ ok: false, unsupported: false, reason: 'C06: the transaction code (positions 18–29) must be 2 digits; found "            "' })
    expect(refused('C09', '123')).to.deep.include({ ok: false, unsupported: true })
  })
})
