import type { SessionId } from '../../domain/foundations/ids.js'
import { expect } from 'chai'
import * as O from 'fp-ts/lib/Option.js'
import type { WebhookEndpointRepository } from '../../ports/webhook-endpoint-repository.js'
import { at, right, type Implementation } from './run.js'

/** The behaviour every `WebhookEndpointRepository` must have. `session` returns the id of a stored session. */
export const webhookEndpointRepositoryContract = (
  impl: Implementation<{ readonly repo: WebhookEndpointRepository; readonly session: () => Promise<SessionId> }>,
): void => {
  describe(`WebhookEndpointRepository contract: ${impl.name}`, () => {
    let repo: WebhookEndpointRepository
    let session: () => Promise<SessionId>
    before(async () => {
      ;({ repo, session } = await impl.make())
    })

    it('creates, then replaces keeping created_at, field for field', async () => {
      const sessionId = await session()
      const first = { sessionId, url: 'https://a.example/h', sealedSecret: 'v1.a.b.c', createdAt: at('2026-09-01T00:00:00.000Z'), updatedAt: at('2026-09-01T00:00:00.000Z') }
      expect(await right(repo.upsert(first))).to.deep.equal(first)
      const second = { ...first, url: 'https://b.example/h', sealedSecret: 'v1.d.e.f', createdAt: at('2026-09-02T00:00:00.000Z'), updatedAt: at('2026-09-02T00:00:00.000Z') }
      expect(await right(repo.upsert(second))).to.deep.equal({ ...second, createdAt: first.createdAt })
      expect(await right(repo.findBySession(sessionId))).to.deep.equal(O.some({ ...second, createdAt: first.createdAt }))
      expect(await right(repo.findBySession(await session()))).to.deep.equal(O.none)
    })
  })
}
