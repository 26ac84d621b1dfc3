import { parseArgs } from 'node:util'
import * as E from 'fp-ts/lib/Either.js'
import { COMMANDS, type CliDeps, type Options } from './commands.js'

/** Where the CLI writes: standard output for answers, standard error for problems. */
export type Io = { readonly out: (text: string) => void; readonly err: (text: string) => void }

const HELP = `Lendgate operator CLI: runs the use cases directly on the configured database.

Usage: pnpm lendgate <command> [arguments] [--options]    (pnpm lendgate <command> --help)

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(22)} ${c.summary}`)
  .join('\n')}

The database is the server's: DATABASE_URL (postgres://…), or the embedded one under DATA_DIR
(default ./.data; stop the server first: the embedded database takes one process at a time).
`

/** `StoreUnavailable` → `store_unavailable`; the failure's fields, never its cause. */
const failureBody = (failure: unknown): Record<string, unknown> => {
  if (typeof failure !== 'object' || failure === null || !('_tag' in failure)) return { error: 'internal_error' }
  const { _tag, cause: _cause, ...fields } = failure as { _tag: string; cause?: unknown }
  return { error: _tag.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase(), ...fields }
}

/**
 * Runs one command line and answers the exit status: 0 done, 1 refused (the reason as JSON on
 * standard error), 2 a usage error.
 */
export const runCli = async (argv: readonly string[], deps: () => Promise<CliDeps>, io: Io): Promise<number> => {
  const words = argv.filter((a) => !a.startsWith('-'))
  const name = words.slice(0, 2).join(' ')
  const command = COMMANDS[name]
  if (command === undefined) {
    const wantsHelp = argv.length === 0 || argv.includes('--help') || argv.includes('-h') || argv[0] === 'help'
    ;(wantsHelp ? io.out : io.err)(wantsHelp ? HELP : `Unknown command: ${argv.join(' ')}\n\n${HELP}`)
    return wantsHelp ? 0 : 2
  }
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(`${command.summary}\n\nUsage: pnpm lendgate ${command.usage}\n`)
    return 0
  }
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] }
  try {
    parsed = parseArgs({
      args: [...argv],
      options: Object.fromEntries(command.options.map((o) => [o, { type: 'string' as const }])),
      allowPositionals: true,
      strict: true,
    }) as typeof parsed
  } catch (error) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n\nUsage: pnpm lendgate ${command.usage}\n`)
    return 2
  }
  const options: Options = Object.fromEntries(Object.entries(parsed.values).map(([k, v]) => [k, typeof v === 'string' ? v : undefined]))
  const outcome = await command.run(await deps(), parsed.positionals.slice(2), options)()
  if (E.isRight(outcome)) {
    io.out(`${JSON.stringify(outcome.right, null, 2)}\n`)
    return 0
  }
  const body = failureBody(outcome.left)
  if (body['error'] === 'usage') {
    io.err(`${String(body['detail'])}\n\nUsage: pnpm lendgate ${command.usage}\n`)
    return 2
  }
  io.err(`${JSON.stringify(body)}\n`)
  return 1
}
