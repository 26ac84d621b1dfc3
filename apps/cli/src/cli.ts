import { parseArgs } from 'node:util'
import * as E from 'fp-ts/lib/Either.js'
import { COMMANDS, usageOf, type CliDeps, type Command, type Options } from './commands.js'

/** Where the CLI writes: standard output for answers, standard error for problems. */
export type Io = { readonly out: (text: string) => void; readonly err: (text: string) => void }

/** The width of the commands' names in the help: the longest, and a space. */
const NAME_WIDTH = Math.max(...Object.keys(COMMANDS).map((name) => name.length)) + 1

const HELP = `Lendgate operator CLI: runs the use cases directly on the configured database.

Usage: pnpm lendgate <command> [arguments] [--options]    (pnpm lendgate <command> --help)

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(NAME_WIDTH)} ${c.summary}`)
  .join('\n')}

The database is the server's: DATABASE_URL (postgres://…), or the embedded one under DATA_DIR
(default ./.data). The CLI runs beside the server: it joins the embedded database the server
started, or starts it for the command and stops it after when nothing else uses it.
`

/** What a command line asks for: a help text, or one command to run with its arguments and options. */
export type CommandLine =
  | { readonly _tag: 'Help'; readonly text: string }
  | { readonly _tag: 'Run'; readonly name: string; readonly command: Command; readonly args: readonly string[]; readonly options: Options }

/** A command line the CLI cannot run: what is wrong with it, then the usage. */
export type UsageError = { readonly _tag: 'UsageError'; readonly text: string }

const usageLine = (name: string, command: Command): string => `Usage: pnpm lendgate ${usageOf(name, command)}\n`

/**
 * Reads a command line, running nothing and opening no database: the command its first two
 * words name (or its first word: `backup`, `restore`), only the options that command takes,
 * exactly its arguments and every option it requires. `--help` (or `-h`) anywhere asks for the
 * help of the command named, or of the CLI.
 */
export const parseCommandLine = (argv: readonly string[]): E.Either<UsageError, CommandLine> => {
  const words = argv.filter((a) => !a.startsWith('-'))
  const name = [words.slice(0, 2).join(' '), words[0] ?? ''].find((n) => COMMANDS[n] !== undefined) ?? words.slice(0, 2).join(' ')
  const command = COMMANDS[name]
  if (command === undefined) {
    const wantsHelp = argv.length === 0 || argv.includes('--help') || argv.includes('-h') || argv[0] === 'help'
    return wantsHelp ? E.right({ _tag: 'Help', text: HELP }) : E.left({ _tag: 'UsageError', text: `Unknown command: ${argv.join(' ')}\n\n${HELP}` })
  }
  if (argv.includes('--help') || argv.includes('-h')) return E.right({ _tag: 'Help', text: `${command.summary}\n\n${usageLine(name, command)}` })
  const refuse = (problem: string): E.Either<UsageError, CommandLine> => E.left({ _tag: 'UsageError', text: `${problem}\n\n${usageLine(name, command)}` })
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] }
  try {
    parsed = parseArgs({
      args: [...argv],
      options: Object.fromEntries(Object.keys(command.options).map((o) => [o, { type: 'string' as const }])),
      allowPositionals: true,
      strict: true,
    }) as typeof parsed
  } catch (error) {
    return refuse(error instanceof Error ? error.message : String(error))
  }
  const args = parsed.positionals.slice(name.split(' ').length)
  if (args.length < command.args.length) return refuse(`<${command.args[args.length]}> is required`)
  if (args.length > command.args.length) return refuse(`Unexpected argument: ${args[command.args.length]}`)
  const options: Options = Object.fromEntries(Object.entries(parsed.values).map(([k, v]) => [k, typeof v === 'string' ? v : undefined]))
  const missing = Object.keys(command.options).find((o) => command.options[o]?.required && !options[o])
  if (missing !== undefined) return refuse(`--${missing} is required`)
  return E.right({ _tag: 'Run', name, command, args, options })
}

/** `StoreUnavailable` → `store_unavailable`; the failure's fields, never its cause. */
const failureBody = (failure: unknown): Record<string, unknown> => {
  if (typeof failure !== 'object' || failure === null || !('_tag' in failure)) return { error: 'internal_error' }
  const { _tag, cause: _cause, ...fields } = failure as { _tag: string; cause?: unknown }
  return { error: _tag.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase(), ...fields }
}

/** What a command that opens no database is given in place of its dependencies: reading one is a bug, and says so. */
const NO_DATABASE: CliDeps = new Proxy({} as CliDeps, {
  get: (_target, key) => {
    throw new Error(`a command that opens no database read its dependency ${String(key)}`)
  },
})

/**
 * Runs one command line, on the dependencies `deps` builds for its command, and answers the
 * exit status: 0 done, 1 refused (the reason as JSON on standard error), 2 a usage error (found
 * before the database is opened, when the line itself is wrong).
 */
export const runCli = async (argv: readonly string[], deps: (command: Command) => Promise<CliDeps>, io: Io): Promise<number> => {
  const line = parseCommandLine(argv)
  if (E.isLeft(line)) {
    io.err(line.left.text)
    return 2
  }
  if (line.right._tag === 'Help') {
    io.out(line.right.text)
    return 0
  }
  const { name, command, args, options } = line.right
  const outcome = await command.run(command.opensNoDatabase === true ? NO_DATABASE : await deps(command), args, options)()
  if (E.isRight(outcome)) {
    io.out(`${JSON.stringify(outcome.right, null, 2)}\n`)
    return 0
  }
  const body = failureBody(outcome.left)
  if (body['error'] === 'usage') {
    io.err(`${String(body['detail'])}\n\n${usageLine(name, command)}`)
    return 2
  }
  io.err(`${JSON.stringify(body)}\n`)
  return 1
}
