import { bankingCalendar, CalendarDate } from '@lendgate/core'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { text } from 'node:stream/consumers'
import {
  aesGcmAccountSeal,
  migrateToLatest,
  nachaInboundFormat,
  postgresAchInbound,
  postgresAchOriginations,
  postgresWorldDeps,
  nodeApiKeyMaterial,
  nodeOperatorSecrets,
  postgresOperatorRepository,
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
 * The ad-hoc ACH closures of `ACH_EXTRA_CLOSURES` (docs/configuration.md "ACH"), as the server
 * reads them: `YYYY-MM-DD`, comma-separated. The server refuses to start on a malformed list; here
 * a malformed date refuses `ach ingest` as a usage error.
 */
const extraClosures = (raw: string | undefined): E.Either<{ readonly _tag: 'Usage'; readonly detail: string }, string[]> => {
  const days = (raw ?? '').split(',').map((day) => day.trim()).filter((day) => day !== '')
  const wrong = days.find((day) => E.isLeft(CalendarDate.decode(day)))
  return wrong === undefined ? E.right(days) : E.left({ _tag: 'Usage', detail: `ACH_EXTRA_CLOSURES must be dates, YYYY-MM-DD, comma-separated: ${JSON.stringify(wrong)} is not one` })
}

/**
 * The key that seals bank account numbers, as the server has it (docs/configuration.md):
 * `WEBHOOK_SECRET_KEY` (32 bytes, base64), or outside production the one the server generated in
 * `DATA_DIR/dev-secrets.json` (apps/api/src/development-secrets.ts); none when neither is there
 * or it is not 32 bytes, and `ach ingest` then refuses files holding notices of change.
 */
const sealingKey = (dataDir: string): Uint8Array | undefined => {
  const generated = (): string | undefined => {
    const file = join(dataDir, 'dev-secrets.json')
    if (process.env['NODE_ENV'] === 'production' || !existsSync(file)) return undefined
    return (JSON.parse(readFileSync(file, 'utf8')) as { readonly webhook_secret_key?: string }).webhook_secret_key
  }
  const encoded = process.env['WEBHOOK_SECRET_KEY'] || generated()
  const key = encoded === undefined ? undefined : Buffer.from(encoded, 'base64')
  return key?.length === 32 ? key : undefined
}

/**
 * `pnpm lendgate …`: opens the configured database (migrating it like the server, on a session of
 * `DATABASE_DIRECT_URL` when set, unless the command works on the schema as it finds it), runs
 * one command.
 */
let database: OpenDatabase | undefined
const status = await runCli(
  process.argv.slice(2),
  async (command) => {
    const dataDir = process.env['DATA_DIR'] ?? './.data'
    database = await openDatabase({
      url: process.env['DATABASE_URL'],
      directUrl: process.env['DATABASE_DIRECT_URL'] || undefined,
      dataDir,
    })
    if (command.schemaAsFound !== true) await database.withSession(migrateToLatest)
    const { db } = database
    const live = postgresWorldDeps(db, 'live')
    const key = sealingKey(dataDir)
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
          accountSeal: key === undefined ? undefined : aesGcmAccountSeal(key),
          calendar: bankingCalendar(closures),
          ids: randomIds(),
          clock: { now: () => new Date() },
        })),
      ),
      apiKeys: postgresApiKeyRepository(database.db),
      operators: postgresOperatorRepository(database.db),
      operatorSecrets: nodeOperatorSecrets(),
      readStdin: () => text(process.stdin),
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
