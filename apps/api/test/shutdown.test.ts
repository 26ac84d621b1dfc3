import { expect } from 'chai'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { bearer, mintKey, request } from './support/client.js'
import { startInMemoryServer } from './support/test-server.js'

describe('graceful stop', () => {
  it('lets an in-flight request finish, then refuses new connections', async () => {
    let releaseInsert: () => void = () => undefined
    const insertStarted = new Promise<void>((started) => {
      releaseInsert = started
    })
    const server = await startInMemoryServer((base) => ({
      sessions: {
        ...base.sessions,
        // A slow write: the request is still running when the stop begins.
        insert: (session) =>
          TE.flatMap(
            TE.fromTask(async () => {
              releaseInsert()
              await new Promise((resolve) => setTimeout(resolve, 300))
            }),
            () => base.sessions.insert(session),
          ),
      },
    }))
    const key = await mintKey(server.url)
    const inFlight = request(server.url, '/public/onboarding-sessions', {
      method: 'POST',
      headers: bearer(key.api_key),
      json: { country_of_incorporation: 'US', locale: 'en-US' },
    })
    await insertStarted
    const stopped = server.stop()
    const reply = await inFlight
    await stopped
    expect(reply.status).to.equal(201)
    expect(reply.body.status).to.equal('IN_PROGRESS')
    let refused = false
    try {
      await fetch(`${server.url}/health`)
    } catch {
      refused = true
    }
    expect(refused).to.equal(true)
  })
})
