import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SessionId } from '@lendgate/core'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { loggingCodeSender } from '../src/logging-code-sender.js'
import { bufferedDestination, createLogger } from '../src/logger.js'

describe('loggingCodeSender (development)', () => {
  // The destination flushes every 250 ms for the rest of the process, so its file stays open
  // until the process exits; the folder is removed at the end (an open file can be unlinked).
  let dir = ''
  before(() => (dir = mkdtempSync(join(tmpdir(), 'lendgate-code-log-'))))
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('has the code in the log when the send completes, not with the next batch', async () => {
    const file = join(dir, 'api.log')
    const sender = loggingCodeSender(createLogger('lendgate-api', 'info', bufferedDestination(openSync(file, 'w'))))
    const sessionId = E.getOrElseW(() => expect.fail('a UUID'))(SessionId.decode('6f1c9a2e-3b4d-4e5f-8a6b-7c8d9e0f1a2b'))
    const sent = await sender.send({ sessionId, channel: 'phone', destination: '+14155550123', code: '042817', expiresAt: new Date('2026-03-10T09:10:00.000Z') })()
    expect(sent).to.deep.equal(E.right(undefined))
    const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l !== '')
    expect(lines).to.have.length(1)
    expect(JSON.parse(lines[0] ?? '')).to.deep.include({
      level: 'warn',
      session_id: '6f1c9a2e-3b4d-4e5f-8a6b-7c8d9e0f1a2b',
      channel: 'phone',
      destination: '+14155550123',
      verification_code: '042817',
      expires_at: '2026-03-10T09:10:00.000Z',
    })
    // What the README's one-liner reads: the latest code, by grep.
    expect(lines[0]).to.match(/"verification_code":"042817"/)
  })
})
