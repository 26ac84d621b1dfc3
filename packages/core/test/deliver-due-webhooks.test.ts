import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { storeUnavailable } from '../src/domain/foundations/errors.js'
import type { SessionId } from '../src/domain/foundations/ids.js'
import { partyReady } from '../src/views/events.js'
import type { DeliveryAttempt, DueDelivery, WebhookDeliveryQueue } from '../src/ports/webhook-delivery-queue.js'
import { testClock } from '../src/testing/fixed-clock.js'
import { deliverDueWebhooks, type DeliverDueWebhooksDeps } from '../src/use-cases/webhooks/deliver-due-webhooks.js'
import type { PartyView } from '../src/views/onboarding.js'

const now = new Date('2026-10-01T00:00:00.000Z')
const due = (n: number): DueDelivery => {
  const event = partyReady(`00000000-0000-4000-8000-00000000000${n}`, `ses_${n}` as SessionId, {} as PartyView, now, 'live').queued
  return { deliveryId: event.id, eventId: event.id, body: event.body, attempts: 0, url: `https://partner.example/hook/${n}`, sealedSecrets: ['sealed'], interruptedLeaseEnd: null }
}

const queueOf = (claimed: readonly DueDelivery[], failRecordFor: string | null) => {
  const recorded: DeliveryAttempt[] = []
  const queue: WebhookDeliveryQueue = {
    claimDue: () => TE.right(claimed),
    record: (attempt) => {
      if (attempt.url === failRecordFor) return TE.left(storeUnavailable('down'))
      recorded.push(attempt)
      return TE.right(undefined)
    },
    recordInterrupted: () => TE.right(undefined),
    backlog: () => TE.left(storeUnavailable('unused')),
  }
  return { queue, recorded }
}

const depsWith = (queue: WebhookDeliveryQueue, sign: DeliverDueWebhooksDeps['sign']): DeliverDueWebhooksDeps => ({
  queue,
  sender: { send: () => T.of({ statusCode: 200, error: null, durationMs: 5 }) },
  sign,
  webhookSecrets: { open: () => O.some('secret') },
  clock: testClock(now),
  schedule: [0, 5, 300],
  random: () => 0,
})

describe('deliverDueWebhooks', () => {
  describe('when the queue cannot record one attempt', () => {
    it('returns StoreUnavailable and still records the round\'s other attempts', async () => {
      const { queue, recorded } = queueOf([due(1), due(2)], due(1).url)
      const result = await deliverDueWebhooks(depsWith(queue, () => ({})))(10)
      expect(result).to.deep.equal(E.left(storeUnavailable('down')))
      expect(recorded.map((a) => [a.url, a.attemptNumber])).to.deep.equal([[due(2).url, 1]])
    })
  })

  describe('when every attempt is recorded', () => {
    it('returns each outcome in claim order', async () => {
      const { queue } = queueOf([due(1), due(2)], null)
      const result = await deliverDueWebhooks(depsWith(queue, () => ({})))(10)
      expect(result).to.deep.equal(E.right([{ _tag: 'Delivered' }, { _tag: 'Delivered' }]))
    })
  })

  describe('when a delivery has two secrets (an endpoint in its rotation\'s grace period)', () => {
    it('signs with each and sends both signatures in one webhook-signature, the current one first', async () => {
      const { queue } = queueOf([{ ...due(1), sealedSecrets: ['sealed-new', 'sealed-old'] }], null)
      const sent: Readonly<Record<string, string>>[] = []
      const deps: DeliverDueWebhooksDeps = {
        ...depsWith(queue, (secret, id) => ({ 'webhook-id': id, 'webhook-signature': `v1,${secret}` })),
        webhookSecrets: { open: (sealed) => O.some(sealed.replace('sealed-', '')) },
        sender: {
          send: (request) => {
            sent.push(request.headers)
            return T.of({ statusCode: 200, error: null, durationMs: 5 })
          },
        },
      }
      expect(await deliverDueWebhooks(deps)(10)).to.deep.equal(E.right([{ _tag: 'Delivered' }]))
      expect(sent).to.deep.equal([{ 'webhook-id': due(1).eventId, 'webhook-signature': 'v1,new v1,old' }])
    })
  })

  describe('when a step throws (a bug)', () => {
    it('rejects with that error instead of reporting a store outage', async () => {
      const { queue } = queueOf([due(1)], null)
      const bug = new TypeError('signing bug')
      const failing = depsWith(queue, () => {
        throw bug
      })
      let caught: unknown = undefined
      const result = await deliverDueWebhooks(failing)(10).catch((error: unknown) => {
        caught = error
        return 'rejected'
      })
      expect([result, caught]).to.deep.equal(['rejected', bug])
    })
  })
})
