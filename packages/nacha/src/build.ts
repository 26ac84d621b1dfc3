import type { Addenda05, BatchHeader, EntryDetail, ParseResult } from './model.js'
import { parseNachaFile } from './parse.js'
import { NachaFieldError, writeNachaFile, type WritableBatch, type WritableNachaFile } from './write.js'

/** One debit to collect: from whom, how much (integer cents) and, optionally, an addenda 05. */
export type DebitInput = {
  /** The receiver's 9-digit routing number (check digit included). */
  readonly routingNumber: string
  readonly accountNumber: string
  readonly accountType: 'checking' | 'savings'
  /** In cents: a safe integer. */
  readonly amount: number
  /** The individual's (PPD, WEB) or receiving company's (CCD) name. */
  readonly name: string
  readonly identificationNumber?: string
  /** WEB only: `S` single (the default) or `R` recurring. */
  readonly paymentType?: 'S' | 'R'
  /** Written as one addenda 05 when given. */
  readonly paymentRelatedInformation?: string
}

/** One batch of debits of one SEC code. */
export type DebitBatchInput = {
  readonly secCode: 'CCD' | 'PPD' | 'WEB'
  /** The company entry description (10 characters at most), e.g. `LOAN PMT`. */
  readonly entryDescription: string
  /** YYMMDD. */
  readonly effectiveEntryDate: string
  readonly debits: readonly DebitInput[]
}

/** What `buildNachaFile` needs: the originator, where the file goes, when it was made, and the batches. */
export type BuildInput = {
  readonly originator: {
    /** The company name of the batches (16 characters at most). */
    readonly name: string
    /** The company identification (10 characters at most). */
    readonly companyIdentification: string
    /** The ODFI's 9-digit routing number: the file's immediate origin; its first 8 digits begin every trace number. */
    readonly odfiRoutingNumber: string
    /** The immediate origin name (23 characters at most). */
    readonly odfiName: string
  }
  readonly destination: { readonly routingNumber: string; readonly name: string }
  /** YYMMDD. */
  readonly fileCreationDate: string
  /** HHMM, or blank when left out. */
  readonly fileCreationTime?: string
  /** `A` when left out. */
  readonly fileIdModifier?: string
  readonly batches: readonly DebitBatchInput[]
}

/**
 * A file of debit batches (service class 225; transaction code 27 checking, 37 savings), batch
 * numbers from 1, trace numbers the ODFI's 8 digits and a 7-digit sequence from 1 through the
 * file. The file is written and read back, so every rule the parser checks holds: the file, or
 * the first problem (`record` 0 when a value does not fit its field at all).
 */
export const buildNachaFile = (input: BuildInput): ParseResult => {
  try {
    const odfi = input.originator.odfiRoutingNumber.slice(0, 8)
    let sequence = 0
    const batches: WritableBatch[] = input.batches.map((b, index) => {
      const header: BatchHeader = {
        serviceClassCode: 225,
        companyName: input.originator.name,
        companyDiscretionaryData: '',
        companyIdentification: input.originator.companyIdentification,
        secCode: b.secCode,
        companyEntryDescription: b.entryDescription,
        companyDescriptiveDate: '',
        effectiveEntryDate: b.effectiveEntryDate,
        settlementDate: '',
        originatorStatusCode: '1',
        odfiIdentification: odfi,
        batchNumber: index + 1,
      }
      const entries: EntryDetail[] = b.debits.map((debit) => {
        sequence += 1
        const addenda: Addenda05[] =
          debit.paymentRelatedInformation === undefined ? [] : [{ typeCode: '05', paymentRelatedInformation: debit.paymentRelatedInformation, sequenceNumber: 1, entryDetailSequenceNumber: sequence }]
        return {
          transactionCode: debit.accountType === 'savings' ? 37 : 27,
          rdfiIdentification: debit.routingNumber.slice(0, 8),
          checkDigit: Number(debit.routingNumber.slice(8, 9) || 'NaN'),
          dfiAccountNumber: debit.accountNumber,
          amount: debit.amount,
          identificationNumber: debit.identificationNumber ?? '',
          name: debit.name,
          discretionaryData: b.secCode === 'WEB' ? (debit.paymentType ?? 'S') : '',
          addendaRecordIndicator: addenda.length > 0 ? 1 : 0,
          traceNumber: `${odfi}${String(sequence).padStart(7, '0')}`,
          addenda,
        }
      })
      return { header, entries }
    })
    const file: WritableNachaFile = {
      header: {
        priorityCode: '01',
        immediateDestination: input.destination.routingNumber,
        immediateOrigin: input.originator.odfiRoutingNumber,
        fileCreationDate: input.fileCreationDate,
        fileCreationTime: input.fileCreationTime ?? '',
        fileIdModifier: input.fileIdModifier ?? 'A',
        immediateDestinationName: input.destination.name,
        immediateOriginName: input.originator.odfiName,
        referenceCode: '',
      },
      batches,
    }
    return parseNachaFile(writeNachaFile(file))
  } catch (error) {
    if (error instanceof NachaFieldError) return { ok: false, error: { record: 0, recordType: '', field: error.field, reason: error.reason } }
    return { ok: false, error: { record: 0, recordType: '', field: 'input', reason: error instanceof Error ? error.message : String(error) } }
  }
}
