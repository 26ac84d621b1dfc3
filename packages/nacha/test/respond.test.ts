import { readFileSync } from 'node:fs'
import { expect } from 'chai'
import fc from 'fast-check'
import {
  buildNachaFile,
  buildResponseFile,
  correctedDataOf,
  noticesOf,
  parseCorrectedData,
  parseNachaFile,
  returnsOf,
  writeNachaFile,
  type BuildInput,
  type BuildResult,
  type Correction,
  type NachaFile,
  type ParseResult,
  type ResponseInput,
} from '../src/index.js'
import { MOOV_FIXTURES } from './moov-fixtures.js'

/** The receiving bank's side: return and COR files answering a file of ours, read back by the inbound readers and held to moov-io's files. */

const ok = (r: ParseResult | BuildResult): NachaFile => {
  if (!r.ok) throw new Error(JSON.stringify(r.error))
  return r.file
}

const fixture = (name: string): NachaFile => ok(parseNachaFile(readFileSync(`${MOOV_FIXTURES}${name}`, 'latin1')))

/** Our debits: a CCD batch of three (one savings) and a PPD batch of two. */
const DEBITS: BuildInput = {
  originator: { name: 'LENDGATE CAPITAL', companyIdentification: '1234567890', odfiRoutingNumber: '121042882', odfiName: 'WELLS FARGO BANK' },
  destination: { routingNumber: '121042882', name: 'WELLS FARGO BANK' },
  fileCreationDate: '261130',
  fileCreationTime: '1530',
  batches: [
    {
      secCode: 'CCD',
      entryDescription: 'LOAN PMT',
      effectiveEntryDate: '261201',
      debits: [
        { traceNumber: '121042880000001', routingNumber: '011000015', accountNumber: '000000590001', accountType: 'checking', amount: 5501, name: 'ACME WIDGETS LLC', paymentRelatedInformation: 'PAYMENT 1' },
        { traceNumber: '121042880000002', routingNumber: '011000015', accountNumber: '000000590101', accountType: 'checking', amount: 12_345, name: 'BOLT WORKS INC' },
        { traceNumber: '121042880000003', routingNumber: '231380104', accountNumber: '987654321', accountType: 'savings', amount: 9_999_999_999, name: 'BIG CO' },
      ],
    },
    {
      secCode: 'PPD',
      entryDescription: 'LOAN PMT',
      effectiveEntryDate: '261201',
      debits: [
        { traceNumber: '121042880000004', routingNumber: '091400606', accountNumber: '42', accountType: 'checking', amount: 1, name: 'JANE DOE', identificationNumber: 'LOAN-42' },
        { traceNumber: '121042880000005', routingNumber: '091400606', accountNumber: '43', accountType: 'savings', amount: 2, name: 'JOHN ROE' },
      ],
    },
  ],
}

const ORIGINAL = ok(buildNachaFile(DEBITS))
const BANK = { routingNumber: '011000015', name: 'FEDERAL RESERVE BANK' }

const respond = (responses: ResponseInput['responses'], original: NachaFile = ORIGINAL): BuildResult =>
  buildResponseFile({ original, bank: BANK, fileCreationDate: '261203', fileCreationTime: '0600', effectiveEntryDate: '261203', responses })

describe('buildResponseFile', () => {
  const answered = ok(
    respond([
      { kind: 'notice', originalTraceNumber: '121042880000002', correction: { changeCode: 'C01', accountNumber: '000000590000' } },
      { kind: 'return', originalTraceNumber: '121042880000001', returnReasonCode: 'R01' },
      { kind: 'return', originalTraceNumber: '121042880000003', returnReasonCode: 'R02', addendaInformation: 'ACCOUNT CLOSED 2026-11-30' },
      { kind: 'notice', originalTraceNumber: '121042880000005', correction: { changeCode: 'C05', transactionCode: 27, accountType: 'checking' } },
      { kind: 'return', originalTraceNumber: '121042880000004', returnReasonCode: 'R10' },
    ]),
  )

  it('answers each original batch with a batch of its returns, then a COR batch of its notices, entries in the original order', () => {
    expect(answered.batches.map((b) => [b.header.secCode, b.header.serviceClassCode, b.header.batchNumber, b.entries.length])).to.deep.equal([
      ['CCD', 225, 1, 2],
      ['COR', 225, 2, 1],
      ['PPD', 225, 3, 1],
      ['COR', 225, 4, 1],
    ])
    for (const batch of answered.batches) {
      expect(batch.header).to.include({ companyName: 'LENDGATE CAPITAL', companyIdentification: '1234567890', companyEntryDescription: 'LOAN PMT', effectiveEntryDate: '261203', odfiIdentification: '01100001' })
    }
    expect(answered.header).to.include({ immediateDestination: '121042882', immediateOrigin: '011000015', immediateDestinationName: 'WELLS FARGO BANK', immediateOriginName: 'FEDERAL RESERVE BANK', fileCreationDate: '261203' })
  })

  it('returns keep the amount, notices are zero; codes 26/36 for checking and savings debits; traces the bank’s, ascending from 1', () => {
    const entries = answered.batches.flatMap((b) => b.entries)
    expect(entries.map((e) => [e.transactionCode, e.amount, e.traceNumber, e.rdfiIdentification, e.checkDigit])).to.deep.equal([
      [26, 5501, '011000010000001', '12104288', 2],
      [36, 9_999_999_999, '011000010000002', '12104288', 2],
      [26, 0, '011000010000003', '12104288', 2],
      [26, 1, '011000010000004', '12104288', 2],
      [36, 0, '011000010000005', '12104288', 2],
    ])
    const originals = new Map(ORIGINAL.batches.flatMap((b) => b.entries).map((e) => [e.traceNumber, e]))
    for (const entry of entries) {
      const addenda = entry.addenda[0]!
      expect(addenda.typeCode === '98' || addenda.typeCode === '99').to.equal(true)
      if (addenda.typeCode === '05') continue
      const original = originals.get(addenda.originalTraceNumber)!
      expect(entry).to.include({ dfiAccountNumber: original.dfiAccountNumber, name: original.name, identificationNumber: original.identificationNumber, addendaRecordIndicator: 1 })
      expect(addenda).to.include({ originalRdfiIdentification: original.rdfiIdentification, traceNumber: entry.traceNumber })
    }
    expect(answered.control).to.include({ batchCount: 4, entryAddendaCount: 10, totalDebit: 5501 + 9_999_999_999 + 1, totalCredit: 0 })
  })

  it('is read back by returnsOf and noticesOf as the bank meant it', () => {
    expect(returnsOf(answered).map((r) => [r.originalTraceNumber, r.returnReasonCode, r.amount, r.addendaInformation])).to.deep.equal([
      ['121042880000001', 'R01', 5501, ''],
      ['121042880000003', 'R02', 9_999_999_999, 'ACCOUNT CLOSED 2026-11-30'],
      ['121042880000004', 'R10', 1, ''],
    ])
    expect(noticesOf(answered).map((n) => [n.originalTraceNumber, n.changeCode, n.corrected])).to.deep.equal([
      ['121042880000002', 'C01', { ok: true, correction: { changeCode: 'C01', accountNumber: '000000590000' } }],
      ['121042880000005', 'C05', { ok: true, correction: { changeCode: 'C05', transactionCode: 27, accountType: 'checking' } }],
    ])
  })

  it('writes the same bytes for the same answers, and round-trips them', () => {
    const one = respond([{ kind: 'return', originalTraceNumber: '121042880000001', returnReasonCode: 'R01' }])
    const two = respond([{ kind: 'return', originalTraceNumber: '121042880000001', returnReasonCode: 'R01' }])
    if (!one.ok || !two.ok) expect.fail('built')
    expect(one.text).to.equal(two.text)
    expect(writeNachaFile(ok(parseNachaFile(one.text)))).to.equal(one.text)
    expect(one.text.split('\n').slice(0, -1)).to.have.length(10)
  })

  it('refuses an answer to no entry, an entry answered twice, no answers, and codes that do not fit', () => {
    const refused = (r: BuildResult) => (r.ok ? expect.fail('refused') : r.error)
    expect(refused(respond([{ kind: 'return', originalTraceNumber: '121042880000009', returnReasonCode: 'R01' }]))).to.include({ record: 0, field: 'original trace number' })
    expect(
      refused(
        respond([
          { kind: 'return', originalTraceNumber: '121042880000001', returnReasonCode: 'R01' },
          { kind: 'notice', originalTraceNumber: '121042880000001', correction: { changeCode: 'C01', accountNumber: '1' } },
        ]),
      ),
    ).to.include({ field: 'original trace number' })
    expect(refused(respond([]))).to.include({ field: 'responses' })
    expect(refused(respond([{ kind: 'return', originalTraceNumber: '121042880000001', returnReasonCode: 'X01' }]))).to.include({ record: 4, recordType: '7', field: 'return reason code' })
    expect(refused(respond([{ kind: 'return', originalTraceNumber: '121042880000001', returnReasonCode: 'R001' }]))).to.include({ record: 0, field: 'return reason code' })
    // A zero-dollar debit (29) has no return code of its own here.
    const zero = ok(parseNachaFile(writeNachaFile({ ...ORIGINAL, batches: [{ ...ORIGINAL.batches[0]!, entries: [{ ...ORIGINAL.batches[0]!.entries[1]!, transactionCode: 29, amount: 0 }] }] })))
    expect(refused(respond([{ kind: 'return', originalTraceNumber: '121042880000002', returnReasonCode: 'R01' }], zero))).to.include({ field: 'transaction code' })
  })

  it("answers moov-io's return-WEB.ach's first batch as that file has it, field by field", () => {
    const theirs = fixture('return-WEB.ach')
    const batch = theirs.batches[0]!
    const returned = batch.entries[0]!
    const addenda = returned.addenda[0]!
    if (addenda.typeCode !== '99') expect.fail('an addenda 99')
    // The WEB debit that came back, as its originator (ODFI 09140060) sent it to the RDFI 09100001.
    const original = ok(
      parseNachaFile(
        writeNachaFile({
          header: { ...theirs.header, immediateDestination: '091000019', immediateOrigin: '091400606', immediateOriginName: theirs.header.immediateDestinationName, immediateDestinationName: theirs.header.immediateOriginName },
          batches: [
            {
              header: { ...batch.header, serviceClassCode: 225, odfiIdentification: '09140060', batchNumber: 1 },
              entries: [{ ...returned, transactionCode: 27, rdfiIdentification: '09100001', checkDigit: 9, addendaRecordIndicator: 0, traceNumber: addenda.originalTraceNumber, addenda: [] }],
            },
          ],
        }),
      ),
    )
    const ours = ok(
      buildResponseFile({ original, bank: { routingNumber: '091000019', name: 'RDFI' }, fileCreationDate: theirs.header.fileCreationDate, effectiveEntryDate: batch.header.effectiveEntryDate, responses: [{ kind: 'return', originalTraceNumber: addenda.originalTraceNumber, returnReasonCode: 'R01' }] }),
    )
    const mine = ours.batches[0]!
    expect(mine.header).to.deep.include({ ...batch.header, serviceClassCode: 225 })
    const entry = mine.entries[0]!
    const { traceNumber: _theirTrace, addenda: _theirAddenda, ...theirFields } = returned
    expect(entry).to.deep.include(theirFields)
    const { traceNumber: _trace, ...theirAddendaFields } = addenda
    expect(entry.addenda[0]).to.deep.include(theirAddendaFields)
    expect(entry.traceNumber.slice(0, 8)).to.equal(returned.traceNumber.slice(0, 8))
  })

  it("answers a notice as moov-io's cor-example.ach has it, field by field", () => {
    const theirs = fixture('cor-example.ach')
    const batch = theirs.batches[0]!
    const notice = batch.entries[0]!
    const addenda = notice.addenda[0]!
    if (addenda.typeCode !== '98') expect.fail('an addenda 98')
    // The credit (22) it answers. The example is not self-consistent: its entry goes to 23138010 (the
    // original's ODFI), but the original trace begins with 12104288, which the parser demands of the
    // original's ODFI. So the original here comes from 12104288, and the answer's RDFI fields follow it.
    const original = ok(
      parseNachaFile(
        writeNachaFile({
          header: theirs.header,
          batches: [
            {
              header: { ...batch.header, secCode: 'CCD', odfiIdentification: '12104288' },
              entries: [{ ...notice, transactionCode: 22, rdfiIdentification: '12104288', checkDigit: 2, amount: 100, addendaRecordIndicator: 0, traceNumber: addenda.originalTraceNumber, addenda: [] }],
            },
          ],
        }),
      ),
    )
    const correction = parseCorrectedData(addenda.changeCode, addenda.correctedData)
    if (!correction.ok) expect.fail(correction.reason)
    const ours = ok(buildResponseFile({ original, bank: { routingNumber: '121042882', name: 'RDFI' }, fileCreationDate: theirs.header.fileCreationDate, effectiveEntryDate: '000000', responses: [{ kind: 'notice', originalTraceNumber: addenda.originalTraceNumber, correction: correction.correction }] }))
    const mine = ours.batches[0]!
    expect(mine.header).to.deep.include({ ...batch.header, batchNumber: 1 })
    const { traceNumber: _theirTrace, addenda: _theirAddenda, rdfiIdentification: _rdfi, checkDigit: _check, ...theirFields } = notice
    expect(mine.entries[0]).to.deep.include({ ...theirFields, rdfiIdentification: '12104288', checkDigit: 2 })
    const { traceNumber: _trace, ...theirAddendaFields } = addenda
    expect(mine.entries[0]!.addenda[0]).to.deep.include(theirAddendaFields)
  })
})

describe('correctedDataOf', () => {
  const digits = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...'0123456789'.split('')), minLength: min, maxLength: max })
  const account = fc.string({ unit: fc.constantFrom(...'0123456789-A'.split('')), minLength: 1, maxLength: 17 }).filter((s) => s.trim() === s)
  const routing = digits(8, 8).map((r8) => {
    const w = [3, 7, 1, 3, 7, 1, 3, 7]
    const sum = [...r8].reduce((s, c, i) => s + Number(c) * (w[i] ?? 0), 0)
    return `${r8}${(10 - (sum % 10)) % 10}`
  })
  const code = fc.constantFrom([22, 'checking'], [27, 'checking'], [32, 'savings'], [37, 'savings'], [42, 'general-ledger'], [52, 'loan']).map(([transactionCode, accountType]) => ({ transactionCode, accountType }) as const)
  const correction: fc.Arbitrary<Correction> = fc.oneof(
    account.map((accountNumber): Correction => ({ changeCode: 'C01', accountNumber })),
    routing.map((routingNumber): Correction => ({ changeCode: 'C02', routingNumber })),
    fc.tuple(routing, account).map(([routingNumber, accountNumber]): Correction => ({ changeCode: 'C03', routingNumber, accountNumber })),
    code.map((c): Correction => ({ changeCode: 'C05', ...c })),
    fc.tuple(account, code).map(([accountNumber, c]): Correction => ({ changeCode: 'C06', accountNumber, ...c })),
    fc.tuple(routing, account, code).map(([routingNumber, accountNumber, c]): Correction => ({ changeCode: 'C07', routingNumber, accountNumber, ...c })),
  )

  it('writes what parseCorrectedData reads back, for every supported change code', () => {
    fc.assert(
      fc.property(correction, (c) => {
        const data = correctedDataOf(c)
        expect(data.length).to.be.at.most(29)
        expect(parseCorrectedData(c.changeCode, data)).to.deep.equal({ ok: true, correction: c })
      }),
      { numRuns: 1000 },
    )
  })

  it('puts each field at its NACHA positions', () => {
    expect(correctedDataOf({ changeCode: 'C03', routingNumber: '011000015', accountNumber: '1234' })).to.equal('011000015   1234')
    expect(correctedDataOf({ changeCode: 'C06', accountNumber: '1234', transactionCode: 37, accountType: 'savings' })).to.equal(`${'1234'.padEnd(17)}   37`)
    expect(correctedDataOf({ changeCode: 'C07', routingNumber: '011000015', accountNumber: '1234', transactionCode: 27, accountType: 'checking' })).to.equal(`011000015${'1234'.padEnd(17)}27`)
  })
})
