import * as E from 'fp-ts/lib/Either.js'
import type * as t from 'io-ts'
import { boundedString, CalendarDate, oneOf, strictObject, stringMatching } from '../foundations/codecs.js'
import { invalidRequest, type InvalidRequest } from '../foundations/errors.js'
import type { DocumentId, LoanId } from '../foundations/ids.js'

/** Documents of a loan (statements, notices, disclosures): metadata and a storage reference. */

/** The kinds of loan document. */
export const LOAN_DOCUMENT_TYPES = ['statement', 'notice', 'disclosure', 'agreement', 'other'] as const
/** One of `LOAN_DOCUMENT_TYPES`. */
export type LoanDocumentType = (typeof LOAN_DOCUMENT_TYPES)[number]

/**
 * A loan document's metadata as operators attach it: `type` and `storage_ref` (a URI or object
 * key) required; `period_start`, `period_end` (not before the start), `file_name` and `content_type` optional.
 */
export const LoanDocumentInput = strictObject(
  'LoanDocumentInput',
  {
    type: oneOf('LoanDocumentType', LOAN_DOCUMENT_TYPES),
    storage_ref: stringMatching('StorageRef', /^\S{1,1024}$/, 'must be 1 to 1024 characters without spaces (a URI or object key)'),
  },
  {
    period_start: CalendarDate,
    period_end: CalendarDate,
    file_name: boundedString('FileName', 1, 255),
    content_type: stringMatching('ContentType', /^[a-z]+\/[a-z0-9.+-]+$/i, 'must be a media type such as application/pdf'),
  },
)
/** A decoded `LoanDocumentInput`. */
export type LoanDocumentInput = t.TypeOf<typeof LoanDocumentInput>

/**
 * Metadata of a loan's document (statement, notice, disclosure) and where it is stored; the
 * opening statement is made when the loan is booked.
 */
export type LoanDocument = {
  readonly id: DocumentId
  readonly loanId: LoanId
  readonly type: LoanDocumentType
  readonly periodStart: string | null
  readonly periodEnd: string | null
  readonly storageRef: string
  readonly fileName: string | null
  readonly contentType: string | null
  readonly createdAt: Date
}

export const newLoanDocument = (input: LoanDocumentInput, loanId: LoanId, id: DocumentId, now: Date): E.Either<InvalidRequest, LoanDocument> =>
  input.period_start !== undefined && input.period_end !== undefined && input.period_start > input.period_end
    ? E.left(invalidRequest('period_start must not be after period_end.', 'period_start'))
    : E.right({
        id,
        loanId,
        type: input.type,
        periodStart: input.period_start ?? null,
        periodEnd: input.period_end ?? null,
        storageRef: input.storage_ref,
        fileName: input.file_name ?? null,
        contentType: input.content_type ?? null,
        createdAt: now,
      })

/** The opening statement's metadata, generated when a loan is booked. */
export const openingStatement = (loanId: LoanId, startDate: string, id: DocumentId, now: Date): LoanDocument => ({
  id,
  loanId,
  type: 'statement',
  periodStart: startDate,
  periodEnd: startDate,
  storageRef: `lendgate://loans/${loanId}/statements/${startDate}.pdf`,
  fileName: `statement-${startDate}.pdf`,
  contentType: 'application/pdf',
  createdAt: now,
})
