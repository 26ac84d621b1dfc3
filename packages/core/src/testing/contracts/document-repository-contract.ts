import type { SessionId } from '../../domain/foundations/ids.js'
import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import type { DocumentMetadata } from '../../domain/onboarding/document.js'
import type { DocumentRepository } from '../../ports/document-repository.js'
import { at, freshId, right, type Implementation } from './run.js'

/** The behaviour every `DocumentRepository` must have. `session` returns the id of a stored session. */
export const documentRepositoryContract = (
  impl: Implementation<{ readonly repo: DocumentRepository; readonly session: () => Promise<SessionId> }>,
): void => {
  describe(`DocumentRepository contract: ${impl.name}`, () => {
    let repo: DocumentRepository
    let session: () => Promise<SessionId>
    before(async () => {
      ;({ repo, session } = await impl.make())
    })
    const doc = (iso: string, fileName: string | null = null): DocumentMetadata => ({
      id: freshId(),
      type: 'bank_statement',
      storageRef: `s3://bucket/${iso}.pdf`,
      fileName,
      contentType: 'application/pdf',
      description: null,
      createdAt: at(iso),
    })

    it("lists a session's documents field for field, in (created_at, id) order, page after page", async () => {
      const sessionId = await session()
      const a = doc('2026-08-01T00:00:00.002Z', 'a.pdf')
      const b = doc('2026-08-01T00:00:00.001Z')
      const c = doc('2026-08-01T00:00:00.003Z')
      for (const d of [a, b, c]) await right(repo.insertForSession(sessionId, d))
      await right(repo.insertForSession(await session(), doc('2026-08-01T00:00:00.000Z')))
      expect(await right(repo.listForSession(sessionId, { limit: 10, after: O.none }))).to.deep.equal([b, a, c])
      expect(await right(repo.listForSession(sessionId, { limit: 1, after: O.some({ createdAt: b.createdAt, id: b.id }) }))).to.deep.equal([a, c])
    })
  })
}
