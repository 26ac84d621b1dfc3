import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import * as t from 'io-ts'
import { storeUnavailable, type StoreUnavailable } from '../src/domain/foundations/errors.js'
import { runLeasedJob, type JobRunOutcome, type JobRunRequest, type SteppedJob } from '../src/use-cases/jobs/leased-job.js'
import { inMemoryJobLeases, testClock } from '../src/testing/index.js'

/**
 * Scheduled jobs on a lease (issue 38): one runner of a run at a time, resumed from its saved
 * progress after a crash, a failure or a stop, and completed once.
 */

const LEASE_MS = 30_000
const RUN = '2026-11-26'

/** A job that counts to `steps` one step at a time, logging which step ran for whom. */
const counting = (steps: number, log: string[], who: string, failAt?: number): SteppedJob<{ readonly done: number }> => ({
  name: 'counting',
  initial: { done: 0 },
  progress: t.type({ done: t.number }),
  step: ({ done }) =>
    done + 1 === failAt
      ? TE.left(storeUnavailable(new Error('down')))
      : TE.fromIO(() => {
          log.push(`${who}:${done + 1}`)
          return { progress: { done: done + 1 }, done: done + 1 === steps }
        }),
  finish: ({ done }) =>
    TE.fromIO(() => {
      log.push(`${who}:finished at ${done}`)
    }),
})

const setup = () => {
  const leases = inMemoryJobLeases()
  const clock = testClock(new Date('2026-11-26T00:15:00.000Z'))
  const run = runLeasedJob({ leases, clock })
  const request = (holder: string, stopping: () => boolean = () => false): JobRunRequest => ({ runKey: RUN, holder, leaseMs: LEASE_MS, stopping })
  const outcome = async <P>(job: SteppedJob<P>, req: JobRunRequest): Promise<E.Either<StoreUnavailable, JobRunOutcome>> => run(job, req)()
  return { leases, clock, request, outcome }
}

describe('runLeasedJob', () => {
  it('runs every step and finishes once; the run is then not due, for this holder or another', async () => {
    const { request, outcome, leases, clock } = setup()
    const log: string[] = []
    expect(await outcome(counting(3, log, 'a'), request('a'))).to.deep.equal(E.right({ _tag: 'Completed', resumed: false }))
    expect(log).to.deep.equal(['a:1', 'a:2', 'a:3', 'a:finished at 3'])
    expect(await outcome(counting(3, log, 'a'), request('a'))).to.deep.equal(E.right({ _tag: 'NotDue' }))
    expect(await outcome(counting(3, log, 'b'), request('b'))).to.deep.equal(E.right({ _tag: 'NotDue' }))
    expect(log).to.have.length(4)
    expect(await leases.lastCompleted('counting')()).to.deep.equal(E.right(O.some({ runKey: RUN, finishedAt: clock.now() })))
  })

  it('leaves a run held by a live lease alone, and resumes a crashed holder\'s run from its saved progress once the lease runs out', async () => {
    const { leases, clock, request, outcome } = setup()
    // Holder a took the run, did two steps, saved, and died without a word.
    const taken = await leases.acquire('counting', RUN, 'a', clock.now(), LEASE_MS)()
    const lease = { job: 'counting', runKey: RUN, holder: 'a', progress: null }
    expect(taken).to.deep.equal(E.right(O.some(lease)))
    expect(await leases.renew(lease, JSON.stringify({ done: 2 }), clock.now(), LEASE_MS)()).to.deep.equal(E.right(true))
    const log: string[] = []
    expect(await outcome(counting(4, log, 'b'), request('b'))).to.deep.equal(E.right({ _tag: 'NotDue' }))
    clock.advance(LEASE_MS)
    expect(await outcome(counting(4, log, 'b'), request('b'))).to.deep.equal(E.right({ _tag: 'Completed', resumed: true }))
    expect(log).to.deep.equal(['b:3', 'b:4', 'b:finished at 4'])
  })

  it('after a failed step, releases the run with the progress before it: the next attempt goes on from there at once', async () => {
    const { request, outcome } = setup()
    const log: string[] = []
    const failed = await outcome(counting(4, log, 'a', 3), request('a'))
    expect(E.isLeft(failed) && failed.left._tag).to.equal('StoreUnavailable')
    expect(await outcome(counting(4, log, 'b'), request('b'))).to.deep.equal(E.right({ _tag: 'Completed', resumed: true }))
    expect(log).to.deep.equal(['a:1', 'a:2', 'b:3', 'b:4', 'b:finished at 4'])
  })

  it('stops between steps when asked, saving its progress for the next holder', async () => {
    const { request, outcome } = setup()
    const log: string[] = []
    expect(await outcome(counting(5, log, 'a'), request('a', () => log.length === 2))).to.deep.equal(E.right({ _tag: 'Stopped' }))
    expect(await outcome(counting(5, log, 'b'), request('b'))).to.deep.equal(E.right({ _tag: 'Completed', resumed: true }))
    expect(log).to.deep.equal(['a:1', 'a:2', 'b:3', 'b:4', 'b:5', 'b:finished at 5'])
  })

  it('gives up when another holder took the run over after its lease ran out, and does not finish it', async () => {
    const { clock, request, outcome } = setup()
    const log: string[] = []
    const job = counting(3, log, 'a')
    // a's second step takes longer than the lease; b takes the run over meanwhile and completes it.
    const slow: SteppedJob<{ readonly done: number }> = {
      ...job,
      step: (p) =>
        p.done === 1
          ? async () => {
              clock.advance(LEASE_MS + 1)
              expect(await outcome(counting(3, log, 'b'), request('b'))).to.deep.equal(E.right({ _tag: 'Completed', resumed: true }))
              return job.step(p)()
            }
          : job.step(p),
    }
    expect(await outcome(slow, request('a'))).to.deep.equal(E.right({ _tag: 'LeaseLost' }))
    expect(log).to.deep.equal(['a:1', 'b:2', 'b:3', 'b:finished at 3', 'a:2'])
  })

  it('starts over when the saved progress does not decode', async () => {
    const { leases, clock, request, outcome } = setup()
    const taken = await leases.acquire('counting', RUN, 'a', clock.now(), LEASE_MS)()
    if (E.isLeft(taken) || O.isNone(taken.right)) throw new Error('no lease')
    await leases.release(taken.right.value, '{"done":"two"}')()
    const log: string[] = []
    expect(await outcome(counting(2, log, 'b'), request('b'))).to.deep.equal(E.right({ _tag: 'Completed', resumed: false }))
    expect(log).to.deep.equal(['b:1', 'b:2', 'b:finished at 2'])
  })
})
