import type { Addenda05, BatchHeader, EntryDetail, NachaError, NachaFile } from './model.js'
import { parseNachaFile } from './parse.js'
import { NachaFieldError, writeNachaFile, type WritableBatch, type WritableNachaFile } from './write.js'

/** One debit to collect: from whom, how much (integer cents), its trace number and, optionally, an addenda 05. */
export type DebitInput = {
  /**
   * 15 digits: the ODFI's 8-digit routing identification (the first 8 digits of
   * `originator.odfiRoutingNumber`) and a 7-digit sequence the caller assigns from its own counter,
   * so that a return or notification of change, in any later file, names this debit alone.
   * Unique in the file, ascending within each batch (NACHA sorts a batch's entries by trace).
   */
  readonly traceNumber: string
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

/**
 * Refuses (a `NachaFieldError` on field `trace number`) a trace number that is not 15 digits, does
 * not begin with the ODFI's 8 digits, repeats one before it in the file, or does not ascend within
 * its batch.
 */
const checkTraceNumbers = (odfi: string, batches: readonly DebitBatchInput[]): void => {
  const seen = new Map<string, string>()
  batches.forEach((b, bi) => {
    let previous = ''
    b.debits.forEach((debit, di) => {
      const where = `batch ${bi + 1}, debit ${di + 1}`
      const trace: unknown = debit.traceNumber
      if (typeof trace !== 'string' || !/^[0-9]{15}$/.test(trace)) throw new NachaFieldError('trace number', `${where}: ${JSON.stringify(trace)} is not 15 digits`)
      if (!trace.startsWith(odfi)) throw new NachaFieldError('trace number', `${where}: ${trace} does not begin with the ODFI's routing identification ${odfi}`)
      const first = seen.get(trace)
      if (first !== undefined) throw new NachaFieldError('trace number', `${where}: ${trace} is already the trace number of ${first}`)
      if (trace <= previous) throw new NachaFieldError('trace number', `${where}: ${trace} after ${previous}: trace numbers must ascend within a batch`)
      seen.set(trace, where)
      previous = trace
    })
  })
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

/** A built file: as read back (`file`) and as written (`text`, the bytes to send), or the first problem. */
export type BuildResult = { readonly ok: true; readonly file: NachaFile; readonly text: string } | { readonly ok: false; readonly error: NachaError }

/**
 * A file of debit batches (service class 225; transaction code 27 checking, 37 savings), batch
 * numbers from 1, each debit with the trace number its caller gave. The file is written and read
 * back, so every rule the parser checks holds: the file, or the first problem (`record` 0 when a
 * value does not fit its field at all, or a trace number is refused: field `trace number`, the
 * reason naming the batch and debit, 1-based).
 */
export const buildNachaFile = (input: BuildInput): BuildResult => {
  try {
    const odfi = input.originator.odfiRoutingNumber.slice(0, 8)
    checkTraceNumbers(odfi, input.batches)
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
        const sequence = Number(debit.traceNumber.slice(8))
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
          traceNumber: debit.traceNumber,
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
    const text = writeNachaFile(file)
    const read = parseNachaFile(text)
    return read.ok ? { ok: true, file: read.file, text } : read
  } catch (error) {
    if (error instanceof NachaFieldError) return { ok: false, error: { record: 0, recordType: '', field: error.field, reason: error.reason } }
    return { ok: false, error: { record: 0, recordType: '', field: 'input', reason: error instanceof Error ? error.message : String(error) } }
  }
}
