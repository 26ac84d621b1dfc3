import { bankingCalendar, CalendarDate } from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import {
  migrateToLatest,
  nachaInboundFormat,
  postgresAchInbound,
  postgresAchOriginations,
  postgresWorldDeps,
  nodeApiKeyMaterial,
  openDatabase,
  postgresApiKeyRepository,
  postgresLoanApplicationRepository,
  postgresLoanProductRepository,
  postgresOnboardingSessionRepository,
  postgresWebhookEventRepository,
  randomIds,
  type OpenDatabase,
} from '@lendgate/adapters'
import { databaseBackups } from './backups.js'
import { runCli } from './cli.js'

/**
 * `pnpm lendgate …`: opens the configured database (migrating it like the server, on a session of
 * `DATABASE_DIRECT_URL` when set, unless the command works on the schema as it finds it), runs
 * one command.
 */
/**
 * The ad-hoc ACH closures of `ACH_EXTRA_CLOSURES` (docs/configuration.md "ACH"), as the server
 * reads them: `YYYY-MM-DD`, comma-separated. The server refuses to start on a malformed list; here
 * a malformed date refuses `ach ingest` as a usage error.
 */
const extraClosures = (raw: string | undefined): E.Either<{ readonly _tag: 'Usage'; readonly detail: string }, string[]> => {
  const days = (raw ?? '').split(',').map((day) => day.trim()).filter((day) => day !== '')
  const wrong = days.find((day) => E.isLeft(CalendarDate.decode(day)))
  return wrong === undefined ? E.right(days) : E.left({ _tag: 'Usage', detail: `ACH_EXTRA_CLOSURES must be dates, YYYY-MM-DD, comma-separated: ${JSON.stringify(wrong)} is not one` })
}

let database: OpenDatabase | undefined
const status = await runCli(
  process.argv.slice(2),
  async (command) => {
    database = await openDatabase({
      url: process.env['DATABASE_URL'],
      directUrl: process.env['DATABASE_DIRECT_URL'] || undefined,
      dataDir: process.env['DATA_DIR'] ?? './.data',
    })
    if (command.schemaAsFound !== true) await database.withSession(migrateToLatest)
    const { db } = database
    const live = postgresWorldDeps(db, 'live')
    return {
      backups: databaseBackups(database),
      ingestion: pipe(
        extraClosures(process.env['ACH_EXTRA_CLOSURES']),
        E.map((closures) => ({
          loans: live.loans,
          originations: postgresAchOriginations(db),
          inbound: postgresAchInbound(db),
          inboundFormat: nachaInboundFormat,
          paymentMethods: live.paymentMethods,
          calendar: bankingCalendar(closures),
          ids: randomIds(),
          clock: { now: () => new Date() },
        })),
      ),
      apiKeys: postgresApiKeyRepository(database.db),
      keyMaterial: nodeApiKeyMaterial(),
      sessions: postgresOnboardingSessionRepository(database.db),
      world: 'live',
      events: postgresWebhookEventRepository(database.db),
      applications: postgresLoanApplicationRepository(database.db),
      products: postgresLoanProductRepository(database.db),
      ids: randomIds(),
      clock: { now: () => new Date() },
    }
  },
  { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) },
)
await database?.close()
process.exitCode = status
