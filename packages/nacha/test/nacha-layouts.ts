import { closeSync, openSync, readFileSync, readSync } from 'node:fs'
import { constants as zlib, gunzipSync } from 'node:zlib'
import { MOOV_FIXTURES } from './moov-fixtures.js'

/**
 * The NACHA record layouts, field by field at NACHA's fixed positions, and how a record written
 * here differs in layout from a record of the same type in the moov-io/ach fixtures: what the
 * writer's tests and the end-to-end tests of a cut-off's file hold our files to.
 */

/** A fixture's records (its lines, the blank ones left out). */
export const fixture = (name: string): string[] => readFileSync(`${MOOV_FIXTURES}${name}`, 'latin1').split('\n').filter((line) => line !== '')

/** Positions `from`–`to` of a record, 1-based and inclusive, as NACHA numbers them. */
const at = (line: string, from: number, to: number): string => line.slice(from - 1, to)

/** The record that pads a file to a multiple of 10 records. */
export const PADDING = '9'.repeat(94)

/**
 * The first batch of the CCD file (header, 500 entries each with an addenda 05, control),
 * inflated from the first 32 KiB of its 590 KB: the file holds 100,000 entries.
 */
export const ccdFixtureBatch = (): string[] => {
  const fd = openSync(`${MOOV_FIXTURES}CCD+addenda05-200-batches-100000-entries.ach.gz`, 'r')
  const head = Buffer.alloc(32 * 1024)
  const read = readSync(fd, head, 0, head.length, 0)
  closeSync(fd)
  const lines = gunzipSync(head.subarray(0, read), { finishFlush: zlib.Z_SYNC_FLUSH }).toString('latin1').split('\n')
  const end = lines.findIndex((line) => line.startsWith('8'))
  if (end < 0) throw new Error('the first batch of the CCD fixture is longer than expected')
  return lines.slice(1, end + 1)
}

/**
 * How a field is written: the very characters of the fixture's record (`same`), digits only
 * (numbers, zero-filled), left-justified printable ASCII filled with blanks (`text`), blanks only,
 * or a routing number in 10 positions (a blank and 9 digits, or 10 digits).
 */
export type Form = 'same' | 'digits' | 'text' | 'blank' | 'routing'
export type Layout = ReadonlyArray<readonly [field: string, from: number, to: number, form: Form]>

const FORMS: Record<Exclude<Form, 'same'>, RegExp> = {
  digits: /^[0-9]+$/,
  text: /^(?:[!-~][ -~]*| *)$/,
  blank: /^ +$/,
  routing: /^(?: [0-9]{9}|[0-9]{10})$/,
}

export const FILE_HEADER: Layout = [
  ['record type code', 1, 1, 'same'],
  ['priority code', 2, 3, 'same'],
  ['immediate destination', 4, 13, 'routing'],
  ['immediate origin', 14, 23, 'routing'],
  ['file creation date', 24, 29, 'digits'],
  ['file creation time', 30, 33, 'digits'],
  ['file id modifier', 34, 34, 'text'],
  ['record size', 35, 37, 'same'],
  ['blocking factor', 38, 39, 'same'],
  ['format code', 40, 40, 'same'],
  ['immediate destination name', 41, 63, 'text'],
  ['immediate origin name', 64, 86, 'text'],
  ['reference code', 87, 94, 'text'],
]
export const BATCH_HEADER: Layout = [
  ['record type code', 1, 1, 'same'],
  ['service class code', 2, 4, 'same'],
  ['company name', 5, 20, 'text'],
  ['company discretionary data', 21, 40, 'blank'],
  ['company identification', 41, 50, 'text'],
  ['standard entry class code', 51, 53, 'same'],
  ['company entry description', 54, 63, 'text'],
  ['company descriptive date', 64, 69, 'blank'],
  ['effective entry date', 70, 75, 'digits'],
  ['settlement date', 76, 78, 'blank'],
  ['originator status code', 79, 79, 'same'],
  ['originating DFI identification', 80, 87, 'digits'],
  ['batch number', 88, 94, 'digits'],
]
export const ENTRY: Layout = [
  ['record type code', 1, 1, 'same'],
  ['transaction code', 2, 3, 'digits'],
  ['RDFI identification', 4, 11, 'digits'],
  ['check digit', 12, 12, 'digits'],
  ['DFI account number', 13, 29, 'text'],
  ['amount', 30, 39, 'digits'],
  ['identification number', 40, 54, 'text'],
  ['name', 55, 76, 'text'],
  ['discretionary data', 77, 78, 'text'],
  ['addenda record indicator', 79, 79, 'same'],
  ['trace number', 80, 94, 'digits'],
]
export const ADDENDA_05: Layout = [
  ['record type code', 1, 1, 'same'],
  ['addenda type code', 2, 3, 'same'],
  ['payment related information', 4, 83, 'text'],
  ['addenda sequence number', 84, 87, 'same'],
  ['entry detail sequence number', 88, 94, 'digits'],
]
export const BATCH_CONTROL: Layout = [
  ['record type code', 1, 1, 'same'],
  ['service class code', 2, 4, 'same'],
  ['entry/addenda count', 5, 10, 'digits'],
  ['entry hash', 11, 20, 'digits'],
  ['total debit entry dollar amount', 21, 32, 'digits'],
  ['total credit entry dollar amount', 33, 44, 'same'],
  ['company identification', 45, 54, 'text'],
  ['message authentication code', 55, 73, 'blank'],
  ['reserved', 74, 79, 'blank'],
  ['originating DFI identification', 80, 87, 'digits'],
  ['batch number', 88, 94, 'digits'],
]
export const FILE_CONTROL: Layout = [
  ['record type code', 1, 1, 'same'],
  ['batch count', 2, 7, 'digits'],
  ['block count', 8, 13, 'digits'],
  ['entry/addenda count', 14, 21, 'digits'],
  ['entry hash', 22, 31, 'digits'],
  ['total debit entry dollar amount in file', 32, 43, 'digits'],
  ['total credit entry dollar amount in file', 44, 55, 'digits'],
  ['reserved', 56, 94, 'blank'],
]

/**
 * Where our record and the fixture's differ in layout: a field of another form, or a constant
 * field with other characters. Empty when they are written alike. moov-io trims the trailing
 * blanks of some records (ppd-debit.ach's file header and file control), so the fixture's record
 * is read with blanks up to 94 characters, as a NACHA reader does.
 */
export const layoutDifferences = (layout: Layout, ours: string, theirs: string): string[] => {
  const fixtureRecord = theirs.padEnd(94, ' ')
  return layout.flatMap(([field, from, to, form]) => {
    const [mine, its] = [at(ours, from, to), at(fixtureRecord, from, to)]
    if (form === 'same') return mine === its ? [] : [`${field}: ${JSON.stringify(mine)}, the fixture's ${JSON.stringify(its)}`]
    return [
      ...(FORMS[form].test(mine) ? [] : [`${field}: ours ${JSON.stringify(mine)} is not ${form}`]),
      ...(FORMS[form].test(its) ? [] : [`${field}: the fixture's ${JSON.stringify(its)} is not ${form}`]),
    ]
  })
}


/**
 * Where a written file of CCD batches (each entry with an addenda 05) differs from the fixtures:
 * each record's layout against a fixture record of its type (file header and control of
 * ppd-debit.ach; batch header, entry, addenda and batch control of the CCD file's first batch),
 * its record length, and its padding to a multiple of 10 records. Empty when it is written alike.
 */
export const ccdFileLayoutDifferences = (lines: readonly string[]): string[] => {
  const [ppd, ccd] = [fixture('ppd-debit.ach'), ccdFixtureBatch()]
  const theirs: Record<string, readonly [Layout, string | undefined]> = {
    '1': [FILE_HEADER, ppd[0]],
    '5': [BATCH_HEADER, ccd[0]],
    '6': [ENTRY, ccd[1]],
    '7': [ADDENDA_05, ccd[2]],
    '8': [BATCH_CONTROL, ccd.at(-1)],
    '9': [FILE_CONTROL, ppd.find((line) => line.startsWith('9'))],
  }
  const control = lines.findIndex((line) => line.startsWith('9'))
  const padding = control < 0 ? [] : lines.slice(control + 1)
  return [
    ...lines.flatMap((line, i) => (line.length === 94 ? [] : [`record ${i + 1} is ${line.length} characters long`])),
    ...lines.slice(0, control < 0 ? lines.length : control + 1).flatMap((line, i) => {
      const type = theirs[line[0] ?? '']
      return type === undefined ? [`record ${i + 1} is of no type a debit file has: ${JSON.stringify(line[0])}`] : layoutDifferences(type[0], line, type[1] ?? '').map((d) => `record ${i + 1}: ${d}`)
    }),
    ...(control < 0 ? ['no file control record'] : []),
    ...(lines.length % 10 === 0 && padding.length < 10 && padding.every((line) => line === PADDING) ? [] : [`${lines.length} records, ${padding.length} after the file control: not padded to a block of 10 with 9s`]),
  ]
}
