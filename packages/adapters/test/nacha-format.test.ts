import { createHash } from 'node:crypto'
import type { AchDebit, AchFileContents, FormattedAchFile, PaymentId } from '@lendgate/core'
import { parseNachaFile, type BatchControl, type EntryDetail, type NachaFile } from '@lendgate/nacha'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { ADDENDA_05, BATCH_CONTROL, BATCH_HEADER, ccdFileLayoutDifferences, ccdFixtureBatch, ENTRY, FILE_CONTROL, FILE_HEADER, fixture, layoutDifferences, PADDING, type Layout } from '../../nacha/test/nacha-layouts.js'
import { nachaFileFormat, type AchOriginator } from '../src/ach/nacha-format.js'

/**
 * The NACHA file format checked against files nobody on this project wrote: the moov-io/ach
 * fixtures (packages/nacha/test/fixtures/moov-io, the same bytes as /work/shared/fixtures/nacha).
 * Every record we write is compared, field by field at NACHA's fixed positions, with a record of
 * the same type in a fixture: ppd-debit.ach (PPD), web-debit.ach (a file header with a reference
 * code, a full-length file control, padding) and the first batch of the gzipped CCD file (CCD with
 * addenda 05).
 */

const ORIGINATOR: AchOriginator = {
  odfiRoutingNumber: '121042882',
  odfiName: 'WELLS FARGO BANK',
  companyIdentification: '1470123456',
  companyName: 'LENDGATE LENDING',
  destinationRoutingNumber: '231380104',
  destinationName: 'FEDERAL RESERVE BANK',
}
const format = nachaFileFormat(ORIGINATOR)

const debit = (fields: Omit<AchDebit, 'paymentId'> & { readonly paymentId: string }): AchDebit => ({ ...fields, paymentId: fields.paymentId as PaymentId })

/** In trace order, CCD and PPD mixed as the origination store hands them over. */
const DEBITS: readonly AchDebit[] = [
  debit({ paymentId: '0f8e2a4c-5b1d-4e7a-9c3f-2d6b8a1e4f01', traceNumber: '121042880000101', secCode: 'CCD', routingNumber: '021000021', accountNumber: '000123456789', accountType: 'checking', amount: 125_000, name: 'Acme Widgets LLC' }),
  debit({ paymentId: '6a1c9e37-2f4b-4d8a-b5e6-7c0d3f9a2b12', traceNumber: '121042880000102', secCode: 'PPD', routingNumber: '011000015', accountNumber: '4410072', accountType: 'savings', amount: 48_733, name: 'Jane Q. Borrower' }),
  debit({ paymentId: 'b7d4f0a2-9e3c-4a61-8f25-1e6c7b8d9a03', traceNumber: '121042880000103', secCode: 'CCD', routingNumber: '121042882', accountNumber: '9876543210123', accountType: 'savings', amount: 310_050, name: 'Bay Area Bakeries Inc' }),
  debit({ paymentId: 'c3e5a7b9-1d2f-4c6e-a8b0-9f1e2d3c4b04', traceNumber: '121042880000104', secCode: 'CCD', routingNumber: '231380104', accountNumber: '55-0192-7', accountType: 'checking', amount: 7_501, name: 'Northwind Traders' }),
  debit({ paymentId: 'd9f1b3c5-7e8a-4b2c-9d4e-5a6b7c8d9e05', traceNumber: '121042880000105', secCode: 'PPD', routingNumber: '021000021', accountNumber: '000000012', accountType: 'checking', amount: 99, name: 'José Álvarez' }),
]

const CONTENTS: AchFileContents = { effectiveEntryDate: '2026-07-13', creationDate: '2026-07-10', creationTime: '1530', fileIdModifier: 'A', debits: DEBITS }

const formatted = (contents: AchFileContents): FormattedAchFile => {
  const result = format.format(contents)
  if (E.isLeft(result)) throw new Error(result.left.reason)
  return result.right
}
const textOf = (file: FormattedAchFile): string => new TextDecoder().decode(file.bytes)
/** The records of a written file: every line ends with `\n`, the last one too. */
const linesOf = (text: string): string[] => text.split('\n').slice(0, -1)
/** Positions `from`–`to` of a record, 1-based and inclusive, as NACHA numbers them. */
const at = (line: string, from: number, to: number): string => line.slice(from - 1, to)


const record = (...fields: readonly string[]): string => fields.join('')
const blanks = (n: number): string => ' '.repeat(n)

/** The control figures of some debits, computed here from the debits themselves. */
const totalsOf = (debits: readonly AchDebit[]) => ({
  count: debits.length + debits.filter((d) => d.secCode === 'CCD').length,
  hash: debits.reduce((sum, d) => sum + Number(d.routingNumber.slice(0, 8)), 0) % 10_000_000_000,
  debit: debits.reduce((sum, d) => sum + d.amount, 0),
})
const CCD = DEBITS.filter((d) => d.secCode === 'CCD')
const PPD = DEBITS.filter((d) => d.secCode === 'PPD')

describe('nachaFileFormat', () => {
  describe('when a cut-off has CCD and PPD debits', () => {
    const file = formatted(CONTENTS)
    const text = textOf(file)
    const lines = linesOf(text)

    it('writes, record by record and field by field, one CCD batch then one PPD batch, the controls and the padding', () => {
      const ccdEntry = (d: AchDebit, transactionCode: string, rdfi: string, check: string, account: string, amount: string, name: string): string[] => [
        record('6', transactionCode, rdfi, check, account.padEnd(17), amount, blanks(15), name.padEnd(22), blanks(2), '1', d.traceNumber),
        record('7', '05', `PAYMENT ${d.paymentId}`.padEnd(80), '0001', d.traceNumber.slice(8)),
      ]
      const [ccd1, ccd2, ccd3] = CCD as [AchDebit, AchDebit, AchDebit]
      expect(lines).to.deep.equal([
        record('1', '01', ' 231380104', ' 121042882', '260710', '1530', 'A', '094', '10', '1', 'FEDERAL RESERVE BANK'.padEnd(23), 'WELLS FARGO BANK'.padEnd(23), blanks(8)),
        record('5', '225', 'LENDGATE LENDING', blanks(20), '1470123456', 'CCD', 'LOAN PMT  ', blanks(6), '260713', blanks(3), '1', '12104288', '0000001'),
        ...ccdEntry(ccd1, '27', '02100002', '1', '000123456789', '0000125000', 'ACME WIDGETS LLC'),
        ...ccdEntry(ccd2, '37', '12104288', '2', '9876543210123', '0000310050', 'BAY AREA BAKERIES INC'),
        ...ccdEntry(ccd3, '27', '23138010', '4', '55-0192-7', '0000007501', 'NORTHWIND TRADERS'),
        record('8', '225', '000006', '0037342300', '000000442551', '000000000000', '1470123456', blanks(19), blanks(6), '12104288', '0000001'),
        record('5', '225', 'LENDGATE LENDING', blanks(20), '1470123456', 'PPD', 'LOAN PMT  ', blanks(6), '260713', blanks(3), '1', '12104288', '0000002'),
        record('6', '37', '01100001', '5', '4410072'.padEnd(17), '0000048733', blanks(15), 'JANE Q. BORROWER'.padEnd(22), blanks(2), '0', '121042880000102'),
        record('6', '27', '02100002', '1', '000000012'.padEnd(17), '0000000099', blanks(15), 'JOSE ALVAREZ'.padEnd(22), blanks(2), '0', '121042880000105'),
        record('8', '225', '000002', '0003200003', '000000048832', '000000000000', '1470123456', blanks(19), blanks(6), '12104288', '0000002'),
        record('9', '000002', '000002', '00000008', '0040542303', '000000491383', '000000000000', blanks(39)),
        ...Array<string>(6).fill(PADDING),
      ])
    })

    it('lays out every record as the fixture record of its type does', () => {
      const ppd = fixture('ppd-debit.ach')
      const web = fixture('web-debit.ach')
      const ccd = ccdFixtureBatch()
      const same = (layout: Layout, ours: string | undefined, theirs: string | undefined): void => {
        expect(layoutDifferences(layout, ours ?? '', theirs ?? '')).to.deep.equal([])
      }
      same(FILE_HEADER, lines[0], ppd[0])
      same(FILE_HEADER, lines[0], web[0])
      same(BATCH_HEADER, lines[1], ccd[0])
      for (const entry of [lines[2], lines[4], lines[6]]) same(ENTRY, entry, ccd[1])
      for (const addenda of [lines[3], lines[5], lines[7]]) same(ADDENDA_05, addenda, ccd[2])
      same(BATCH_CONTROL, lines[8], ccd.at(-1))
      same(BATCH_HEADER, lines[9], ppd[1])
      for (const entry of [lines[10], lines[11]]) same(ENTRY, entry, ppd[2])
      same(BATCH_CONTROL, lines[12], ppd[3])
      same(FILE_CONTROL, lines[13], web[13])
      same(FILE_CONTROL, lines[13], ppd[4])
    })

    it('has the fixtures’ record length, line endings, blocking and padding', () => {
      const web = fixture('web-debit.ach')
      const ccd = ccdFixtureBatch()
      for (const line of [...lines, ...web, ...ccd]) expect(line).to.have.length(94)
      expect(text).not.to.include('\r')
      expect(text.endsWith('\n')).to.equal(true)
      const recordTypes = (file: readonly string[]) => file.map((line) => line[0]).join('')
      expect(recordTypes(lines)).to.equal('15676767' + '8' + '5668' + '9' + '999999')
      expect(recordTypes(ccd.slice(0, 5))).to.equal('56767')
      for (const [name, file] of [['ours', lines], ['web-debit.ach', web], ['ppd-debit.ach', fixture('ppd-debit.ach')]] as const) {
        expect(file.length % 10, name).to.equal(0)
        const afterControl = file.slice(file.findIndex((line) => line.startsWith('9')) + 1)
        expect(afterControl.length, name).to.be.greaterThan(0).and.lessThan(10)
        expect(afterControl.every((line) => line === PADDING), name).to.equal(true)
      }
      const blockCount = Number(at(lines[13] ?? '', 8, 13))
      expect(blockCount * 10).to.equal(lines.length)
      expect(Number(at(web[13] ?? '', 8, 13)) * 10).to.equal(web.length)
    })

    it('has control totals that are those of its debits', () => {
      const [ccd, ppd, all] = [totalsOf(CCD), totalsOf(PPD), totalsOf(DEBITS)]
      expect([ccd, ppd, all]).to.deep.equal([
        { count: 6, hash: 2_100_002 + 12_104_288 + 23_138_010, debit: 125_000 + 310_050 + 7_501 },
        { count: 2, hash: 1_100_001 + 2_100_002, debit: 48_733 + 99 },
        { count: 8, hash: 40_542_303, debit: 491_383 },
      ])
      const control = (line: string | undefined) => ({ count: Number(at(line ?? '', 5, 10)), hash: Number(at(line ?? '', 11, 20)), debit: Number(at(line ?? '', 21, 32)), credit: Number(at(line ?? '', 33, 44)) })
      expect(control(lines[8])).to.deep.equal({ ...ccd, credit: 0 })
      expect(control(lines[12])).to.deep.equal({ ...ppd, credit: 0 })
      const fileControl = lines[13] ?? ''
      expect({
        batches: Number(at(fileControl, 2, 7)),
        blocks: Number(at(fileControl, 8, 13)),
        count: Number(at(fileControl, 14, 21)),
        hash: Number(at(fileControl, 22, 31)),
        debit: Number(at(fileControl, 32, 43)),
        credit: Number(at(fileControl, 44, 55)),
      }).to.deep.equal({ batches: 2, blocks: 2, count: all.count, hash: all.hash, debit: all.debit, credit: 0 })
    })

    it('reads back with the NACHA parser as the file it means', () => {
      const batchHeader = { serviceClassCode: 225, companyName: 'LENDGATE LENDING', companyDiscretionaryData: '', companyIdentification: '1470123456', companyEntryDescription: 'LOAN PMT', companyDescriptiveDate: '', effectiveEntryDate: '260713', settlementDate: '', originatorStatusCode: '1', odfiIdentification: '12104288' } as const
      const entry = (d: AchDebit, name: string): EntryDetail => ({
        transactionCode: d.accountType === 'checking' ? 27 : 37,
        rdfiIdentification: d.routingNumber.slice(0, 8),
        checkDigit: Number(d.routingNumber[8]),
        dfiAccountNumber: d.accountNumber,
        amount: d.amount,
        identificationNumber: '',
        name,
        discretionaryData: '',
        addendaRecordIndicator: d.secCode === 'CCD' ? 1 : 0,
        traceNumber: d.traceNumber,
        addenda: d.secCode === 'CCD' ? [{ typeCode: '05', paymentRelatedInformation: `PAYMENT ${d.paymentId}`, sequenceNumber: 1, entryDetailSequenceNumber: Number(d.traceNumber.slice(8)) }] : [],
      })
      const batchControl = (totals: ReturnType<typeof totalsOf>, batchNumber: number): BatchControl => ({
        serviceClassCode: 225,
        entryAddendaCount: totals.count,
        entryHash: totals.hash,
        totalDebit: totals.debit,
        totalCredit: 0,
        companyIdentification: '1470123456',
        messageAuthenticationCode: '',
        odfiIdentification: '12104288',
        batchNumber,
      })
      const [ccd1, ccd2, ccd3] = CCD as [AchDebit, AchDebit, AchDebit]
      const [ppd1, ppd2] = PPD as [AchDebit, AchDebit]
      const expected: NachaFile = {
        header: { priorityCode: '01', immediateDestination: '231380104', immediateOrigin: '121042882', fileCreationDate: '260710', fileCreationTime: '1530', fileIdModifier: 'A', immediateDestinationName: 'FEDERAL RESERVE BANK', immediateOriginName: 'WELLS FARGO BANK', referenceCode: '' },
        batches: [
          {
            header: { ...batchHeader, secCode: 'CCD', batchNumber: 1 },
            entries: [entry(ccd1, 'ACME WIDGETS LLC'), entry(ccd2, 'BAY AREA BAKERIES INC'), entry(ccd3, 'NORTHWIND TRADERS')],
            control: batchControl(totalsOf(CCD), 1),
          },
          {
            header: { ...batchHeader, secCode: 'PPD', batchNumber: 2 },
            entries: [entry(ppd1, 'JANE Q. BORROWER'), entry(ppd2, 'JOSE ALVAREZ')],
            control: batchControl(totalsOf(PPD), 2),
          },
        ],
        control: { batchCount: 2, blockCount: 2, entryAddendaCount: 8, entryHash: 40_542_303, totalDebit: 491_383, totalCredit: 0 },
      }
      expect(parseNachaFile(text)).to.deep.equal({ ok: true, file: expected })
    })

    it('answers its name, digest and figures, agreeing with the bytes', () => {
      expect({ ...file, bytes: undefined }).to.deep.equal({
        name: '121042882-260710-A.ach',
        bytes: undefined,
        sha256: createHash('sha256').update(file.bytes).digest('hex'),
        entryCount: 5,
        debitTotal: 491_383,
        entryHash: 40_542_303,
      })
      expect(file.debitTotal).to.equal(Number(at(lines[13] ?? '', 32, 43)))
      expect(file.entryHash).to.equal(Number(at(lines[13] ?? '', 22, 31)))
      expect(file.entryCount).to.equal(lines.filter((line) => line.startsWith('6')).length)
      expect(format.tracePrefix).to.equal('12104288')
    })

    it('gives each CCD debit one addenda 05 naming its payment, and a PPD debit none', () => {
      const parsed = parseNachaFile(text)
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.error))
      const entries = parsed.file.batches.flatMap((batch) => batch.entries.map((entry) => ({ sec: batch.header.secCode, entry })))
      expect(entries.map(({ sec, entry }) => [sec, entry.traceNumber, entry.addenda.map((a) => (a.typeCode === '05' ? a.paymentRelatedInformation : a.typeCode))])).to.deep.equal([
        ['CCD', '121042880000101', ['PAYMENT 0f8e2a4c-5b1d-4e7a-9c3f-2d6b8a1e4f01']],
        ['CCD', '121042880000103', ['PAYMENT b7d4f0a2-9e3c-4a61-8f25-1e6c7b8d9a03']],
        ['CCD', '121042880000104', ['PAYMENT c3e5a7b9-1d2f-4c6e-a8b0-9f1e2d3c4b04']],
        ['PPD', '121042880000102', []],
        ['PPD', '121042880000105', []],
      ])
      for (const d of CCD) {
        const addenda = lines[lines.findIndex((line) => line.startsWith('6') && at(line, 80, 94) === d.traceNumber) + 1] ?? ''
        expect(at(addenda, 1, 3)).to.equal('705')
        expect(at(addenda, 4, 83)).to.include(d.paymentId)
      }
      expect(lines.filter((line) => line.startsWith('7'))).to.have.length(CCD.length)
    })
  })

  describe('when a cut-off has CCD debits only', () => {
    const lines = linesOf(textOf(formatted({ ...CONTENTS, debits: CCD })))

    it('is laid out as the fixtures, record by record (ccdFileLayoutDifferences, what end-to-end tests hold a cut-off to)', () => {
      expect(ccdFileLayoutDifferences(lines)).to.deep.equal([])
    })

    it('would be told where a record, a length or the padding is not as the fixtures', () => {
      const entry = lines[2]!
      const shifted = [lines[0]!, lines[1]!, `${entry.slice(0, 29)}X${entry.slice(30)}`, ...lines.slice(3)]
      expect(ccdFileLayoutDifferences(shifted)).to.deep.equal(['record 3: amount: ours "X000125000" is not digits'])
      expect(lines.length).to.equal(10)
      expect(ccdFileLayoutDifferences([...lines, ...Array<string>(10).fill(PADDING)])).to.deep.equal(['20 records, 10 after the file control: not padded to a block of 10 with 9s'])
      expect(ccdFileLayoutDifferences([...lines, ...Array<string>(9).fill(PADDING).with(8, `${PADDING}9`)])).to.deep.equal(['record 19 is 95 characters long', '19 records, 9 after the file control: not padded to a block of 10 with 9s'])
      expect(ccdFileLayoutDifferences(lines.slice(0, -1))).to.deep.equal(['no file control record', '9 records, 0 after the file control: not padded to a block of 10 with 9s'])
    })
  })

  describe('when the same contents are formatted again', () => {
    it('gives the same bytes and digest; another creation time gives other bytes, in the file header only', () => {
      const [first, again, later] = [formatted(CONTENTS), formatted({ ...CONTENTS, debits: [...DEBITS] }), formatted({ ...CONTENTS, creationTime: '1531' })]
      expect(again.bytes).to.deep.equal(first.bytes)
      expect(again).to.deep.equal(first)
      expect(later.sha256).not.to.equal(first.sha256)
      expect(later.bytes).not.to.deep.equal(first.bytes)
      const [a, b] = [linesOf(textOf(first)), linesOf(textOf(later))]
      expect(b.map((line, i) => (line === a[i] ? null : [i, at(line, 30, 33)])).filter((x) => x !== null)).to.deep.equal([[0, '1531']])
      expect(later.name).to.equal(first.name)
    })

    it('names the file by its ODFI, creation date and modifier', () => {
      expect(formatted({ ...CONTENTS, creationDate: '2026-12-31', fileIdModifier: '7' }).name).to.equal('121042882-261231-7.ach')
    })
  })

  describe('when a holder’s name is not as a NACHA name field holds it', () => {
    const NAMES: ReadonlyArray<readonly [given: string, written: string]> = [
      ['jane q. borrower', 'JANE Q. BORROWER'],
      ['Zoë Brontë', 'ZOE BRONTE'],
      ['  Ada Lovelace  ', 'ADA LOVELACE'],
      ['Bartholomew Featherstonehaugh-Smythe', 'BARTHOLOMEW FEATHERSTO'],
      // NFKD has no decomposition for Ø: it is dropped, not transliterated.
      ['François Müller-Øst', 'FRANCOIS MULLER-OST'],
      ['Søren Straße Łódź', 'SOREN STRASSE LODZ'],
      ['Renée\tÇelik\n', 'RENEECELIK'],
    ]
    for (const [given, written] of NAMES) {
      it(`writes ${JSON.stringify(given)} as ${JSON.stringify(written)}, upper-case ASCII of 22 characters at most`, () => {
        const contents = { ...CONTENTS, debits: [{ ...DEBITS[1]!, name: given }] }
        const entry = linesOf(textOf(formatted(contents)))[2] ?? ''
        expect(at(entry, 55, 76)).to.equal(written.padEnd(22))
        expect(written).to.match(/^[ -~]{1,22}$/).and.equal(written.toUpperCase())
      })
    }
  })

  describe('when the contents do not fit the format', () => {
    const refused = (reason: string) => E.left({ _tag: 'AchFileRefused', reason })
    const withDebit = (index: number, change: Partial<AchDebit>): AchFileContents => ({ ...CONTENTS, debits: DEBITS.map((d, i) => (i === index ? { ...d, ...change } : d)) })
    const CASES: ReadonlyArray<readonly [what: string, contents: AchFileContents, reason: string]> = [
      [
        'a trace number not beginning with the trace prefix',
        withDebit(0, { traceNumber: '021000020000101' }),
        "trace number: batch 1, debit 1: 021000020000101 does not begin with the ODFI's routing identification 12104288",
      ],
      ['a trace number that is not 15 digits', withDebit(1, { traceNumber: '12104288000102' }), 'trace number: batch 2, debit 1: "12104288000102" is not 15 digits'],
      [
        'trace numbers out of order',
        { ...CONTENTS, debits: [DEBITS[2]!, DEBITS[0]!] },
        'trace number: batch 1, debit 2: 121042880000101 after 121042880000103: trace numbers must ascend within a batch',
      ],
      ['an amount of more than 10 digits', withDebit(2, { amount: 10_000_000_000 }), 'amount: 10000000000 does not fit in 10 digits'],
      ['an amount that is not whole cents', withDebit(2, { amount: 12.5 }), 'amount: 12.5 is not a non-negative integer'],
      ['a negative amount', withDebit(2, { amount: -100 }), 'amount: -100 is not a non-negative integer'],
      ['an account number of more than 17 characters', withDebit(3, { accountNumber: '123456789012345678' }), 'DFI account number: it does not fit the field (not quoted)'],
      ['a routing number whose check digit is wrong', withDebit(0, { routingNumber: '021000022' }), 'check digit: 2 is not the check digit of 02100002 (1)'],
    ]
    for (const [what, contents, reason] of CASES) {
      it(`refuses ${what}, naming the field, and throws nothing`, () => {
        expect(format.format(contents)).to.deep.equal(refused(reason))
      })
    }
  })
})
