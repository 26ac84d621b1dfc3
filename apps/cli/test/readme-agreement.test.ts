import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { parseCommandLine, runCli } from '../src/cli.js'

/**
 * The CLI and its READMEs agree (issue 39): the commands `--help` lists, with the usage each
 * one's `--help` prints, are apps/cli/README.md's list of commands, line for line; every
 * `lendgate …` command line in README.md and apps/cli/README.md is one the CLI parses (the
 * command exists, takes those options, has its arguments and required options); and README.md
 * names every command and no other. The CLI's own help and parser are the reference, not a list
 * kept here.
 */

const root = fileURLToPath(new URL('../../../', import.meta.url))
const READMES = ['README.md', 'apps/cli/README.md'] as const
const read = (path: string): string => readFileSync(`${root}${path}`, 'utf8')

/** What the CLI prints for `argv` (a help: it opens no database). */
const printed = async (argv: readonly string[]): Promise<string> => {
  let out = ''
  let err = ''
  const status = await runCli(argv, () => Promise.reject(new Error('a help opens no database')), { out: (t) => (out += t), err: (t) => (err += t) })
  expect({ status, err }, argv.join(' ')).to.deep.equal({ status: 0, err: '' })
  return out
}

/** The commands `--help` lists, in its order (`backup`, `keys mint`, …). */
const commandsInHelp = (help: string): string[] => {
  const section = help.split('\nCommands:\n')[1]?.split('\n\n')[0] ?? ''
  return section.split('\n').map((line) => /^ {2}(\S+(?: \S+)?) {2,}\S/.exec(line)?.[1] ?? `(a help line not read as a command: ${line})`)
}

/** `lendgate keys mint --party-id <uuid> …`: the usage a command's `--help` prints. */
const usageOf = async (name: string): Promise<string> => {
  const help = await printed([...name.split(' '), '--help'])
  return `lendgate ${/^Usage: pnpm lendgate (.+)$/m.exec(help)?.[1] ?? `(no usage in the help of ${name})`}`
}

/** The fenced blocks of a Markdown text, each with its language. */
const fencedBlocks = (markdown: string): Array<{ readonly language: string; readonly body: string }> =>
  [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ language: m[1] ?? '', body: m[2] ?? '' }))

/**
 * The words of the first simple command in `text`, as bash splits them: quotes removed,
 * `$VARIABLE`s kept as they are (they stand for one word each); it ends at an unquoted `|`,
 * `;`, `&`, `)`, `<`, `>` or `#`.
 */
const shellWords = (text: string): string[] => {
  const words: string[] = []
  let word: string | undefined
  let quote: '"' | "'" | undefined
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] ?? ''
    if (quote !== undefined) {
      if (ch === quote) quote = undefined
      else if (ch === '\\' && quote === '"' && /["\\$`]/.test(text[i + 1] ?? '')) word += text[++i] ?? ''
      else word += ch
    } else if (ch === '"' || ch === "'") {
      quote = ch
      word ??= ''
    } else if (ch === '\\') {
      word = (word ?? '') + (text[++i] ?? '')
    } else if (/\s/.test(ch)) {
      if (word !== undefined) words.push(word)
      word = undefined
    } else if (/[|;&)<>]/.test(ch) || (ch === '#' && word === undefined)) {
      break
    } else {
      word = (word ?? '') + ch
    }
  }
  if (word !== undefined) words.push(word)
  return words
}

/** The `lendgate` command lines of a shell block (`npx -y pnpm@10.34.8 -s lendgate …`), continuation lines joined. */
const lendgateCommands = (block: string): string[] =>
  block
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .flatMap((line) => {
      const at = /\bpnpm(?:@\S+)?(?:\s+-\S+)*\s+lendgate(?=\s|$)/.exec(line)
      return at === null ? [] : [`lendgate${line.slice(at.index + at[0].length)}`]
    })

/** Why the CLI would refuse `command` (a `lendgate …` line), or nothing when it takes it. */
const refusal = (command: string): string | undefined => {
  const line = parseCommandLine(shellWords(command).slice(1))
  if (E.isLeft(line)) return line.left.text.split('\n')[0]
  if (line.right._tag === 'Help') return undefined
  const { command: taken, options } = line.right
  // An option whose values the usage lists (`--status A|B|C`) is given one of them (or a variable).
  for (const [option, spec] of Object.entries(taken.options)) {
    const given = options[option]
    const allowed = /^[\w-]+(\|[\w-]+)+$/.test(spec.value) ? spec.value.split('|') : undefined
    if (given !== undefined && allowed !== undefined && !given.startsWith('$') && !allowed.includes(given)) return `--${option} ${given} is not one of ${spec.value}`
  }
  return undefined
}

describe('the operator CLI and its READMEs', () => {
  let commands: string[] = []
  before(async () => {
    commands = commandsInHelp(await printed(['--help']))
  })

  it('--help lists the commands, each with a usage of its own', async () => {
    expect(commands).to.have.length.greaterThan(0)
    for (const name of commands) expect(await usageOf(name)).to.match(new RegExp(`^lendgate ${name}( |$)`))
  })

  it('apps/cli/README.md lists every command with the usage its --help prints, and nothing else', async () => {
    const usages = await Promise.all(commands.map(usageOf))
    const lists = fencedBlocks(read('apps/cli/README.md'))
      .filter((b) => b.language === 'text')
      .map((b) => b.body.trimEnd().split('\n'))
    expect(lists).to.deep.equal([usages])
  })

  for (const path of READMES) {
    it(`every lendgate command in ${path} is one the CLI takes, with its arguments and required options`, () => {
      const shown = fencedBlocks(read(path))
        .filter((b) => b.language === 'sh')
        .flatMap((b) => lendgateCommands(b.body))
      expect(shown).to.have.length.greaterThan(0)
      const refused = shown.flatMap((command) => {
        const why = refusal(command)
        return why === undefined ? [] : [`${command}  →  ${why}`]
      })
      expect(refused).to.deep.equal([])
    })
  }

  it("README.md's Operator CLI section names every command, and no command the CLI lacks", () => {
    const section = /^## Operator CLI\n([\s\S]*?)(?=^## )/m.exec(read('README.md'))?.[1] ?? ''
    const groups = new Set(commands.map((name) => name.split(' ')[0]))
    const named = [...section.matchAll(/`([\w-]+(?: [\w-]+)?)`/g)]
      .map((m) => m[1] ?? '')
      .filter((name) => groups.has(name.split(' ')[0]) && (name.includes(' ') || commands.includes(name)))
    expect([...new Set(named)].sort()).to.deep.equal([...commands].sort())
  })
})

describe('reading a README command line as bash would', () => {
  it('splits words, removes quotes, keeps variables and stops at the end of the simple command', () => {
    expect(shellWords(`lendgate keys mint --party-id $P --client-name 'acme ops' | node -p "x"`)).to.deep.equal(['lendgate', 'keys', 'mint', '--party-id', '$P', '--client-name', 'acme ops'])
    expect(shellWords(`lendgate sessions reject $S --reason "blurred \\"scan\\""); echo`)).to.deep.equal(['lendgate', 'sessions', 'reject', '$S', '--reason', 'blurred "scan"'])
    expect(shellWords('lendgate --help # all of them')).to.deep.equal(['lendgate', '--help'])
  })

  it('finds the lendgate commands of a block, whichever way pnpm is run', () => {
    const block = ['npx -y pnpm@10.34.8 lendgate --help', 'X=$(npx -y pnpm@10.34.8 -s lendgate keys list \\', '  --client-id $C | node -p "1")', 'pnpm lendgate sessions list', 'curl -s $B/lendgate'].join('\n')
    expect(lendgateCommands(block).map((c) => shellWords(c))).to.deep.equal([
      ['lendgate', '--help'],
      ['lendgate', 'keys', 'list', '--client-id', '$C'],
      ['lendgate', 'sessions', 'list'],
    ])
  })

  it('refuses what the CLI would refuse', () => {
    expect(refusal('lendgate keys list')).to.equal('--client-id is required')
    expect(refusal('lendgate webhooks deliveries --session-id $S')).to.match(/^Unknown option '--session-id'/)
    expect(refusal('lendgate applications approve')).to.equal('<applicationId> is required')
    expect(refusal('lendgate sessions list --status PENDING')).to.equal('--status PENDING is not one of IN_PROGRESS|SUBMITTED|APPROVED|REJECTED')
    expect(refusal('lendgate keys burn')).to.match(/^Unknown command/)
    expect(refusal('lendgate webhooks retry $S $E')).to.equal(undefined)
  })
})
