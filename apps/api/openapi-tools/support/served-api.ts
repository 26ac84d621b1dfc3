import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { durableDatabases } from '../../test/support/durable-databases.js'
import { processEnv, startFromSource, within } from '../../test/support/api-process.js'
import { INTERNAL_TOKEN } from '../../test/support/test-server.js'

/**
 * The API under test: `src/main.ts` started from source as its own process on a free port, on
 * the embedded database (on disk in a temporary folder) or, when `TEST_DATABASE_URL` is set, in
 * a database of its own on that server (dropped at the end).
 */
export type ServedApi = {
  readonly url: string
  /** Which database it runs on. */
  readonly database: string
  /** What the process wrote, for failure messages. */
  readonly output: () => string
  readonly stop: () => Promise<void>
}

const START_MS = 90_000

export const startServedApi = async (): Promise<ServedApi> => {
  const kind = durableDatabases().at(-1)!
  const database = await kind.create()
  const api = startFromSource('src/main.ts', { PORT: '0', HOST: '127.0.0.1', ...processEnv(), ...database.env })
  const output = (): string => `${api.stdout()}${api.stderr()}`
  const stop = async (): Promise<void> => {
    if (api.child.exitCode === null && api.child.signalCode === null) {
      api.child.kill('SIGTERM')
      await within(15_000, api.exited).catch(async () => {
        api.child.kill('SIGKILL')
        await api.exited
      })
    }
    await database.dispose()
  }
  try {
    return { url: await within(START_MS, api.url), database: kind.name, output, stop }
  } catch (error) {
    await stop()
    throw new Error(`the API did not start on ${kind.name}: ${String(error)}\n${output().slice(-3_000)}`)
  }
}

/** A document as the server serves it, saved to a file for the tools; or why there is none. */
export type ServedDocument =
  | { readonly served: true; readonly route: string; readonly file: string; readonly document: Record<string, unknown> }
  | { readonly served: false; readonly route: string; readonly problem: string }

const fetchDocument = async (url: string, route: string, headers: Record<string, string>, file: string): Promise<ServedDocument> => {
  const reply = await fetch(`${url}${route}`, { headers })
  const text = await reply.text()
  if (reply.status !== 200) return { served: false, route, problem: `GET ${route} answered ${reply.status} ${text.slice(0, 300)}` }
  let document: Record<string, unknown>
  try {
    document = JSON.parse(text) as Record<string, unknown>
  } catch {
    return { served: false, route, problem: `GET ${route} answered 200 with a body that is not JSON: ${text.slice(0, 300)}` }
  }
  if (typeof document['openapi'] !== 'string') return { served: false, route, problem: `GET ${route} answered JSON without an "openapi" version` }
  writeFileSync(file, text)
  return { served: true, route, file, document }
}

/** The partner document (no credential) and the operator document (the internal token), as served. */
export const fetchServedDocuments = async (url: string, dir: string): Promise<{ readonly partner: ServedDocument; readonly operator: ServedDocument }> => ({
  partner: await fetchDocument(url, '/public/openapi.json', {}, join(dir, 'partner-openapi.json')),
  operator: await fetchDocument(url, '/internal/openapi.json', { Authorization: `Bearer ${INTERNAL_TOKEN}` }, join(dir, 'operator-openapi.json')),
})
