import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { rememberLog } from './secret-scan.js'
import { INTERNAL_TOKEN, MINT_SECRET, type TestServer } from './test-server.js'

/** The API package's folder: where a child process started from source runs. */
export const API_DIR = fileURLToPath(new URL('../..', import.meta.url))

/** The repository's root: where the compiled entry points are started from. */
export const ROOT_DIR = fileURLToPath(new URL('../../../..', import.meta.url))

/** Node's options for a child process that runs the API's TypeScript sources, as `pnpm start` does. */
export const FROM_SOURCE = ['--import', 'tsx', '--conditions=@lendgate/source'] as const

/** How long a start may take: a fresh embedded database is created and migrated on the first one. */
const START_TIMEOUT_MS = 60_000

/** The settings every API process of the crash tests runs with (the same secrets as `testConfig`); live codes go to `verificationDeliveryUrl` when one is given. */
export const processEnv = (verificationDeliveryUrl?: string): Record<string, string> => ({
  PARTNER_MINT_SECRET: MINT_SECRET,
  INTERNAL_API_TOKEN: INTERNAL_TOKEN,
  WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  ...(verificationDeliveryUrl === undefined ? {} : { VERIFICATION_DELIVERY_URL: verificationDeliveryUrl }),
  LOG_LEVEL: 'info',
  // Far above what these tests send: being throttled is another suite's subject.
  RATE_LIMIT_REQUESTS: '1000000000',
  RATE_LIMIT_VERIFICATION_REQUESTS: '1000000000',
  RATE_LIMIT_MINT_REQUESTS: '1000000000',
  RATE_LIMIT_KEY_LOOKUPS: '1000000000',
})

/** A process of the API package started from its sources or its compiled output. */
export type SourceProcess = {
  readonly child: ChildProcess
  /** The URL its first log line naming one gives (the API's "listening", the worker's "running"). */
  readonly url: Promise<string>
  readonly stdout: () => string
  readonly stderr: () => string
  readonly exited: Promise<number | null>
}

/** `child` (spawned with its standard output and error piped) with its output collected and its URL read from its log. */
export const observed = (child: ChildProcess): SourceProcess => {
  let out = ''
  let err = ''
  const url = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const match = /"url":"(http:\/\/[^"]+)"/.exec(out)
      if (match !== null) resolve(match[1]!)
    })
    child.on('exit', (code) => reject(new Error(`exited with ${code} before listening: ${out}${err}`)))
  })
  url.catch(() => undefined)
  child.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString()
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { child, url, stdout: () => out, stderr: () => err, exited }
}

/** Starts `entry` (such as `src/main.ts`) as its own process with only PATH, `LOG_LEVEL=info` and `env` in its environment. */
export const startFromSource = (entry: string, env: Record<string, string>): SourceProcess =>
  observed(
    spawn(process.execPath, [...FROM_SOURCE, entry], {
      cwd: API_DIR,
      env: { PATH: process.env['PATH'] ?? '', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  )

/**
 * Starts the compiled `entry` (such as `apps/api/dist/main.js`) with plain `node` from the
 * repository root, as a supervisor does (no tsx, no source condition), with only PATH and `env`
 * in its environment.
 */
export const startCompiled = (entry: string, env: Record<string, string>): SourceProcess =>
  observed(spawn(process.execPath, [entry], { cwd: ROOT_DIR, env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] }))

/** `promise`, or a rejection after `ms`. */
export const within = <A>(ms: number, promise: Promise<A>): Promise<A> =>
  Promise.race([promise, new Promise<A>((_, reject) => setTimeout(() => reject(new Error(`not within ${ms} ms`)), ms))])

export type ApiProcess = {
  readonly url: string
  /** Everything the process wrote (standard output and error), for failure messages. */
  readonly output: () => string
  /**
   * Kills the process with SIGKILL (no shutdown code runs: no graceful stop, no log flush, no
   * pool close) and resolves once it is gone. Calling it again, or after it died, is harmless.
   */
  readonly crash: () => Promise<void>
}

/**
 * Starts `src/main.ts` as a process of its own (`node --import tsx`, so the pid is the server's),
 * on any free port, and resolves once it says it is listening.
 */
export const startApiProcess = async (env: Record<string, string>): Promise<ApiProcess> => {
  const child = spawn(process.execPath, [...FROM_SOURCE, 'src/main.ts'], {
    cwd: API_DIR,
    env: { PATH: process.env['PATH'] ?? '', PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  rememberLog(() => output)
  let exited = false
  const gone = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true
      resolve()
    }),
  )
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the API did not listen within ${START_TIMEOUT_MS} ms:\n${output}`))
    }, START_TIMEOUT_MS)
    const seen = (chunk: Buffer): void => {
      output += chunk.toString()
      const match = /"url":"(http:\/\/[^"]+)"/.exec(output)
      if (match !== null) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    }
    child.stdout!.on('data', seen)
    child.stderr!.on('data', seen)
    void gone.then(() => {
      clearTimeout(timer)
      reject(new Error(`the API exited before listening:\n${output}`))
    })
  })
  return {
    url,
    output: () => output,
    crash: async () => {
      if (!exited) child.kill('SIGKILL')
      await gone
    },
  }
}

/**
 * `api` as the HTTP helpers of this folder take a server (they use only its URL); its
 * dependencies and logs live in another process and cannot be reached from here.
 */
export const overHttp = (api: Pick<ApiProcess, 'url'>): TestServer => ({
  url: api.url,
  get deps(): never {
    throw new Error('the API runs in a process of its own: its dependencies are out of reach')
  },
  get logs(): never {
    throw new Error('the API runs in a process of its own: read ApiProcess.output() instead')
  },
  stop: async () => undefined,
})
