import { spawn } from 'node:child_process'

/** What a child process printed and how it ended. */
export type Finished = { readonly code: number | null; readonly stdout: string; readonly stderr: string; readonly ms: number }

/**
 * Runs `command` with `args` to its end (as `user` when given), collecting what it prints; SIGKILL after `timeoutMs`.
 * Asynchronous, so the calling process goes on serving its own streams while it waits.
 */
export const runToEnd = (
  command: string,
  args: readonly string[],
  options: { readonly cwd: string; readonly env: NodeJS.ProcessEnv; readonly timeoutMs: number; readonly user?: { readonly uid: number; readonly gid: number } },
): Promise<Finished> =>
  new Promise((resolve, reject) => {
    const started = Date.now()
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], ...options.user })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs)
    child.once('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.once('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr, ms: Date.now() - started })
    })
  })
