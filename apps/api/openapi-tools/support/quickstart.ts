import { join } from 'node:path'
import { runToEnd } from '../../test/support/run-to-end.js'
import { REPO_ROOT } from './tools.js'

/**
 * The partner quick-start (examples/partner-quickstart/src/main.ts) run as a partner would run it,
 * with its own tsx and @lendgate/client (from source), in test mode: every call it makes (the test
 * helpers' approvals and clock included) goes to a path of the partner document under
 * `LENDGATE_BASE_URL`; it listens for webhooks on `RECEIVER_PORT`.
 */

const QUICKSTART_DIR = join(REPO_ROOT, 'examples', 'partner-quickstart')

export type QuickstartEnv = {
  readonly LENDGATE_BASE_URL: string
  readonly PARTNER_MINT_SECRET: string
  readonly RECEIVER_PORT: string
}

export type QuickstartRun = { readonly code: number | null; readonly output: string; readonly ms: number }

/** Runs the quick-start to its end (SIGKILL after `timeoutMs`). */
export const runQuickstart = async (env: QuickstartEnv, timeoutMs: number): Promise<QuickstartRun> => {
  // `--import tsx` resolves from the example's folder: its own tsx, as its `start` script uses, and
  // the same condition, so @lendgate/client runs from its source (no build needed).
  const run = await runToEnd(process.execPath, ['--import', 'tsx', '--conditions=@lendgate/source', 'src/main.ts'], { cwd: QUICKSTART_DIR, env: { PATH: process.env['PATH'] ?? '', ...env }, timeoutMs })
  return { code: run.code, output: `${run.stdout}${run.stderr}`, ms: run.ms }
}
