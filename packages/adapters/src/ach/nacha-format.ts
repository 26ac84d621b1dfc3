import { createHash } from 'node:crypto'
import { gunzipSync } from 'node:zlib'
import type { AccountCorrection, AchDebit, AchFileFormat, AchFileRefused, AchInboundFormat, FormattedAchFile } from '@lendgate/core'
import { buildNachaFile, entriesWithoutAddendaOf, noticesOf, parseNachaFile, returnsOf, type AccountKind, type CorrectionResult, type DebitBatchInput } from '@lendgate/nacha'
import * as E from 'fp-ts/lib/Either.js'

/** Who originates the debits and where the files go: the deployment's ODFI and company (docs/configuration.md "ACH"). */
export type AchOriginator = {
  /** The ODFI's 9-digit routing number: the files' immediate origin; its first 8 digits begin every trace number. */
  readonly odfiRoutingNumber: string
  /** At most 23 characters. */
  readonly odfiName: string
  /** The company identification the ODFI assigned (at most 10 characters). */
  readonly companyIdentification: string
  /** At most 16 characters: what the borrower's statement shows. */
  readonly companyName: string
  /** The immediate destination: the ODFI itself, or the operator it forwards to. */
  readonly destinationRoutingNumber: string
  readonly destinationName: string
}

/** What every batch says the debits are (10 characters at most): it appears on the borrower's statement. */
export const ENTRY_DESCRIPTION = 'LOAN PMT'

/** `YYYY-MM-DD` as `YYMMDD`. */
const yymmdd = (date: string): string => date.slice(2).replaceAll('-', '')

/** Latin letters that have no decomposition into a base letter and a mark, and how they are written in ASCII. */
const LATIN_LETTERS: Readonly<Record<string, string>> = { ß: 'SS', Æ: 'AE', æ: 'AE', Ø: 'O', ø: 'O', Œ: 'OE', œ: 'OE', Ł: 'L', ł: 'L', Đ: 'D', đ: 'D', Ð: 'D', ð: 'D', Þ: 'TH', þ: 'TH', ı: 'I' }

/** A name in the characters and length a NACHA name field holds: ASCII, upper case, 22 at most. */
const fieldName = (name: string): string =>
  name
    .replace(/[ßÆæØøŒœŁłĐđÐðÞþı]/g, (letter) => LATIN_LETTERS[letter] ?? '')
    .normalize('NFKD')
    .replace(/[^\x20-\x7e]/g, '')
    .toUpperCase()
    .trim()
    .slice(0, 22)

const SEC_ORDER = ['CCD', 'PPD'] as const

/** Why the format refused a field, never quoting an account number (the reason reaches logs). */
const refusal = (field: string, reason: string): string => (/account number/i.test(field) ? `${field}: it does not fit the field (not quoted)` : `${field}: ${reason}`)

/**
 * Bank files in NACHA's format (`@lendgate/nacha`) for `originator`: one batch per SEC code, CCD
 * first, debits in trace order; a CCD debit carries its payment's id in an addenda 05, so the
 * bank's reports name the payment. Named `{ODFI routing}-{YYMMDD}-{modifier}.ach`.
 */
export const nachaFileFormat = (originator: AchOriginator): AchFileFormat => ({
  tracePrefix: originator.odfiRoutingNumber.slice(0, 8),
  format: (contents): E.Either<AchFileRefused, FormattedAchFile> => {
    const batchOf = (secCode: (typeof SEC_ORDER)[number], debits: readonly AchDebit[]): DebitBatchInput => ({
      secCode,
      entryDescription: ENTRY_DESCRIPTION,
      effectiveEntryDate: yymmdd(contents.effectiveEntryDate),
      debits: debits.map((debit) => ({
        traceNumber: debit.traceNumber,
        routingNumber: debit.routingNumber,
        accountNumber: debit.accountNumber,
        accountType: debit.accountType,
        amount: debit.amount,
        name: fieldName(debit.name),
        ...(secCode === 'CCD' ? { paymentRelatedInformation: `PAYMENT ${debit.paymentId}` } : {}),
      })),
    })
    const batches = SEC_ORDER.map((sec) => batchOf(sec, contents.debits.filter((debit) => debit.secCode === sec))).filter((batch) => batch.debits.length > 0)
    const built = buildNachaFile({
      originator: { name: originator.companyName, companyIdentification: originator.companyIdentification, odfiRoutingNumber: originator.odfiRoutingNumber, odfiName: originator.odfiName },
      destination: { routingNumber: originator.destinationRoutingNumber, name: originator.destinationName },
      fileCreationDate: yymmdd(contents.creationDate),
      fileCreationTime: contents.creationTime,
      fileIdModifier: contents.fileIdModifier,
      batches,
    })
    if (!built.ok) return E.left({ _tag: 'AchFileRefused', reason: refusal(built.error.field, built.error.reason) })
    const bytes = new TextEncoder().encode(built.text)
    const { control } = built.file
    return E.right({
      name: `${originator.odfiRoutingNumber}-${yymmdd(contents.creationDate)}-${contents.fileIdModifier}.ach`,
      bytes,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      entryCount: contents.debits.length,
      debitTotal: control.totalDebit,
      entryHash: control.entryHash,
    })
  },
})

/** Text a NACHA reason may quote from the file, replaced: corrected data can hold an account number, and reasons reach reports and logs. */
const unquoted = (reason: string): string => reason.replace(/"(?:[^"\\]|\\.)*"/g, '(not quoted)')

/** The account type of a corrected transaction code: checking or savings, the only accounts a loan's debit takes. */
const accountTypeOf = (kind: AccountKind): E.Either<string, 'checking' | 'savings'> =>
  kind === 'checking' || kind === 'savings' ? E.right(kind) : E.left(`a ${kind} account cannot be debited for a loan payment`)

/** A notice's correction as core takes it, or why it is not applied. */
const correctionOf = (corrected: CorrectionResult): E.Either<string, AccountCorrection> => {
  if (!corrected.ok) return E.left(unquoted(corrected.reason))
  const c = corrected.correction
  const fields = {
    ...('routingNumber' in c ? { routingNumber: c.routingNumber } : {}),
    ...('accountNumber' in c ? { accountNumber: c.accountNumber } : {}),
  }
  if (!('accountType' in c)) return E.right(fields)
  return E.map((accountType: 'checking' | 'savings') => ({ ...fields, accountType }))(accountTypeOf(c.accountType))
}

/** The most a gzipped inbound file may decompress to: 64 MiB, some 700,000 records, far above any return file. */
export const INBOUND_TEXT_LIMIT_BYTES = 64 * 1024 * 1024

/**
 * Files the bank sends back, read as NACHA (`@lendgate/nacha`): gunzipped first when they begin
 * with gzip's magic bytes; the SHA-256 is of the file's text, so a file gzipped or not is one file.
 * A refusal names the record and field, never quoting the file (a record can hold an account number).
 */
export const nachaInboundFormat: AchInboundFormat = {
  read: (bytes) => {
    let text: string
    try {
      text = Buffer.from(bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes, { maxOutputLength: INBOUND_TEXT_LIMIT_BYTES }) : bytes).toString('latin1')
    } catch {
      return E.left({ _tag: 'AchFileUnreadable', record: 0, field: 'file', reason: `it begins as gzip but does not decompress to at most ${INBOUND_TEXT_LIMIT_BYTES} bytes` })
    }
    const parsed = parseNachaFile(text)
    if (!parsed.ok) return E.left({ _tag: 'AchFileUnreadable', record: parsed.error.record, field: parsed.error.field, reason: unquoted(parsed.error.reason) })
    const { file } = parsed
    return E.right({
      sha256: createHash('sha256').update(text, 'latin1').digest('hex'),
      returns: returnsOf(file).map((r) => ({ record: r.record, originalTrace: r.originalTraceNumber, returnCode: r.returnReasonCode, amount: r.amount })),
      notices: noticesOf(file).map((n) => ({ record: n.record, originalTrace: n.originalTraceNumber, changeCode: n.changeCode, correction: correctionOf(n.corrected) })),
      others: entriesWithoutAddendaOf(file).map((o) => ({ record: o.record, traceNumber: o.traceNumber, amount: o.amount })),
    })
  },
}
