import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import { OPERATOR_CONTEXT } from '../src/domain/audit/audit-event.js'
import { eventDraft } from '../src/domain/events/event.js'
import { notFound } from '../src/domain/foundations/errors.js'
import type { Page } from '../src/domain/foundations/pagination.js'
import type { DeliveryRecord, EventEndpoint } from '../src/domain/webhooks/event-endpoint.js'
import { getWebhookDelivery, listWebhookDeliveries, retryWebhookDeliveryForOperator } from '../src/use-cases/webhooks/operator-deliveries.js'
import { inMemoryAuditLog, inMemoryEventLog, sequentialIds, testClock } from '../src/testing/index.js'
import { testId } from '../src/testing/test-ids.js'

/**
 * Operators' webhook deliveries on the in-memory event log (the PostgreSQL adapter's are tested
 * through the API: apps/api/test/operator-deliveries.test.ts): every endpoint's deliveries in the
 * order queued, paged and filtered, one delivery, and the audited retry.
 */

const PARTY = testId('11111111-1111-4111-8111-111111111111')
const CLIENT = testId('22222222-2222-4222-8222-222222222222')

const run = async <A>(te: TE.TaskEither<unknown, A>): Promise<A> => {
  const r = await te()
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  return r.right
}

const setup = () => {
  const audit = inMemoryAuditLog()
  const eventLog = inMemoryEventLog(() => CLIENT, audit)
  const clock = testClock(new Date('2026-11-30T10:00:00.000Z'))
  const deps = { eventEndpoints: eventLog.endpoints, ids: sequentialIds(), clock }
  const endpoint = (id: string): EventEndpoint => ({
    id: testId(id),
    clientId: CLIENT,
    partyId: PARTY,
    url: `https://93.184.216.34/hooks/${id}`,
    description: null,
    enabledEvents: ['*'],
    status: 'enabled',
    sealedSecret: 'sealed',
    previousSealedSecret: null,
    previousSecretExpiresAt: null,
    createdAt: clock.now(),
    updatedAt: clock.now(),
  })
  const publish = (n: number) => eventLog.append([eventDraft(`0000000${n}-0000-4000-8000-000000000000`, 'loan.booked', { partyId: PARTY, loanId: null, resourceId: `r${n}` }, {}, clock.now())])
  return { audit, eventLog, deps, endpoint, publish }
}

describe("operators' webhook deliveries", () => {
  it('lists every endpoint\'s deliveries as queued, page by page and by endpoint or event, with the endpoint they went to', async () => {
    const { eventLog, deps, endpoint, publish } = setup()
    const first = endpoint('aaaaaaaa-0000-4000-8000-000000000001')
    const second = endpoint('aaaaaaaa-0000-4000-8000-000000000002')
    await run(eventLog.endpoints.insert(first))
    await run(eventLog.endpoints.insert(second))
    for (const n of [1, 2, 3]) publish(n)

    const all = await run(listWebhookDeliveries(deps)({ limit: '100' }))
    expect(all.items.map((d) => [d.endpointId, d.eventId])).to.deep.equal(eventLog.endpoints.deliveries().map((d) => [d.endpointId, d.eventId]))
    expect(all.items).to.have.length(6)
    expect(all.items[0]).to.include({ url: first.url, clientId: CLIENT, partyId: PARTY, status: 'pending' })

    const seen: string[] = []
    let cursor: string | null = null
    do {
      const page: Page<DeliveryRecord> = await run(listWebhookDeliveries(deps)({ limit: '4', ...(cursor === null ? {} : { cursor }) }))
      seen.push(...page.items.map((d) => d.rowId))
      cursor = page.nextCursor
    } while (cursor !== null)
    expect(seen).to.deep.equal(all.items.map((d) => d.rowId))

    const ofSecond = await run(listWebhookDeliveries(deps)({ endpoint_id: second.id }))
    expect(ofSecond.items.map((d) => d.endpointId)).to.deep.equal([second.id, second.id, second.id])
    const eventId = all.items[0]!.eventId
    expect((await run(listWebhookDeliveries(deps)({ event_id: eventId }))).items.map((d) => d.endpointId)).to.deep.equal([first.id, second.id])
    expect((await run(listWebhookDeliveries(deps)({ status: 'failed' }))).items).to.deep.equal([])
    expect(E.isLeft(await listWebhookDeliveries(deps)({ status: 'lost' })())).to.equal(true)
  })

  it('retries one delivery, due now and audited with what it was; an unknown one is not found and audits nothing', async () => {
    const { audit, eventLog, deps, endpoint, publish } = setup()
    const hook = endpoint('aaaaaaaa-0000-4000-8000-000000000003')
    await run(eventLog.endpoints.insert(hook))
    publish(4)
    const [queued] = eventLog.endpoints.deliveries()
    const command = { endpointId: hook.id, eventId: queued!.eventId }
    expect(await run(getWebhookDelivery(deps)(command))).to.include({ endpointId: hook.id, eventId: queued!.eventId, url: hook.url })

    deps.clock.set(new Date('2026-11-30T11:00:00.000Z'))
    const retried = await run(retryWebhookDeliveryForOperator(deps)(command, OPERATOR_CONTEXT))
    expect(retried).to.include({ status: 'pending' })
    expect(retried.nextAttemptAt).to.deep.equal(new Date('2026-11-30T11:00:00.000Z'))
    expect(audit.all().map((e) => [e.action, e.subject, e.details])).to.deep.equal([
      ['webhook_delivery.retried', { type: 'webhook_endpoint', id: hook.id }, { webhook_endpoint_id: hook.id, event_id: queued!.eventId, type: 'loan.booked', status_before: 'pending', attempts_before: 0 }],
    ])

    const unknown = { endpointId: testId('aaaaaaaa-0000-4000-8000-000000000009'), eventId: queued!.eventId }
    expect(await retryWebhookDeliveryForOperator(deps)(unknown, OPERATOR_CONTEXT)()).to.deep.equal(E.left(notFound('webhook_delivery')))
    expect(await retryWebhookDeliveryForOperator(deps)({ ...command, now: true }, OPERATOR_CONTEXT)()).to.satisfy(E.isLeft)
    expect(audit.all()).to.have.length(1)
  })
})
