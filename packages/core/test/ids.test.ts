import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { jsonSchemaOf } from '../src/domain/foundations/codecs.js'
import { ClientId, EventId, LoanId, newId, PartyId, SessionId } from '../src/domain/foundations/ids.js'
import type { OnboardingSessionRepository } from '../src/ports/onboarding-session-repository.js'
import { sequentialIds } from '../src/testing/sequential-ids.js'

const UUID = '9D7C7A4E-0D6B-4C1E-9B8A-3F2E1D0C9B8A'

describe('identifiers (decision 78)', () => {
  it('decode like the UUID they refine: lower-cased, with the same message and JSON Schema', () => {
    expect(SessionId.decode(UUID)).to.deep.equal(E.right(UUID.toLowerCase()))
    const refused = PartyId.decode('nope')
    expect(E.isLeft(refused) && refused.left[0]?.message).to.equal('must be a UUID')
    expect(jsonSchemaOf(LoanId)).to.deep.equal({ type: 'string', format: 'uuid' })
    expect(E.isRight(EventId.decode(`evt_${'a'.repeat(32)}`))).to.equal(true)
    expect(E.isLeft(EventId.decode(UUID))).to.equal(true)
  })

  it('brand a fresh id from the generator for the kind asked for', () => {
    const ids = sequentialIds()
    const first: LoanId = newId(ids)
    const second = newId<PartyId>(ids)
    expect(first).to.not.equal(second)
    expect(typeof first).to.equal('string')
  })

  it('do not let one kind stand for another, or a bare string for any (checked by the compiler)', () => {
    const sessions: Pick<OnboardingSessionRepository, 'findForClient'> = { findForClient: () => TE.right(O.none) }
    const ids = sequentialIds()
    const clientId = newId<ClientId>(ids)
    const sessionId = newId<SessionId>(ids)
    sessions.findForClient(clientId, sessionId)
    // @ts-expect-error the two ids swapped
    sessions.findForClient(sessionId, clientId)
    // @ts-expect-error a bare string is no id
    sessions.findForClient(clientId, UUID)
    // Each line above is a compile-time assertion: `tsc -b` fails if a swap ever type-checks.
    expect(sessionId).to.not.equal(clientId)
  })
})

/** Every TypeScript source file under `dir`, recursively. */
const sourcesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourcesUnder(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  )

describe('testId', () => {
  it('is used by tests only: no source a service runs imports it', () => {
    const root = join(import.meta.dirname, '../../..')
    const dirs = ['packages/core/src', 'packages/adapters/src', 'apps/api/src', 'apps/cli/src', 'examples/embedded-service/src', 'examples/partner-quickstart/src']
    const sources = dirs.flatMap((dir) => sourcesUnder(join(root, dir))).filter((file) => !file.includes(join('packages', 'core', 'src', 'testing')))
    expect(sources.length).to.be.greaterThan(100)
    expect(sources.filter((file) => /\btestId\b|\bTestId\b/.test(readFileSync(file, 'utf8')))).to.deep.equal([])
  })
})
