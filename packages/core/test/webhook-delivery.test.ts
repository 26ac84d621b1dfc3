import { expect } from 'chai'
import { afterAttempt } from '../src/domain/webhooks/webhook-delivery.js'

const schedule = [0, 5, 300, 1800, 7200, 18000, 36000, 36000]
const now = new Date('2026-10-01T00:00:00.000Z')
const later = (s: number): Date => new Date(now.getTime() + s * 1000)

describe('afterAttempt', () => {
  it('delivers on any 2xx', () => {
    for (const statusCode of [200, 201, 202, 204, 299]) {
      expect(afterAttempt({ statusCode, error: null, durationMs: 3 }, 1, schedule, now, 0)).to.deep.equal({ _tag: 'Delivered' })
    }
  })

  it('stops for good on 410 Gone', () => {
    expect(afterAttempt({ statusCode: 410, error: null, durationMs: 3 }, 1, schedule, now, 0)).to.deep.equal({ _tag: 'Failed', reason: 'gone' })
  })

  it('retries other answers and errors after the next delay of the schedule', () => {
    expect(afterAttempt({ statusCode: 500, error: null, durationMs: 3 }, 1, schedule, now, 0)).to.deep.equal({ _tag: 'RetryAt', at: later(5) })
    expect(afterAttempt({ statusCode: 301, error: null, durationMs: 3 }, 2, schedule, now, 0)).to.deep.equal({ _tag: 'RetryAt', at: later(300) })
    expect(afterAttempt({ statusCode: null, error: 'timeout', durationMs: 15000 }, 7, schedule, now, 0)).to.deep.equal({ _tag: 'RetryAt', at: later(36000) })
  })

  it('adds at most 10% jitter to a delay', () => {
    expect(afterAttempt({ statusCode: 503, error: null, durationMs: 1 }, 2, schedule, now, 0.5)).to.deep.equal({ _tag: 'RetryAt', at: later(315) })
    const max = afterAttempt({ statusCode: 503, error: null, durationMs: 1 }, 3, schedule, now, 0.999)
    expect(max._tag === 'RetryAt' && max.at.getTime() < later(1980).getTime()).to.equal(true)
  })

  it('fails the event once the schedule is exhausted (8 attempts by default)', () => {
    expect(afterAttempt({ statusCode: 500, error: null, durationMs: 3 }, 8, schedule, now, 0)).to.deep.equal({ _tag: 'Failed', reason: 'schedule_exhausted' })
  })
})
