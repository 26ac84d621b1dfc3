/**
 * `@lendgate/nacha`: an exact NACHA (ACH) file writer and parser. Amounts are integer cents,
 * every control is computed by the writer and checked by the parser, and the parser answers the
 * first problem of a file (its line, record type and field) instead of throwing.
 */
export * from './model.js'
export { parseNachaFile, RECORD_LENGTH, SEC_CODES } from './parse.js'
export { NachaFieldError, writeNachaFile, type WritableBatch, type WritableNachaFile } from './write.js'
export { buildNachaFile, type BuildInput, type BuildResult, type DebitBatchInput, type DebitInput } from './build.js'
export { buildResponseFile, correctedDataOf, type EntryResponse, type ResponseInput } from './respond.js'
export {
  accountKindOf,
  entriesWithoutAddendaOf,
  noticesOf,
  parseCorrectedData,
  returnsOf,
  SUPPORTED_CHANGE_CODES,
  type AccountKind,
  type Correction,
  type CorrectionResult,
  type InboundEntry,
  type NoticeOfChange,
  type ReturnEntry,
} from './inbound.js'
