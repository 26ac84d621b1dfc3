import { writeNachaFile, type EntryDetail } from '@lendgate/nacha'

/** The files the bank sends back in the HTTP tests of the ACH rails (returns, notices of change), written by `@lendgate/nacha`. */

/** The borrower's bank (the original RDFI), 8 digits: the one that returns our debits. */
export const RDFI = '01100001'
/** Our ODFI (the test settings' routing number, `achSettings`), 8 digits, and its check digit. */
export const ODFI = '12104288'
export const ODFI_CHECK_DIGIT = 2
/** The account number a return entry names when the test gives none (the bank's copy of the debit's). */
const ACCOUNT_NUMBER = '000123456789'

/** One returned entry of a return file: the trace of our entry, its amount and the code. */
export type ReturnItem = { readonly originalTrace: string; readonly amount: number; readonly code: string }

/** Today, YYMMDD (UTC). */
export const yymmdd = (): string => new Date().toISOString().slice(2, 10).replaceAll('-', '')

/**
 * A file the bank sends back, written by `@lendgate/nacha`: one batch of `secCode` holding
 * `entries`, from the Federal Reserve to our ODFI, created at `time` today with `modifier`.
 */
export const bankFile = (secCode: string, serviceClassCode: 200 | 225, entries: readonly EntryDetail[], time: string, modifier: string): string =>
  writeNachaFile({
    header: {
      priorityCode: '01',
      immediateDestination: '121042882',
      immediateOrigin: '011000015',
      fileCreationDate: yymmdd(),
      fileCreationTime: time,
      fileIdModifier: modifier,
      immediateDestinationName: 'WELLS FARGO BANK',
      immediateOriginName: 'FEDERAL RESERVE BANK',
      referenceCode: '',
    },
    batches: [
      {
        header: {
          serviceClassCode,
          companyName: 'LENDGATE CAPITAL',
          companyDiscretionaryData: '',
          companyIdentification: '1234567890',
          secCode,
          companyEntryDescription: 'LOAN PMT',
          companyDescriptiveDate: '',
          effectiveEntryDate: yymmdd(),
          settlementDate: '',
          originatorStatusCode: '1',
          odfiIdentification: RDFI,
          batchNumber: 1,
        },
        entries,
      },
    ],
  })

/**
 * A return file as the borrower's bank sends it back: one batch (mixed, 200) of automated
 * returns (26, checking debit returned) to our ODFI, each with its addenda 99, and optionally
 * forward entries without addenda (`others`). `modifier` tells apart files of the same content.
 */
export const returnFile = (items: readonly ReturnItem[], options: { readonly modifier?: string; readonly others?: readonly number[]; readonly account?: string } = {}): string => {
  let sequence = 0
  const nextTrace = (): string => `${RDFI}${String(++sequence).padStart(7, '0')}`
  const returns = items.map((item): EntryDetail => {
    const traceNumber = nextTrace()
    return {
      transactionCode: 26,
      rdfiIdentification: ODFI,
      checkDigit: ODFI_CHECK_DIGIT,
      dfiAccountNumber: options.account ?? ACCOUNT_NUMBER,
      amount: item.amount,
      identificationNumber: '',
      name: 'ACME WIDGETS LLC',
      discretionaryData: '',
      addendaRecordIndicator: 1,
      traceNumber,
      addenda: [{ typeCode: '99', returnReasonCode: item.code, originalTraceNumber: item.originalTrace, dateOfDeath: '', originalRdfiIdentification: RDFI, addendaInformation: '', traceNumber }],
    }
  })
  const others = (options.others ?? []).map(
    (amount): EntryDetail => ({
      transactionCode: 22,
      rdfiIdentification: ODFI,
      checkDigit: ODFI_CHECK_DIGIT,
      dfiAccountNumber: options.account ?? ACCOUNT_NUMBER,
      amount,
      identificationNumber: '',
      name: 'ACME WIDGETS LLC',
      discretionaryData: '',
      addendaRecordIndicator: 0,
      traceNumber: nextTrace(),
      addenda: [],
    }),
  )
  return bankFile('CCD', 200, [...returns, ...others], '0600', options.modifier ?? 'A')
}
