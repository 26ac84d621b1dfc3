import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { openDatabase, type OpenDatabase } from '@lendgate/adapters'
import { realDatabaseUrl, stopEmbeddedServerOf } from '@lendgate/adapters/testing'

/**
 * Databases that outlive the API process using them, for tests that kill it and start it again:
 * the embedded PostgreSQL on disk in a temporary directory, and, when `TEST_DATABASE_URL` is
 * set, a database of its own on that server (named like the shared test databases, so a run
 * that dies before dropping it is cleaned up by the next one). The API process migrates it on
 * its first start.
 */
export type DurableDatabase = {
  /** The settings that point an API process at it (`DATA_DIR`, and `DATABASE_URL` for a server). */
  readonly env: Record<string, string>
  /**
   * Runs `run` on the database from the test process. The embedded database has one owner at a
   * time: call this only while no API process has it open.
   */
  readonly inspect: <A>(run: (db: OpenDatabase['db']) => Promise<A>) => Promise<A>
  readonly dispose: () => Promise<void>
}

export type DurableDatabaseKind = { readonly name: string; readonly create: () => Promise<DurableDatabase> }

type AdminClient = { connect(): Promise<void>; query(text: string): Promise<unknown>; end(): Promise<void> }

/** `pg`, as the adapters package (which depends on it) resolves it: the API app does not depend on it. */
const adminClient = (url: string): AdminClient => {
  const requireFromAdapters = createRequire(fileURLToPath(new URL('../../../../packages/adapters/package.json', import.meta.url)))
  const pg = requireFromAdapters('pg') as { Client: new (options: { connectionString: string }) => AdminClient }
  return new pg.Client({ connectionString: url })
}

const withAdmin = async (url: string, statement: string): Promise<void> => {
  const client = adminClient(url)
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

const embedded = async (): Promise<DurableDatabase> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lendgate-durable-'))
  return {
    env: { DATA_DIR: dataDir },
    inspect: async (run) => {
      const database = await openDatabase({ url: undefined, dataDir })
      try {
        return await run(database.db)
      } finally {
        await database.close()
      }
    },
    dispose: async () => {
      await stopEmbeddedServerOf(dataDir)
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

const onServer = async (baseUrl: string): Promise<DurableDatabase> => {
  const name = `lendgate_test_${Math.floor(Date.now() / 1000)}_durable_${randomBytes(4).toString('hex')}`
  await withAdmin(baseUrl, `create database "${name}"`)
  const url = new URL(baseUrl)
  url.pathname = `/${name}`
  const dataDir = mkdtempSync(join(tmpdir(), 'lendgate-durable-'))
  let open: OpenDatabase | undefined
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: url.toString() },
    inspect: async (run) => run((open ??= await openDatabase({ url: url.toString(), dataDir, poolSize: 2 })).db),
    dispose: async () => {
      await open?.close()
      await withAdmin(baseUrl, `drop database if exists "${name}" with (force)`)
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** Every kind of durable database to run against: embedded always, the server when configured. */
export const durableDatabases = (): readonly DurableDatabaseKind[] => {
  const url = realDatabaseUrl()
  return [
    { name: 'embedded PostgreSQL on disk', create: embedded },
    ...(url === undefined ? [] : [{ name: 'PostgreSQL server', create: () => onServer(url) }]),
  ]
}
