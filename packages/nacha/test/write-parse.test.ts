import { readFileSync } from 'node:fs'
import { isDeepStrictEqual } from 'node:util'
import { expect } from 'chai'
import fc from 'fast-check'
import { buildNachaFile, NachaFieldError, parseNachaFile, writeNachaFile, type BuildInput, type NachaFile, type ParseResult } from '../src/index.js'
import { MOOV_FIXTURES } from './moov-fixtures.js'

/** The writer's controls, the builder, exact amounts, the parser's refusals, and fuzzing (it never throws). */

const ok = (r: ParseResult): NachaFile => {
  if (!r.ok) throw new Error(JSON.stringify(r.error))
  return r.file
}

const INPUT: BuildInput = {
  originator: { name: 'LENDGATE', companyIdentification: '1234567890', odfiRoutingNumber: '121042882', odfiName: 'ODFI BANK' },
  destination: { routingNumber: '231380104', name: 'FEDERAL RESERVE BANK' },
  fileCreationDate: '260529',
  fileCreationTime: '0915',
  batches: [
    {
      secCode: 'PPD',
      entryDescription: 'LOAN PMT',
      effectiveEntryDate: '260601',
      debits: [
        { traceNumber: '121042880000001', routingNumber: '231380104', accountNumber: '12345678', accountType: 'checking', amount: 1, name: 'JANE DOE' },
        { traceNumber: '121042880000002', routingNumber: '091400606', accountNumber: '987654321', accountType: 'savings', amount: 99, name: 'JOHN ROE', identificationNumber: 'LOAN-42' },
      ],
    },
    {
      secCode: 'CCD',
      entryDescription: 'LOAN PMT',
      effectiveEntryDate: '260601',
      debits: [
        { traceNumber: '121042880000003', routingNumber: '121042882', accountNumber: '555', accountType: 'checking', amount: 100, name: 'ACME WIDGETS LLC', paymentRelatedInformation: 'INV 1001' },
        { traceNumber: '121042880000004', routingNumber: '031300012', accountNumber: '777', accountType: 'checking', amount: 9_999_999_999, name: 'BIG CO' },
      ],
    },
    {
      secCode: 'WEB',
      entryDescription: 'LOAN PMT',
      effectiveEntryDate: '260602',
      debits: [{ traceNumber: '121042880000005', routingNumber: '081000032', accountNumber: '42', accountType: 'checking', amount: 12_345, name: 'ANN SMITH', paymentType: 'R' }],
    },
  ],
}

/** Replaces positions `start`…(1-based) of line `no` (1-based) of a written file. */
const patched = (text: string, no: number, start: number, value: string): string => {
  const lines = text.split('\n')
  const line = lines[no - 1] ?? ''
  lines[no - 1] = line.slice(0, start - 1) + value + line.slice(start - 1 + value.length)
  return lines.join('\n')
}

describe('the NACHA writer', () => {
  const file = ok(buildNachaFile(INPUT))
  const written = writeNachaFile(file)
  const lines = written.split('\n').slice(0, -1)

  it('writes 94-character records ended by \\n, padded with 9s to a multiple of 10', () => {
    expect(written.endsWith('\n')).to.equal(true)
    expect(written.includes('\r')).to.equal(false)
    for (const line of lines) expect(line).to.have.length(94)
    // 1 header + 3 × (batch header + control) + 5 entries + 1 addenda + 1 file control = 14: padded to 20.
    expect(lines).to.have.length(20)
    expect(lines.slice(14)).to.deep.equal(Array(6).fill('9'.repeat(94)))
  })

  it('computes each batch control, field by field', () => {
    const controls = lines.filter((l) => l.startsWith('8'))
    expect(controls).to.have.length(3)
    const [ppd, ccd, web] = controls as [string, string, string]
    // service class, entry/addenda count, entry hash, total debit, total credit, company id, MAC, reserved, ODFI, batch number
    const fields = (l: string) => [l.slice(1, 4), l.slice(4, 10), l.slice(10, 20), l.slice(20, 32), l.slice(32, 44), l.slice(44, 54), l.slice(54, 73), l.slice(73, 79), l.slice(79, 87), l.slice(87, 94)]
    expect(fields(ppd)).to.deep.equal(['225', '000002', (23138010 + 9140060).toString().padStart(10, '0'), '000000000100', '000000000000', '1234567890', ' '.repeat(19), ' '.repeat(6), '12104288', '0000001'])
    expect(fields(ccd)).to.deep.equal(['225', '000003', (12104288 + 3130001).toString().padStart(10, '0'), '010000000099', '000000000000', '1234567890', ' '.repeat(19), ' '.repeat(6), '12104288', '0000002'])
    expect(fields(web)).to.deep.equal(['225', '000001', '0008100003', '000000012345', '000000000000', '1234567890', ' '.repeat(19), ' '.repeat(6), '12104288', '0000003'])
  })

  it('computes the file control, field by field', () => {
    const control = lines[13] ?? ''
    const hash = 23138010 + 9140060 + 12104288 + 3130001 + 8100003
    expect([control.slice(0, 1), control.slice(1, 7), control.slice(7, 13), control.slice(13, 21), control.slice(21, 31), control.slice(31, 43), control.slice(43, 55), control.slice(55)]).to.deep.equal([
      '9',
      '000003',
      '000002',
      '00000006',
      String(hash).padStart(10, '0'),
      String(1 + 99 + 100 + 9_999_999_999 + 12_345).padStart(12, '0'),
      '000000000000',
      ' '.repeat(39),
    ])
    expect(file.control).to.deep.equal({ batchCount: 3, blockCount: 2, entryAddendaCount: 6, entryHash: hash, totalDebit: 10_000_012_544, totalCredit: 0 })
  })

  it('takes the entry hash mod 10^10 and keeps amounts integers, exactly', () => {
    // 200 entries of RDFI 99999999 (check digit 2): the hash sum 19,999,999,800 keeps its last 10 digits.
    const many = ok(
      buildNachaFile({
        ...INPUT,
        batches: [{ secCode: 'CCD', entryDescription: 'X', effectiveEntryDate: '260601', debits: Array.from({ length: 200 }, (_, i) => ({ traceNumber: `12104288${String(i + 1).padStart(7, '0')}`, routingNumber: '999999992', accountNumber: `A${i}`, accountType: 'checking' as const, amount: [1, 99, 100, 9_999_999_999][i % 4] ?? 0, name: 'N' })) }],
      }),
    )
    expect(many.control.entryHash).to.equal(9_999_999_800)
    expect(many.control.totalDebit).to.equal(50 * (1 + 99 + 100 + 9_999_999_999))
    expect(Number.isSafeInteger(many.control.totalDebit)).to.equal(true)
    const amounts = many.batches[0]?.entries.map((e) => e.amount).slice(0, 4)
    expect(amounts).to.deep.equal([1, 99, 100, 9_999_999_999])
    const text = writeNachaFile(many)
    expect(ok(parseNachaFile(text))).to.deep.equal(many)
    expect(writeNachaFile(ok(parseNachaFile(text)))).to.equal(text)
    expect(text.split('\n').filter((l) => l.startsWith('6')).map((l) => l.slice(29, 39)).slice(0, 4)).to.deep.equal(['0000000001', '0000000099', '0000000100', '9999999999'])
  })

  it('keeps the trace numbers given, and builds WEB payment types and addenda 05', () => {
    const entries = file.batches.flatMap((b) => b.entries)
    expect(entries.map((e) => e.traceNumber)).to.deep.equal(['121042880000001', '121042880000002', '121042880000003', '121042880000004', '121042880000005'])
    expect(entries.map((e) => e.transactionCode)).to.deep.equal([27, 37, 27, 27, 27])
    expect(entries[4]?.discretionaryData).to.equal('R')
    expect(entries[2]?.addenda).to.deep.equal([{ typeCode: '05', paymentRelatedInformation: 'INV 1001', sequenceNumber: 1, entryDetailSequenceNumber: 3 }])
  })

  it('refuses to build what does not fit, or is not a routing number', () => {
    const batch = INPUT.batches[0]!
    const one = (debit: Partial<BuildInput['batches'][number]['debits'][number]>) => buildNachaFile({ ...INPUT, batches: [{ ...batch, debits: [{ ...batch.debits[0]!, ...debit }] }] })
    expect(one({ amount: 10_000_000_000 })).to.deep.include({ ok: false, error: { record: 0, recordType: '', field: 'amount', reason: '10000000000 does not fit in 10 digits' } })
    expect(one({ amount: 1.5 })).to.deep.nested.include({ ok: false, 'error.field': 'amount' })
    expect(one({ amount: -1 })).to.deep.nested.include({ ok: false, 'error.field': 'amount' })
    expect(one({ routingNumber: '231380105' })).to.deep.nested.include({ ok: false, 'error.record': 3, 'error.field': 'check digit' })
    expect(one({ name: 'X'.repeat(23) })).to.deep.nested.include({ ok: false, 'error.field': 'name' })
    expect(() => writeNachaFile({ ...file, batches: [{ ...file.batches[0]!, entries: [{ ...file.batches[0]!.entries[0]!, amount: 0.1 }] }] })).to.throw(NachaFieldError, 'amount')
  })
})

describe('trace numbers given by the caller', () => {
  const debit = (traceNumber: string, amount: number, paymentRelatedInformation?: string) => ({
    traceNumber,
    routingNumber: '231380104',
    accountNumber: `ACCT${amount}`,
    accountType: 'checking' as const,
    amount,
    name: 'JANE DOE',
    ...(paymentRelatedInformation === undefined ? {} : { paymentRelatedInformation }),
  })
  const withTraces = (ppd: readonly string[], ccd: readonly string[]): BuildInput => ({
    ...INPUT,
    batches: [
      { secCode: 'PPD', entryDescription: 'LOAN PMT', effectiveEntryDate: '260601', debits: ppd.map((t, i) => debit(t, 100 + i)) },
      { secCode: 'CCD', entryDescription: 'LOAN PMT', effectiveEntryDate: '260601', debits: ccd.map((t, i) => debit(t, 200 + i, `PAYMENT ${i}`)) },
    ],
  })

  it('a file with traces 7, 9 and 12 keeps them and round-trips byte for byte', () => {
    const built = ok(buildNachaFile(withTraces(['121042880000007', '121042880000009'], ['121042880000012'])))
    expect(built.batches.flatMap((b) => b.entries.map((e) => e.traceNumber))).to.deep.equal(['121042880000007', '121042880000009', '121042880000012'])
    // The addenda 05 names its entry by the trace's last 7 digits.
    expect(built.batches[1]?.entries[0]?.addenda).to.deep.equal([{ typeCode: '05', paymentRelatedInformation: 'PAYMENT 0', sequenceNumber: 1, entryDetailSequenceNumber: 12 }])
    const written = writeNachaFile(built)
    const lines = written.split('\n')
    expect(lines.filter((l) => l.startsWith('6')).map((l) => l.slice(79, 94))).to.deep.equal(['121042880000007', '121042880000009', '121042880000012'])
    expect(lines.filter((l) => l.startsWith('7')).map((l) => l.slice(87, 94))).to.deep.equal(['0000012'])
    const reread = ok(parseNachaFile(written))
    expect(reread).to.deep.equal(built)
    expect(writeNachaFile(reread)).to.equal(written)
  })

  const refusal = (ppd: readonly string[], ccd: readonly string[], reason: string) => {
    expect(buildNachaFile(withTraces(ppd, ccd))).to.deep.equal({ ok: false, error: { record: 0, recordType: '', field: 'trace number', reason } })
  }

  it("refuses a trace number with another ODFI's prefix", () => {
    refusal(['121042880000007', '091000010000009'], [], "batch 1, debit 2: 091000010000009 does not begin with the ODFI's routing identification 12104288")
  })

  it('refuses a trace number twice in the file, in one batch or two', () => {
    refusal(['121042880000007'], ['121042880000007'], 'batch 2, debit 1: 121042880000007 is already the trace number of batch 1, debit 1')
    refusal(['121042880000007', '121042880000007'], [], 'batch 1, debit 2: 121042880000007 is already the trace number of batch 1, debit 1')
  })

  it('refuses a trace number that is not 15 digits, or missing, or out of order in its batch', () => {
    refusal(['12104288000007'], [], 'batch 1, debit 1: "12104288000007" is not 15 digits')
    refusal(['12104288000000A'], [], 'batch 1, debit 1: "12104288000000A" is not 15 digits')
    refusal(['121042880000009', '121042880000007'], [], 'batch 1, debit 2: 121042880000007 after 121042880000009: trace numbers must ascend within a batch')
    const { traceNumber: _, ...untraced } = debit('121042880000007', 1)
    const missing = { ...INPUT, batches: [{ secCode: 'PPD', entryDescription: 'X', effectiveEntryDate: '260601', debits: [untraced] }] } as unknown as BuildInput
    expect(buildNachaFile(missing)).to.deep.equal({ ok: false, error: { record: 0, recordType: '', field: 'trace number', reason: 'batch 1, debit 1: undefined is not 15 digits' } })
  })

  it('takes traces that skip numbers and batches whose traces interleave, so long as each batch ascends', () => {
    const built = ok(buildNachaFile(withTraces(['121042880000001', '121042889999999'], ['121042880000002'])))
    expect(built.batches.map((b) => b.entries.map((e) => e.traceNumber))).to.deep.equal([['121042880000001', '121042889999999'], ['121042880000002']])
  })
})

describe('the NACHA parser refuses, naming the record and field', () => {
  const written = writeNachaFile(ok(buildNachaFile(INPUT)))
  // Lines: 1 file header, 2 batch 1 header, 3–4 entries, 5 control, 6 batch 2 header, 7 entry, 8 addenda, 9 entry, 10 control, 11 batch 3 header, 12 entry, 13 control, 14 file control.
  const cases: ReadonlyArray<readonly [string, string, number, string, string]> = [
    ['an unknown record type', patched(written, 4, 1, '3'), 4, '3', 'record type'],
    ['a short record ending in a blank', written.replace(/^(5.{80}).{13}$/m, '$1    '), 2, '5', 'record length'],
    ['a record trimmed of a field that is not blank', written.replace(/^(5.{80}).{13}$/m, '$1'), 2, '5', 'originating DFI identification'],
    ['a non-digit in an amount', patched(written, 3, 30, '00000000O1'), 3, '6', 'amount'],
    ['a non-digit in a trace number', patched(written, 3, 94, 'X'), 3, '6', 'trace number'],
    ['a bad check digit', patched(written, 3, 12, '5'), 3, '6', 'check digit'],
    ['an unknown transaction code', patched(written, 3, 2, '25'), 3, '6', 'transaction code'],
    ['a credit in a debits-only batch', patched(written, 3, 2, '22'), 3, '6', 'transaction code'],
    ['a wrong entry/addenda count', patched(written, 5, 5, '000003'), 5, '8', 'entry/addenda count'],
    ['a wrong entry hash', patched(written, 5, 11, '0032278071'), 5, '8', 'entry hash'],
    ['a wrong total debit', patched(written, 5, 21, '000000000101'), 5, '8', 'total debit entry dollar amount'],
    ['a wrong total credit', patched(written, 5, 33, '000000000001'), 5, '8', 'total credit entry dollar amount'],
    ['a control of another batch number', patched(written, 5, 88, '0000009'), 5, '8', 'batch number'],
    ['batch numbers out of order', patched(patched(written, 6, 88, '0000001'), 10, 88, '0000001'), 6, '5', 'batch number'],
    ['trace numbers out of order', patched(written, 4, 80, '121042880000000'), 4, '6', 'trace number'],
    ['a trace number of another ODFI', patched(written, 3, 80, '99999999'), 3, '6', 'trace number'],
    ['an addenda after an entry whose indicator is 0', patched(written, 7, 79, '0'), 8, '7', 'record type'],
    ['an entry whose indicator is 1 without addenda', patched(written, 9, 79, '1'), 10, '8', 'record type'],
    ['an addenda with the wrong sequence', patched(written, 8, 84, '0002'), 8, '7', 'addenda sequence number'],
    ['an unknown addenda type', patched(written, 8, 2, '02'), 8, '7', 'addenda type code'],
    ['a wrong batch count', patched(written, 14, 2, '000004'), 14, '9', 'batch count'],
    ['a wrong block count', patched(written, 14, 8, '000001'), 14, '9', 'block count'],
    ['a wrong file entry/addenda count', patched(written, 14, 14, '00000007'), 14, '9', 'entry/addenda count'],
    ['a wrong file entry hash', patched(written, 14, 22, '0000000000'), 14, '9', 'entry hash'],
    ['a wrong file total debit', patched(written, 14, 32, '000000000000'), 14, '9', 'total debit entry dollar amount in file'],
    ['a wrong file total credit', patched(written, 14, 44, '000000000001'), 14, '9', 'total credit entry dollar amount in file'],
    ['a record after the file control', patched(written, 16, 1, '1'), 16, '1', 'record type'],
    ['no file control', written.split('\n').slice(0, 13).join('\n'), 14, '', 'record type'],
    ['an IAT batch', patched(written, 2, 51, 'IAT'), 2, '5', 'standard entry class code'],
    ['an unknown SEC code', patched(written, 2, 51, 'XYZ'), 2, '5', 'standard entry class code'],
    ['a bad service class', patched(written, 2, 2, '226'), 2, '5', 'service class code'],
    ['a bad file creation date', patched(written, 1, 24, '261301'), 1, '1', 'file creation date'],
    ['a tab in a name', patched(written, 3, 60, '\t'), 3, '6', 'name'],
    ['a byte beyond ASCII in a company name', patched(written, 2, 6, '\u00e9'), 2, '5', 'company name'],
    ['an empty file', '', 1, '', 'record type'],
  ]
  for (const [what, text, record, recordType, field] of cases) {
    it(what, () => {
      const r = parseNachaFile(text)
      expect(r.ok, what).to.equal(false)
      if (!r.ok) expect(r.error, r.error.reason).to.deep.include({ record, recordType, field })
    })
  }
})

describe('the NACHA parser never throws', () => {
  const valid = [writeNachaFile(ok(buildNachaFile(INPUT))), readFileSync(`${MOOV_FIXTURES}web-debit.ach`, 'latin1'), readFileSync(`${MOOV_FIXTURES}cor-example.ach`, 'latin1')]

  /** The parser answers (a file it accepts is one the writer gives back as the same file), or names a record and field. */
  const answers = (text: string): boolean => {
    const r = parseNachaFile(text)
    if (r.ok) return isDeepStrictEqual(parseNachaFile(writeNachaFile(r.file)), r)
    const e = r.error
    return Number.isInteger(e.record) && e.record >= 1 && typeof e.recordType === 'string' && e.field !== '' && e.reason !== ''
  }

  it('on random text', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 400 }), answers), { numRuns: 2000 })
  })

  it('on random records of 94 characters', () => {
    const record = fc.tuple(fc.constantFrom('1', '5', '6', '7', '8', '9'), fc.string({ minLength: 93, maxLength: 93, unit: fc.constantFrom(...'0123456789 AZ'.split('')) })).map(([t, rest]) => t + rest)
    fc.assert(fc.property(fc.array(record, { maxLength: 30 }), (records) => answers(records.join('\n'))), { numRuns: 2000 })
  })

  it('on valid files with characters changed, lines dropped, duplicated or swapped', () => {
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant('char' as const), at: fc.nat(), char: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) }),
      fc.record({ kind: fc.constantFrom('drop' as const, 'dup' as const, 'swap' as const), at: fc.nat(), other: fc.nat() }),
    )
    fc.assert(
      fc.property(fc.constantFrom(...valid), fc.array(mutation, { minLength: 1, maxLength: 4 }), (text, mutations) => {
        let t = text
        for (const m of mutations) {
          if (m.kind === 'char') {
            const at = m.at % t.length
            t = t.slice(0, at) + m.char + t.slice(at + 1)
          } else {
            const lines = t.split('\n')
            const a = m.at % lines.length
            const b = m.other % lines.length
            if (m.kind === 'drop') lines.splice(a, 1)
            else if (m.kind === 'dup') lines.splice(a, 0, lines[a] ?? '')
            else [lines[a], lines[b]] = [lines[b] ?? '', lines[a] ?? '']
            t = lines.join('\n')
          }
        }
        return answers(t)
      }),
      { numRuns: 3000 },
    )
  })

  it('on the crashers behind a file header', () => {
    const header = valid[0]!.split('\n')[0]!
    for (let i = 0; i <= 5; i++) {
      const crasher = readFileSync(`${MOOV_FIXTURES}crashers/${i}.ach`, 'latin1').trim()
      const records = crasher.match(/.{1,94}/g) ?? []
      const r = parseNachaFile([header, ...records].join('\n'))
      expect(r.ok, `crasher ${i}`).to.equal(false)
      if (!r.ok) expect(r.error.record, `crasher ${i}: ${JSON.stringify(r.error)}`).to.be.greaterThan(1)
    }
  })
})
