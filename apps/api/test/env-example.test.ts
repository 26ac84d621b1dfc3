import { expect } from 'chai'
import * as E from 'fp-ts/lib/Either.js'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ENV_EXAMPLE_COMMAND, environmentExample } from '../src/config-docs.js'
import { documentedSettings, loadConfig } from '../src/config.js'

const REPO = fileURLToPath(new URL('../../..', import.meta.url))
const committed = readFileSync(join(REPO, '.env.example'), 'utf8')

/** The `# NAME=value` lines of an example, uncommented. */
const settingLines = (text: string): [string, string][] =>
  text.split('\n').flatMap((line) => {
    const match = /^# ([A-Z][A-Z0-9_]*)=(.*)$/.exec(line)
    return match === null ? [] : [[match[1]!, match[2]!]]
  })

describe('.env.example', () => {
  it('is the text generated from the configuration schema', () => {
    expect(committed, `.env.example differs from the configuration schema's documentation: run \`${ENV_EXAMPLE_COMMAND}\``).to.equal(environmentExample())
  })

  it('holds only comments, blank lines and commented-out settings, so a copy of it changes nothing', () => {
    expect(committed.split('\n').filter((line) => line !== '' && !line.startsWith('#'))).to.deep.equal([])
  })

  it('lists every documented setting once, NODE_ENV among them, and no renamed one', () => {
    const names = settingLines(committed).map(([name]) => name)
    expect(names).to.deep.equal(documentedSettings().map((s) => s.name))
    expect(names).to.include('NODE_ENV')
    expect(names).not.to.include('WEBHOOK_WORKER')
  })

  it('shows defaults that loadConfig accepts and reads as the defaults, when every line is uncommented', () => {
    const uncommented = Object.fromEntries(settingLines(committed))
    expect(loadConfig(uncommented)).to.deep.equal(loadConfig({}))
    expect(E.isRight(loadConfig(uncommented))).to.equal(true)
  })

  it('shows no value for a secret, and the command that makes one', () => {
    const secrets = documentedSettings().filter((s) => s.doc.make !== undefined)
    expect(secrets.map((s) => s.name)).to.deep.equal(['PARTNER_MINT_SECRET', 'INTERNAL_API_TOKEN', 'WEBHOOK_SECRET_KEY'])
    for (const { name } of secrets) {
      expect(committed).to.include(`# Set it in production; make one with: openssl rand -base64 32\n# ${name}=\n`)
    }
  })

  it('has a row in the README\'s settings table for every setting', () => {
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8')
    const table = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1))
    const rows = table.split('\n').filter((line) => line.startsWith('| `'))
    const named = new Set(rows.flatMap((row) => [...row.split(' | ')[0]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((m) => m[1]!)))
    expect(documentedSettings().map((s) => s.name).filter((name) => !named.has(name))).to.deep.equal([])
  })
})

describe('environmentExample', () => {
  it('writes every meaning and rule in comment lines of at most 100 characters', () => {
    const lines = environmentExample().split('\n')
    expect(lines.filter((line) => line.length > 100)).to.deep.equal([])
  })
})
