import { createHash } from 'node:crypto'
import type { AchDebit, AchFileFormat, AchFileRefused, FormattedAchFile } from '@lendgate/core'
import { buildNachaFile, type DebitBatchInput } from '@lendgate/nacha'
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
