import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { gunzipSync, gzipSync } from 'node:zlib'
import type { AchFileUnreadable, InboundAchFile, InboundNotice, InboundOther, InboundReturn } from '@lendgate/core'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { MOOV_FIXTURES } from '../../nacha/test/moov-fixtures.js'
import { nachaInboundFormat } from '../src/ach/nacha-format.js'

/**
 * The bank's inbound files read as NACHA (`nachaInboundFormat`), checked against files nobody on
 * this project wrote: the moov-io/ach fixtures (packages/nacha/test/fixtures/moov-io, the same
 * bytes as /work/shared/fixtures/nacha). What the reader answers is compared with the fixtures'
 * text read here at NACHA's fixed positions: an entry detail's amount at 30–39 and trace at
 * 80–94, an addenda 99's or 98's code at 4–6, original trace at 7–21 and corrected data at 36–64.
 */

type Read = E.Either<AchFileUnreadable, InboundAchFile>

const bytesOf = (name: string): Buffer => readFileSync(`${MOOV_FIXTURES}${name}`)
const textOf = (name: string): string => bytesOf(name).toString('latin1')
const latin1 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'latin1'))
const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex')

/** `read` that fails the test, with the input's name, should it ever throw. */
const read = (bytes: Uint8Array, what = 'the input'): Read => {
  try {
    return nachaInboundFormat.read(bytes)
  } catch (error) {
    return expect.fail(`read threw on ${what}: ${error instanceof Error ? error.stack : String(error)}`)
  }
}
const readRight = (bytes: Uint8Array, what = 'the input'): InboundAchFile => {
  const result = read(bytes, what)
  if (E.isLeft(result)) return expect.fail(`${what} was refused: ${JSON.stringify(result.left)}`)
  return result.right
}
const readLeft = (bytes: Uint8Array, what = 'the input'): AchFileUnreadable => {
  const result = read(bytes, what)
  if (E.isRight(result)) return expect.fail(`${what} was read, expected a refusal`)
  return result.left
}

/** A file's lines, without their `\r` (moov-io's files end some lines with none at all). */
const linesOf = (text: string): string[] => text.split('\n').map((line) => line.replace(/\r$/, ''))
/** Positions `from`–`to` of a record, 1-based and inclusive, as NACHA numbers them. */
const at = (line: string, from: number, to: number): string => line.slice(from - 1, to)
/** `text` with line `no` (1-based) overwritten by `value` from position `from` on. */
const put = (text: string, no: number, from: number, value: string): string => {
  const lines = text.split('\n')
  const line = lines[no - 1] ?? expect.fail(`no line ${no}`)
  lines[no - 1] = line.slice(0, from - 1) + value + line.slice(from - 1 + value.length)
  return lines.join('\n')
}

/** What the file's text says, read here at fixed positions: each entry detail followed by an addenda `typeCode`. */
const entriesWith = (text: string, typeCode: '98' | '99' | null): Array<{ readonly record: number; readonly entry: string; readonly addenda: string | undefined }> => {
  const lines = linesOf(text)
  const found: Array<{ record: number; entry: string; addenda: string | undefined }> = []
  lines.forEach((line, i) => {
    if (!line.startsWith('6')) return
    const next = lines[i + 1]
    const kind = next !== undefined && /^7(98|99)/.test(next) ? next.slice(1, 3) : null
    if (kind === typeCode) found.push({ record: i + 1, entry: line, addenda: kind === null ? undefined : next })
  })
  return found
}
const returnsInText = (text: string): InboundReturn[] =>
  entriesWith(text, '99').map(({ record, entry, addenda = '' }) => ({ record, originalTrace: at(addenda, 7, 21), returnCode: at(addenda, 4, 6), amount: Number(at(entry, 30, 39)) }))
const othersInText = (text: string): InboundOther[] =>
  entriesWith(text, null).map(({ record, entry }) => ({ record, traceNumber: at(entry, 80, 94), amount: Number(at(entry, 30, 39)) }))

/** Every file of the fixture folder, its subfolders' too, as paths relative to it. */
const allFixtures = (dir = ''): string[] =>
  readdirSync(`${MOOV_FIXTURES}${dir}`)
    .sort()
    .flatMap((name) => (statSync(`${MOOV_FIXTURES}${dir}${name}`).isDirectory() ? allFixtures(`${dir}${name}/`) : [`${dir}${name}`]))

const RETURN_FIXTURES = ['return-WEB.ach', 'return-PPD-custom-reason-code.ach'] as const
const FORWARD_FIXTURES = ['ppd-debit.ach', 'ppd-mixedDebitCredit.ach', 'web-debit.ach', 'loan-credit.ach', 'gl-debit.ach'] as const
const CCD_GZ = 'CCD+addenda05-200-batches-100000-entries.ach.gz'
const CRASHERS = allFixtures().filter((name) => name.startsWith('crashers/'))
/** The README's invalid files and records of the wrong length: the record and field at fault, as the file has them. */
const INVALID: ReadonlyArray<readonly [name: string, record: number, field: string]> = [
  ['ppd-debit-invalid-entryDetail-checkDigit.ach', 3, 'check digit'],
  ['20110729A-invalid.ach', 1, 'record length'],
  ['short-line.ach', 5, 'record length'],
  ['long-line.ach', 3, 'record length'],
]

/** A refusal as the port promises it: a record (0 for the whole file), a field, a reason, nothing quoted. */
const expectWellFormedRefusal = (left: AchFileUnreadable, what: string): void => {
  expect(left._tag, what).to.equal('AchFileUnreadable')
  expect(Number.isInteger(left.record) && left.record >= 0, `${what}: record ${left.record}`).to.equal(true)
  expect(left.field, what).to.be.a('string').and.not.equal('')
  expect(left.reason, what).to.be.a('string').and.not.equal('')
  expect(left.reason, `${what}: ${left.reason}`).not.to.include('"')
}

describe('nachaInboundFormat.read: returns (addenda 99)', () => {
  for (const name of RETURN_FIXTURES) {
    it(`reads each entry of ${name} with an addenda 99 as a return: its record, original trace, code and amount`, () => {
      const text = textOf(name)
      const file = readRight(bytesOf(name), name)
      const expected = returnsInText(text)
      expect(expected, 'the fixture holds returns').not.to.deep.equal([])
      expect(file.returns).to.deep.equal(expected)
      expect(file.notices).to.deep.equal([])
      expect(file.others).to.deep.equal([])
      expect(file.sha256).to.equal(sha256(bytesOf(name)))
    })
  }

  it('reads return-WEB.ach field for field: R01 and R03 at records 3 and 7', () => {
    const lines = linesOf(textOf('return-WEB.ach'))
    // The file's own text at NACHA's positions, so the figures below are the file's, not ours.
    expect([at(lines[2]!, 1, 1), at(lines[2]!, 30, 39), at(lines[3]!, 1, 6), at(lines[3]!, 7, 21)]).to.deep.equal(['6', '0000012354', '799R01', '091400600000001'])
    expect([at(lines[6]!, 1, 1), at(lines[6]!, 30, 39), at(lines[7]!, 1, 6), at(lines[7]!, 7, 21)]).to.deep.equal(['6', '0000004565', '799R03', '091400600000003'])
    expect(readRight(bytesOf('return-WEB.ach')).returns).to.deep.equal([
      { record: 3, originalTrace: '091400600000001', returnCode: 'R01', amount: 12_354 },
      { record: 7, originalTrace: '091400600000003', returnCode: 'R03', amount: 4_565 },
    ])
  })

  it('keeps a custom reason code (R97) as the file has it, with the original entry amount', () => {
    const lines = linesOf(textOf('return-PPD-custom-reason-code.ach'))
    expect([at(lines[2]!, 30, 39), at(lines[3]!, 4, 6), at(lines[3]!, 7, 21)]).to.deep.equal(['0000106161', 'R97', '092221172022300'])
    expect(readRight(bytesOf('return-PPD-custom-reason-code.ach')).returns).to.deep.equal([{ record: 3, originalTrace: '092221172022300', returnCode: 'R97', amount: 106_161 }])
  })

  it('reads the same returns, with the same record numbers, from \\r\\n lines and from one line of 94-character records', () => {
    const text = textOf('return-WEB.ach')
    const plain = readRight(latin1(text))
    const crlf = readRight(latin1(linesOf(text).join('\r\n') + '\r\n'), 'the file with \\r\\n')
    const oneLine = readRight(latin1(linesOf(text).join('')), 'the file as one line')
    expect(crlf.returns).to.deep.equal(plain.returns)
    expect(oneLine.returns).to.deep.equal(plain.returns)
    // Other bytes, another file.
    expect(crlf.sha256).not.to.equal(plain.sha256)
  })
})

describe('nachaInboundFormat.read: notices of change (addenda 98)', () => {
  /** cor-example.ach's addenda 98 (line 4) with another change code and corrected data: neither is in any control total. */
  const corWith = (changeCode: string, correctedData: string): Uint8Array => {
    expect(correctedData.length, 'corrected data is 29 positions').to.be.at.most(29)
    return latin1(put(put(textOf('cor-example.ach'), 4, 4, changeCode), 4, 36, correctedData.padEnd(29, ' ')))
  }
  const noticeOf = (bytes: Uint8Array, what: string): InboundNotice => {
    const file = readRight(bytes, what)
    expect(file.notices, what).to.have.length(1)
    expect(file.returns, what).to.deep.equal([])
    return file.notices[0]!
  }

  it('reads cor-example.ach: a C01 at record 3 naming its original trace, the corrected account number read', () => {
    const lines = linesOf(textOf('cor-example.ach'))
    expect([at(lines[2]!, 1, 1), at(lines[3]!, 1, 6), at(lines[3]!, 7, 21), at(lines[3]!, 36, 64).trimEnd()]).to.deep.equal(['6', '798C01', '121042880000001', '1918171614'])
    const file = readRight(bytesOf('cor-example.ach'))
    expect(file.notices).to.deep.equal([{ record: 3, originalTrace: '121042880000001', changeCode: 'C01', correction: E.right({ accountNumber: '1918171614' }) }])
    expect(file.returns).to.deep.equal([])
    expect(file.others).to.deep.equal([])
    expect(file.sha256).to.equal(sha256(bytesOf('cor-example.ach')))
  })

  const CORRECTIONS: ReadonlyArray<readonly [code: string, data: string, correction: object]> = [
    ['C01', '44556677', { accountNumber: '44556677' }],
    ['C02', '091000019', { routingNumber: '091000019' }],
    ['C03', '091000019   44556677', { routingNumber: '091000019', accountNumber: '44556677' }],
    ['C05', '27', { accountType: 'checking' }],
    ['C05', '37', { accountType: 'savings' }],
    ['C06', `${'9876543'.padEnd(17)}   32`, { accountNumber: '9876543', accountType: 'savings' }],
    ['C07', `091000019${'55501234'.padEnd(17)}22`, { routingNumber: '091000019', accountNumber: '55501234', accountType: 'checking' }],
  ]
  for (const [code, data, correction] of CORRECTIONS) {
    it(`maps a ${code} (${JSON.stringify(data)}) to the correction ${JSON.stringify(correction)}, nothing else`, () => {
      const notice = noticeOf(corWith(code, data), code)
      expect(notice).to.deep.equal({ record: 3, originalTrace: '121042880000001', changeCode: code, correction: E.right(correction) })
    })
  }

  const REFUSED: ReadonlyArray<readonly [code: string, data: string, says: RegExp, secret?: string]> = [
    ['C05', '42', /general-ledger/],
    ['C05', '52', /loan/],
    ['C06', `${'9876543'.padEnd(17)}   47`, /general-ledger/],
    ['C07', `091000019${'55501234'.padEnd(17)}56`, /loan/],
    ['C09', '1234', /C09/],
    ['C13', '091000019', /C13/],
    ['C02', '09100001X', /routing number/, '09100001X'],
    ['C02', '091000018', /check digit/],
    ['C01', '12345678901234567ABCDEFGHIJ', /blank/, 'ABCDEFGHIJ'],
    ['C06', '12345678901234567XY9Z', /transaction code/, 'XY9Z'],
  ]
  for (const [code, data, says, secret] of REFUSED) {
    it(`reads a ${code} (${JSON.stringify(data)}) as a notice with no correction, saying why without quoting the data`, () => {
      const notice = noticeOf(corWith(code, data), code)
      expect([notice.record, notice.originalTrace, notice.changeCode]).to.deep.equal([3, '121042880000001', code])
      if (E.isRight(notice.correction)) expect.fail(`a ${code} of ${data} was taken: ${JSON.stringify(notice.correction.right)}`)
      expect(notice.correction.left).to.match(says)
      expect(notice.correction.left).not.to.include('"')
      if (secret !== undefined) expect(notice.correction.left).not.to.include(secret)
    })
  }

  // The parser quotes with JSON.stringify, which escapes a `"` inside the text: the whole quotation goes.
  it('quotes nothing of corrected data holding a double quote', () => {
    const notice = noticeOf(corWith('C01', '12345678901234567AB"CDEFGHIJ'), 'C01 with a quote')
    if (E.isRight(notice.correction)) expect.fail('an account number of 28 characters was taken')
    expect(notice.correction.left).not.to.include('"')
    expect(notice.correction.left).not.to.include('CDEFGHIJ')
  })
})

describe('nachaInboundFormat.read: forward entries', () => {
  for (const name of FORWARD_FIXTURES) {
    it(`reads every entry of ${name} as neither a return nor a notice, its trace and amount as the file has them`, () => {
      const file = readRight(bytesOf(name), name)
      const expected = othersInText(textOf(name))
      expect(expected, 'the fixture holds entries').not.to.deep.equal([])
      expect(file.others).to.deep.equal(expected)
      expect([file.returns, file.notices]).to.deep.equal([[], []])
      expect(file.sha256).to.equal(sha256(bytesOf(name)))
    })
  }
})

describe('nachaInboundFormat.read: gzip', () => {
  for (const name of [...RETURN_FIXTURES, 'cor-example.ach', 'ppd-debit.ach']) {
    it(`reads ${name} gzipped as the very file it is plain: the same SHA-256 and items`, () => {
      const plain = readRight(bytesOf(name), name)
      for (const level of [1, 9]) {
        const gzipped = gzipSync(bytesOf(name), { level })
        expect([gzipped[0], gzipped[1]]).to.deep.equal([0x1f, 0x8b])
        expect(readRight(gzipped, `${name} gzipped at level ${level}`)).to.deep.equal(plain)
      }
      expect(plain.sha256).to.equal(sha256(bytesOf(name)))
    })
  }

  it(`reads the gzipped CCD fixture: 100,000 forward entries, the SHA-256 that of its text`, () => {
    const gzipped = bytesOf(CCD_GZ)
    const text = gunzipSync(gzipped)
    const file = readRight(gzipped, CCD_GZ)
    expect(file.sha256).to.equal(sha256(text))
    expect([file.returns, file.notices]).to.deep.equal([[], []])
    expect(file.others).to.have.length(100_000)
    expect(file.others).to.deep.equal(othersInText(text.toString('latin1')))
    expect(readRight(text, `${CCD_GZ} unzipped`)).to.deep.equal(file)
  })

  it('refuses a refused file gzipped as it refuses it plain', () => {
    for (const [name] of INVALID) expect(readLeft(gzipSync(bytesOf(name)), `${name} gzipped`)).to.deep.equal(readLeft(bytesOf(name), name))
  })

  it('refuses, as the whole file, bytes that begin as gzip but do not decompress', () => {
    const gzipped = gzipSync(bytesOf('return-WEB.ach'))
    const broken = [gzipped.subarray(0, 2), gzipped.subarray(0, gzipped.length >> 1), Buffer.concat([gzipped.subarray(0, 10), Buffer.alloc(40, 0xff)])]
    for (const bytes of broken) {
      const left = readLeft(bytes, `${bytes.length} bytes of gzip`)
      expectWellFormedRefusal(left, 'broken gzip')
      expect([left.record, left.field]).to.deep.equal([0, 'file'])
    }
  })
})

describe('nachaInboundFormat.read: refusals', () => {
  for (const [name, record, field] of INVALID) {
    it(`refuses ${name} at record ${record}, field ${field}, quoting nothing of it`, () => {
      const left = readLeft(bytesOf(name), name)
      expectWellFormedRefusal(left, name)
      expect([left.record, left.field]).to.deep.equal([record, field])
    })
  }

  it('refuses the check digit of ppd-debit-invalid-entryDetail-checkDigit.ach as the file has it', () => {
    const entry = linesOf(textOf('ppd-debit-invalid-entryDetail-checkDigit.ach'))[2]!
    expect(at(entry, 4, 12)).to.equal('231380105')
    expect(readLeft(bytesOf('ppd-debit-invalid-entryDetail-checkDigit.ach')).reason).to.match(/5 is not the check digit of 23138010 \(4\)/)
  })

  for (const name of CRASHERS) {
    it(`refuses ${name} (a fuzzing find) without throwing`, () => {
      expectWellFormedRefusal(readLeft(bytesOf(name), name), name)
    })
  }

  it('replaces the text a reason would quote: an amount of letters, a bad return reason code, a first record of another type', () => {
    const web = textOf('return-WEB.ach')
    const cases: ReadonlyArray<readonly [text: string, record: number, field: string, quoted: string]> = [
      [put(web, 3, 30, 'ABCDEFGHIJ'), 3, 'amount', 'ABCDEFGHIJ'],
      [put(web, 4, 4, 'X01'), 4, 'return reason code', 'X01'],
      [put(web, 1, 1, '7'), 1, 'record type', '7'],
    ]
    for (const [text, record, field, quoted] of cases) {
      const left = readLeft(latin1(text), field)
      expectWellFormedRefusal(left, field)
      expect([left.record, left.field]).to.deep.equal([record, field])
      expect(left.reason).to.include('(not quoted)')
      expect(left.reason.replace('(not quoted)', '')).not.to.include(quoted)
    }
  })

  it('refuses empty input and a lone byte', () => {
    for (const bytes of [new Uint8Array(), new Uint8Array([0x1f]), new Uint8Array([0x31])]) expectWellFormedRefusal(readLeft(bytes, `${bytes.length} bytes`), `${bytes.length} bytes`)
  })
})

describe('nachaInboundFormat.read: never throws', () => {
  const FIXTURES = allFixtures()

  it('reads every file of the fixture folder without throwing, refusing only the invalid ones', () => {
    expect(FIXTURES.length).to.be.at.least(20)
    const refused = FIXTURES.filter((name) => E.isLeft(read(bytesOf(name), name)))
    expect(refused.sort()).to.deep.equal([...INVALID.map(([name]) => name), ...CRASHERS, 'LICENSE', 'README.md'].sort())
    for (const name of refused) expectWellFormedRefusal(readLeft(bytesOf(name), name), name)
  })

  it('answers every prefix of a return file and of a notice file, refusing or reading, never throwing', () => {
    for (const name of ['return-WEB.ach', 'cor-example.ach']) {
      const bytes = bytesOf(name)
      for (let length = 0; length <= bytes.length; length++) {
        const result = read(bytes.subarray(0, length), `${name} cut at ${length}`)
        if (E.isLeft(result)) expectWellFormedRefusal(result.left, `${name} cut at ${length}`)
      }
    }
  })

  it('answers a return file and a notice file with any one byte changed, never throwing nor quoting', () => {
    const replacements = ['X', '9', '0', ' ', '"', '\\', '\n', '\r', '\u0000', '\u00ff', '\u007f']
    for (const name of ['return-WEB.ach', 'cor-example.ach']) {
      const text = textOf(name)
      for (let i = 0; i < text.length; i++) {
        for (const c of replacements) {
          if (text[i] === c) continue
          const what = `${name} with ${JSON.stringify(c)} at ${i}`
          const result = read(latin1(text.slice(0, i) + c + text.slice(i + 1)), what)
          if (E.isLeft(result)) expectWellFormedRefusal(result.left, what)
          else for (const notice of result.right.notices) if (E.isLeft(notice.correction)) expect(notice.correction.left, what).not.to.include('"')
        }
      }
    }
  })
})
