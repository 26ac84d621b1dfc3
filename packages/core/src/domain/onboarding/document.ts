import * as t from 'io-ts'
import { boundedString, oneOf, strictObject, stringMatching } from '../foundations/codecs.js'
import type { DocumentId } from '../foundations/ids.js'


/** The kinds of onboarding document. */
export const DOCUMENT_TYPES = [
  'certificate_of_incorporation',
  'articles_of_association',
  'proof_of_address',
  'government_id',
  'bank_statement',
  'financial_statement',
  'tax_return',
  'other',
] as const
/** One of `DOCUMENT_TYPES`. */
export type DocumentType = (typeof DOCUMENT_TYPES)[number]

/** `storage_ref` is where the partner keeps the file: a URI or object key. */
export const DocumentInput = strictObject(
  'DocumentInput',
  {
    type: oneOf('DocumentType', DOCUMENT_TYPES),
    storage_ref: stringMatching('StorageRef', /^\S{1,1024}$/, 'must be 1 to 1024 characters without spaces (a URI or object key)'),
  },
  {
    file_name: boundedString('FileName', 1, 255),
    content_type: stringMatching('ContentType', /^[a-z]+\/[a-z0-9.+-]+$/i, 'must be a media type such as application/pdf'),
    description: boundedString('Description', 1, 500),
  },
)
export type DocumentInput = t.TypeOf<typeof DocumentInput>

/** Lendgate stores what a document is and where it is kept, never the file. */
export type DocumentMetadata = {
  readonly id: DocumentId
  readonly type: DocumentType
  readonly storageRef: string
  readonly fileName: string | null
  readonly contentType: string | null
  readonly description: string | null
  readonly createdAt: Date
}

export const newDocument = (input: DocumentInput, id: DocumentId, now: Date): DocumentMetadata => ({
  id,
  type: input.type,
  storageRef: input.storage_ref,
  fileName: input.file_name ?? null,
  contentType: input.content_type ?? null,
  description: input.description ?? null,
  createdAt: now,
})
