import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runToEnd, type Finished } from '../../test/support/run-to-end.js'

/** The repository root: the tools' configuration files and `node_modules/.bin` are there. */
export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url))

/**
 * The path of a tool's bin, installed from the root devDependencies (pinned exactly): never
 * downloaded at test time.
 */
export const bin = (name: string): string => {
  const path = join(REPO_ROOT, 'node_modules', '.bin', name)
  if (!existsSync(path)) throw new Error(`${path} is missing: run npx -y pnpm@10.34.8 install (it is a root devDependency)`)
  return path
}

/** Settings that keep the tools quiet and offline beyond their job: Redocly's telemetry and update check. */
export const TOOL_ENV: Readonly<Record<string, string>> = {
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
  NO_COLOR: '1',
}

export type ToolRun = Finished

/** Runs a tool's bin from the repository root to its end (SIGKILL after `timeoutMs`). */
export const runTool = (name: string, args: readonly string[], timeoutMs: number): Promise<ToolRun> =>
  runToEnd(bin(name), args, { cwd: REPO_ROOT, env: { ...process.env, ...TOOL_ENV }, timeoutMs })

/** A Prism server (`prism mock` or `prism proxy`) of this run. */
export type PrismServer = {
  readonly url: string
  /** Everything Prism wrote: one line per request, and one per violation it found. */
  readonly log: () => string
  readonly stop: () => Promise<void>
}

const PRISM_START_MS = 60_000

/** Starts `prism <args>` (which must name a port with `-p`) and resolves once it says it is listening. */
export const startPrism = (args: readonly string[]): Promise<PrismServer> =>
  new Promise((resolve, reject) => {
    const child = spawn(bin('prism'), args, { cwd: REPO_ROOT, env: { ...process.env, ...TOOL_ENV }, stdio: ['ignore', 'pipe', 'pipe'] })
    let log = ''
    const exited = new Promise<void>((done) => child.once('exit', () => done()))
    const stop = async (): Promise<void> => {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000)
      await exited
      clearTimeout(killer)
    }
    const timer = setTimeout(() => {
      void stop()
      reject(new Error(`prism ${args.join(' ')} did not listen within ${PRISM_START_MS} ms:\n${log}`))
    }, PRISM_START_MS)
    const seen = (chunk: Buffer): void => {
      log += chunk.toString()
      const listening = /Prism is listening on (http:\/\/\S+)/.exec(log)
      if (listening !== null) {
        clearTimeout(timer)
        resolve({ url: listening[1]!.replace(/\/$/, ''), log: () => log, stop })
      }
    }
    child.stdout.on('data', seen)
    child.stderr.on('data', seen)
    void exited.then(() => {
      clearTimeout(timer)
      reject(new Error(`prism ${args.join(' ')} exited before listening:\n${log}`))
    })
  })

/** Prism's log lines that report a violation of the document (`[VALIDATOR] ✖ error Violation: …`) or an answer it turned into an error. */
export const prismViolationLines = (log: string): string[] =>
  log.split('\n').filter((line) => /Violation:|Request terminated with error/.test(line))
