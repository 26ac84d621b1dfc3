import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  bankingCalendar,
  bookLoan,
  newLoanApplication,
  newLoanProduct,
  newOnboardingSession,
  type Clock,
  type LoanApplication,
  type OnboardingSession,
} from '@lendgate/core'
import { nachaInboundFormat } from '@lendgate/adapters'
import { fakeAccountSeal, fakeKeyMaterial, fakeOperatorSecrets, inMemoryOperatorRepository, inMemoryAchInbound, inMemoryAchOriginations, inMemoryPaymentMethodRepository, type InMemoryLoanRepository, inMemoryApiKeyRepository, inMemoryLoanApplicationRepository, inMemoryLoanProductRepository, inMemoryOnboardingSessionRepository, sequentialIds, testClock, testId } from '@lendgate/core/testing'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { runCli } from '../src/cli.js'
import { COMMANDS, usageOf, type CliDeps } from '../src/commands.js'

/** The operator CLI (issue 7): each command over in-memory adapters, and the real program once. */

const right = async <A>(task: () => Promise<E.Either<unknown, A>>): Promise<A> => {
  const r = await task()
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  return r.right
}

/** `ach ingest`'s dependencies on in-memory stores around `loans`, reading files with the real NACHA reader. */
const ingestionOn = (loans: InMemoryLoanRepository, clock: Clock): CliDeps['ingestion'] => {
  const paymentMethods = inMemoryPaymentMethodRepository(loans)
  return E.right({
    loans,
    originations: inMemoryAchOriginations(loans.allPayments, paymentMethods),
    inbound: inMemoryAchInbound(),
    inboundFormat: nachaInboundFormat,
    paymentMethods,
    accountSeal: fakeAccountSeal(),
    calendar: bankingCalendar(),
    ids: sequentialIds(),
    clock,
  })
}

const setup = () => {
  const sessions = inMemoryOnboardingSessionRepository()
  const applications = inMemoryLoanApplicationRepository()
  const clock = testClock(new Date('2026-03-10T09:00:00.000Z'))
  const backedUp: string[] = []
  const operators = inMemoryOperatorRepository()
  /** What the command's standard input holds. */
  const stdin = { text: '' }
  const deps: CliDeps = {
    backups: {
      backup: (file) => TE.fromIO(() => (backedUp.push(file), { file })),
      restore: (file) => TE.left({ _tag: 'DatabaseNotEmpty', detail: `not restored from ${file}`, tables: ['loans'] }),
    },
    apiKeys: inMemoryApiKeyRepository(),
    keyMaterial: fakeKeyMaterial(),
    sessions,
    events: sessions.events,
    applications,
    products: inMemoryLoanProductRepository(),
    ingestion: ingestionOn(applications.loans, clock),
    operators,
    operatorSecrets: fakeOperatorSecrets(),
    readStdin: async () => stdin.text,
    ids: sequentialIds(),
    clock,
    world: 'live',
  }
  const run = async (...argv: string[]) => {
    let out = ''
    let err = ''
    const status = await runCli(argv, async () => deps, { out: (t) => (out += t), err: (t) => (err += t) })
    return { status, out, err, json: status === 0 && out.startsWith('{') ? (JSON.parse(out) as Record<string, any>) : undefined } // eslint-disable-line @typescript-eslint/no-explicit-any
  }
  /** A submitted session with everything a party needs. */
  const submittedSession = async (clientId = '00000000-0000-4000-8000-0000000000c1'): Promise<OnboardingSession> => {
    const now = clock.now()
    const opened = newOnboardingSession({ country_of_incorporation: 'US', locale: 'en-US' }, testId(clientId), testId(deps.ids.next()), now)
    const session: OnboardingSession = {
      ...opened,
      status: 'SUBMITTED',
      phone: { value: '+14155550123', verifiedAt: now },
      email: { value: 'jane@acme.example', verifiedAt: now },
      profile: {
        legalName: 'Acme Widgets LLC',
        tradingName: null,
        legalForm: null,
        registrationNumber: null,
        incorporationDate: null,
        industryCode: null,
        website: null,
        taxId: null,
        updatedAt: now,
      },
      submittedAt: now,
    }
    await right(sessions.insert(session))
    return session
  }
  /** A submitted application. */
  const submittedApplication = async (): Promise<LoanApplication> => {
    const product = newLoanProduct(
      { name: 'Term', currency: 'USD', min_amount: 100_000, max_amount: 10_000_000, min_term_months: 3, max_term_months: 24, interest_rate_bps: 1200 },
      testId(deps.ids.next()),
      clock.now(),
    )
    const draft = newLoanApplication(
      { product_id: product.id, amount: 1_200_000, currency: 'USD', term_months: 12 },
      { partyId: testId(deps.ids.next()), clientId: testId(deps.ids.next()) },
      product,
      testId(deps.ids.next()),
      clock.now(),
    )
    await right(applications.insert({ ...draft, status: 'SUBMITTED', submittedAt: clock.now() }))
    return { ...draft, status: 'SUBMITTED', submittedAt: clock.now() }
  }
  return { deps, run, submittedSession, submittedApplication, applications, clock, backedUp, operators, stdin }
}

describe('the operator CLI', () => {
  it('lists every command with --help, and explains each one', async () => {
    const { run } = setup()
    const help = await run('--help')
    expect(help.status).to.equal(0)
    for (const name of Object.keys(COMMANDS)) expect(help.out).to.include(name)
    for (const [name, command] of Object.entries(COMMANDS)) {
      const one = await run(...name.split(' '), '--help')
      expect(one, name).to.deep.include({ status: 0, err: '', out: `${command.summary}\n\nUsage: pnpm lendgate ${usageOf(name, command)}\n` })
    }
  })

  it('refuses an unknown command or option with exit status 2 and the usage', async () => {
    const { run } = setup()
    expect(await run('keys', 'burn')).to.deep.include({ status: 2, out: '' })
    const unknownOption = await run('keys', 'mint', '--party', 'x')
    expect(unknownOption.status).to.equal(2)
    expect(unknownOption.err).to.include('Usage: pnpm lendgate keys mint')
    const missing = await run('keys', 'list')
    expect(missing).to.deep.include({ status: 2 })
    expect(missing.err).to.include('--client-id is required')
  })

  it('refuses a missing or extra argument and a missing required option before opening the database', async () => {
    const cases: ReadonlyArray<readonly [readonly string[], string]> = [
      [['sessions', 'approve'], '<sessionId> is required\n\nUsage: pnpm lendgate sessions approve <sessionId> [--reviewed-by <name>]\n'],
      [['webhooks', 'retry', 'a'], '<eventId> is required\n\nUsage: pnpm lendgate webhooks retry <sessionId> <eventId>\n'],
      [['applications', 'approve', 'a', 'b'], 'Unexpected argument: b\n\nUsage: pnpm lendgate applications approve <applicationId> [--decided-by <name>]\n'],
      [['sessions', 'reject', 'a'], '--reason is required\n\nUsage: pnpm lendgate sessions reject <sessionId> --reason <text> [--reviewed-by <name>]\n'],
      [['backup'], '--out is required\n\nUsage: pnpm lendgate backup --out <file>\n'],
      [['restore', 'a.jsonl'], 'Unexpected argument: a.jsonl\n\nUsage: pnpm lendgate restore --from <file>\n'],
      [['keys', 'mint', '--party-id', ''], '--party-id is required\n\nUsage: pnpm lendgate keys mint --party-id <uuid> [--client-name <name>] [--environment live|test] [--scopes a,b]\n'],
    ]
    for (const [argv, err] of cases) {
      let opened = false
      let out = ''
      let written = ''
      const status = await runCli(argv, async () => ((opened = true), setup().deps), { out: (t) => (out += t), err: (t) => (written += t) })
      expect({ status, out, err: written, opened }, argv.join(' ')).to.deep.equal({ status: 2, out: '', err, opened: false })
    }
  })

  it('hands backup and restore their file, answering what was done or the refusal (exit status 1)', async () => {
    const { run, backedUp } = setup()
    expect(await run('backup', '--out', 'lendgate.jsonl.gz')).to.deep.include({ status: 0, json: { file: 'lendgate.jsonl.gz' } })
    expect(backedUp).to.deep.equal(['lendgate.jsonl.gz'])
    expect(await run('restore', '--from', 'lendgate.jsonl.gz')).to.deep.include({
      status: 1,
      err: '{"error":"database_not_empty","detail":"not restored from lendgate.jsonl.gz","tables":["loans"]}\n',
    })
  })

  it('mints a key (printed once), lists it masked, revokes it', async () => {
    const { run } = setup()
    const minted = await run('keys', 'mint', '--party-id', '0b6a3f2e-8f5c-4d8e-9a37-1c2d3e4f5a6b', '--client-name', 'ops', '--scopes', 'partner:api, keys:manage')
    expect(minted.status).to.equal(0)
    expect(minted.json).to.deep.include({ party_id: '0b6a3f2e-8f5c-4d8e-9a37-1c2d3e4f5a6b', client_name: 'ops', scopes: ['partner:api', 'keys:manage'], status: 'active' })
    expect(minted.json?.['api_key']).to.be.a('string')
    const clientId = minted.json?.['client_id'] as string
    const listed = await run('keys', 'list', '--client-id', clientId)
    expect(listed.status).to.equal(0)
    expect(listed.json?.['data'].map((k: Record<string, unknown>) => [k['api_key_id'], k['status']])).to.deep.equal([[minted.json?.['api_key_id'], 'active']])
    expect(listed.out).to.not.include(minted.json?.['api_key'] as string)
    const revoked = await run('keys', 'revoke', minted.json?.['api_key_id'] as string, '--client-id', clientId)
    expect(revoked.json).to.deep.include({ api_key_id: minted.json?.['api_key_id'], status: 'revoked' })
  })

  it('adds operators with a generated password printed once, or one read from standard input; lists, disables and ends their sessions', async () => {
    const { run, operators, stdin, deps } = setup()
    const generated = await run('operators', 'add', '--email', 'Ada@Lender.Example', '--role', 'reviewer')
    expect(generated.status, generated.err).to.equal(0)
    expect(generated.json).to.deep.equal({
      operator: { operator_id: generated.json?.['operator']['operator_id'], email: 'ada@lender.example', role: 'reviewer', created_at: '2026-03-10T09:00:00.000Z', disabled_at: null },
      password: 'generated-password-1',
    })
    stdin.text = 'a passphrase from a pipe\nignored second line\n'
    const given = await run('operators', 'add', '--email', 'grace@lender.example', '--role', 'credit', '--password-from', 'stdin')
    expect(given.status, given.err).to.equal(0)
    expect(given.json).to.not.have.property('password')
    const credentials = await right(operators.credentialsOf('grace@lender.example'))
    expect(credentials._tag === 'Some' && (await deps.operatorSecrets.passwordMatches('a passphrase from a pipe', (credentials.value.passwordHash ?? ''))())).to.equal(true)

    expect(await run('operators', 'add', '--email', 'ADA@lender.example', '--role', 'admin')).to.deep.include({ status: 1, err: '{"error":"already_exists","entity":"operator"}\n' })
    expect(await run('operators', 'add', '--email', 'x@lender.example', '--role', 'owner')).to.deep.include({
      status: 1,
      err: '{"error":"invalid_request","detail":"role must be one of: reviewer, credit, servicing, admin","param":"role"}\n',
    })
    stdin.text = 'short\n'
    expect((await run('operators', 'add', '--email', 'y@lender.example', '--role', 'admin', '--password-from', 'stdin')).err).to.include('"param":"password"')
    expect(await run('operators', 'add', '--email', 'z@lender.example', '--role', 'admin', '--password-from', 'file')).to.deep.include({ status: 2 })

    const listed = await run('operators', 'list')
    expect(listed.json?.['data'].map((o: Record<string, unknown>) => [o['email'], o['role']])).to.deep.equal([
      ['ada@lender.example', 'reviewer'],
      ['grace@lender.example', 'credit'],
    ])
    const revoked = await run('operators', 'revoke-sessions', '--email', 'ada@lender.example')
    expect(revoked.json?.['sessions_revoked']).to.equal(0)
    const disabled = await run('operators', 'disable', '--email', 'ADA@lender.example')
    expect(disabled.json).to.deep.include({ email: 'ada@lender.example', disabled_at: '2026-03-10T09:00:00.000Z' })
    const enabled = await run('operators', 'enable', '--email', 'ada@lender.example')
    expect(enabled.json).to.deep.include({ email: 'ada@lender.example', disabled_at: null })
    expect((await run('operators', 'set-role', '--email', 'ada@lender.example', '--role', 'servicing')).json).to.deep.include({ role: 'servicing' })
    const reset = await run('operators', 'reset-password', '--email', 'ada@lender.example')
    expect(reset.json).to.deep.include({ sessions_revoked: 0 })
    expect(reset.json?.['password']).to.match(/^generated-password-\d+$/).and.not.equal('generated-password-1')
    stdin.text = 'another careful passphrase\n'
    const given2 = await run('operators', 'reset-password', '--email', 'grace@lender.example', '--password-from', 'stdin')
    expect(given2.json).to.not.have.property('password')
    const regraced = await right(operators.credentialsOf('grace@lender.example'))
    expect(regraced._tag === 'Some' && (await deps.operatorSecrets.passwordMatches('another careful passphrase', regraced.value.passwordHash ?? '')())).to.equal(true)
    expect(await run('operators', 'disable', '--email', 'nobody@lender.example')).to.deep.include({ status: 1, err: '{"error":"not_found","resource":"operator"}\n' })
  })

  it('refuses a bad mint with exit status 1 and the reason as JSON, never a stack', async () => {
    const { run } = setup()
    const refused = await run('keys', 'mint', '--party-id', 'not-a-uuid')
    expect(refused.status).to.equal(1)
    expect(JSON.parse(refused.err)).to.deep.equal({ error: 'invalid_request', detail: 'party_id must be a UUID', param: 'party_id' })
  })

  it('lists, approves and rejects onboarding sessions; the approval creates the party and queues party.ready', async () => {
    const { run, submittedSession } = setup()
    const first = await submittedSession()
    const second = await submittedSession()
    const listed = await run('sessions', 'list', '--status', 'SUBMITTED')
    expect(listed.json?.['data'].map((s: Record<string, unknown>) => s['session_id'])).to.deep.equal([first.id, second.id])
    const approved = await run('sessions', 'approve', first.id, '--reviewed-by', 'ops@lendgate')
    expect(approved.status).to.equal(0)
    expect(approved.json?.['session']).to.deep.include({ session_id: first.id, status: 'APPROVED', party_id: approved.json?.['party']['party_id'] })
    const deliveries = await run('webhooks', 'deliveries', first.id)
    expect(deliveries.json?.['data'].map((e: Record<string, unknown>) => e['type'])).to.deep.equal(['party.ready'])
    const eventId = deliveries.json?.['data'][0]['event_id'] as string
    const retried = await run('webhooks', 'retry', first.id, eventId)
    expect(retried.status, retried.err).to.equal(0)
    const rejected = await run('sessions', 'reject', second.id, '--reason', 'documents unreadable')
    expect(rejected.json).to.deep.include({ session_id: second.id, status: 'REJECTED' })
    const again = await run('sessions', 'approve', second.id)
    expect(again.status).to.equal(1)
    expect(JSON.parse(again.err)).to.deep.include({ error: 'invalid_state', status: 'REJECTED' })
    const blankReason = await run('sessions', 'reject', first.id, '--reason', ' ')
    expect(JSON.parse(blankReason.err)).to.deep.include({ error: 'invalid_request', param: 'reason' })
  })

  it('approves an application (booking the loan exactly as bookLoan does) and declines another', async () => {
    const { run, submittedApplication, applications, clock } = setup()
    const toApprove = await submittedApplication()
    const toDecline = await submittedApplication()
    const listed = await run('applications', 'list', '--status', 'SUBMITTED')
    expect(listed.json?.['data'].map((a: Record<string, unknown>) => a['application_id'])).to.deep.equal([toApprove.id, toDecline.id])
    const approved = await run('applications', 'approve', toApprove.id, '--decided-by', 'credit@lendgate')
    expect(approved.status).to.equal(0)
    const loanId = approved.json?.['loan']['loan_id'] as string
    const booked = await right(applications.loans.findById(testId(loanId)))
    expect(booked._tag).to.equal('Some')
    const expected = bookLoan({ ...toApprove, version: 1 }, { next: () => 'id' }, clock.now())
    expect(approved.json?.['loan']).to.deep.include({ principal: 1_200_000, term_months: 12, payment_amount: expected.loan.paymentAmount, start_date: '2026-03-10' })
    const declined = await run('applications', 'decline', toDecline.id, '--reason', 'debt service coverage below 1.25')
    expect(declined.json).to.deep.include({ application_id: toDecline.id, status: 'DECLINED' })
  })

  it('ingests a return file: each return reported (unmatched here: no debit of ours), the same file again changes nothing', async () => {
    const { run } = setup()
    const file = fileURLToPath(new URL('../../../packages/nacha/test/fixtures/moov-io/return-WEB.ach', import.meta.url))
    const first = await run('ach', 'ingest', file)
    expect(first.status, first.err).to.equal(0)
    expect(first.json?.['status']).to.equal('ingested')
    expect(first.json?.['returns']).to.have.length.above(0)
    for (const r of first.json?.['returns'] as Record<string, unknown>[]) expect(r).to.deep.include({ outcome: 'unmatched', payment_id: null, late: false })
    const again = await run('ach', 'ingest', file)
    expect(again.json).to.deep.equal(first.json)
  })

  it('ingests a notice of change file: its notice reported (unmatched here), none of the corrected number in the answer', async () => {
    const { run } = setup()
    const file = fileURLToPath(new URL('../../../packages/nacha/test/fixtures/moov-io/cor-example.ach', import.meta.url))
    const ingested = await run('ach', 'ingest', file)
    expect(ingested.status, ingested.err).to.equal(0)
    expect(ingested.json?.['notices']).to.deep.equal([{ record: 3, original_trace: ingested.json?.['notices'][0].original_trace, change_code: 'C01', payment_method_id: null, outcome: 'unmatched', detail: null }])
    expect(ingested.json?.['notices'][0].original_trace).to.match(/^\d{15}$/)
    // The fixture's corrected account number is never printed.
    expect(ingested.out).to.not.include('1918171614')
  })

  it('refuses to ingest a file that does not parse, naming its record (exit status 1), and one that cannot be read', async () => {
    const { run } = setup()
    const refused = await run('ach', 'ingest', fileURLToPath(new URL('../../../packages/nacha/test/fixtures/moov-io/ppd-debit-invalid-entryDetail-checkDigit.ach', import.meta.url)))
    expect(refused.status).to.equal(1)
    expect(JSON.parse(refused.err)).to.deep.include({ error: 'invalid_request', param: 'file' })
    expect(refused.err).to.match(/record \d+/)
    const missing = await run('ach', 'ingest', '/nonexistent/returns.ach')
    expect(missing.status).to.equal(1)
  })

  it('runs as a program on an embedded database of its own (pnpm lendgate), and stops the server it started', function () {
    this.timeout(60_000)
    const root = fileURLToPath(new URL('../../../', import.meta.url))
    const dataDir = mkdtempSync(join(tmpdir(), 'lendgate-cli-'))
    try {
      const result = spawnSync(
        `${root}node_modules/.bin/tsx`,
        ['--conditions=@lendgate/source', 'apps/cli/src/main.ts', 'keys', 'mint', '--party-id', '0b6a3f2e-8f5c-4d8e-9a37-1c2d3e4f5a6b'],
        { cwd: root, env: { PATH: process.env['PATH'] ?? '', DATA_DIR: dataDir }, encoding: 'utf8' },
      )
      expect(result.status, result.stderr).to.equal(0)
      expect(JSON.parse(result.stdout)).to.deep.include({ party_id: '0b6a3f2e-8f5c-4d8e-9a37-1c2d3e4f5a6b', status: 'active' })
      expect(existsSync(join(dataDir, 'pgdata', 'postmaster.pid')), 'the server still running').to.equal(false)
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
