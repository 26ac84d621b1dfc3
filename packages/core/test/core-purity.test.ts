import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'chai'

/**
 * The hexagon's rule: core is pure domain. Outside `src/testing/` it may import only its own
 * files, fp-ts and io-ts: never koa, kysely, pg, pino, node modules or anything else.
 */

const srcDir = fileURLToPath(new URL('../src', import.meta.url))

const SPECIFIER = /(?:^|\s)(?:import|export)\s(?:[^'";]*?\sfrom\s)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm

/** Module specifiers a source text imports or re-exports. */
export const specifiersOf = (source: string): string[] =>
  [...source.matchAll(SPECIFIER)].map((m) => m[1] ?? m[2]!).filter((s) => s !== undefined)

const allowed = (specifier: string): boolean =>
  specifier.startsWith('./') || specifier.startsWith('../') || specifier === 'io-ts' || specifier === 'fp-ts' || specifier.startsWith('fp-ts/')

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'testing' && dir === srcDir ? [] : sourceFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })

describe('core purity', () => {
  it('detects forbidden imports (the check can fail)', () => {
    const sample = [
      "import Koa from 'koa'",
      "import { readFile } from 'node:fs'",
      "export { sql } from 'kysely'",
      "import type { Logger } from 'pino'",
      "const pg = await import('pg')",
      "import * as E from 'fp-ts/lib/Either.js'",
      "import { thing } from './domain/thing.js'",
    ].join('\n')
    expect(specifiersOf(sample).filter((s) => !allowed(s))).to.deep.equal(['koa', 'node:fs', 'kysely', 'pino', 'pg'])
  })

  it('imports nothing but its own files, fp-ts and io-ts outside src/testing', () => {
    const files = sourceFiles(srcDir)
    expect(files.length).to.be.greaterThan(10)
    const offending = files.flatMap((file) =>
      specifiersOf(readFileSync(file, 'utf8'))
        .filter((s) => !allowed(s))
        .map((s) => `${relative(srcDir, file)} imports ${s}`),
    )
    expect(offending).to.deep.equal([])
  })
})
