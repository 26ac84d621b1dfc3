import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'chai'

/**
 * Core is the hexagon's inside (HOUSE_STYLE.md "Layout"): it may import only its own files,
 * `fp-ts/...` and `io-ts`, and so may its in-memory adapters (`src/testing/`, but the contract
 * suites, which are mocha suites). This test reads the sources and fails on anything else
 * (koa, kysely, pg, pino, node built-ins, ...).
 */

const srcDir = fileURLToPath(new URL('../src/', import.meta.url))
const testingDir = join(srcDir, 'testing')
const contractsDir = join(testingDir, 'contracts')

/** Removes comments, keeping string literals intact (a `//` inside a URL string is not a comment). */
const withoutComments = (source: string): string =>
  source.replace(
    /('(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`)|\/\*[\s\S]*?\*\/|\/\/[^\n]*/g,
    (match, literal: string | undefined) => literal ?? '',
  )

/**
 * `import … from '<s>'`, `export … from '<s>'` (single or multi-line), `import '<s>'`,
 * `import('<s>')` and `require('<s>')`.
 */
const SPECIFIER =
  /\b(?:import|export)\b[^'";]*?\bfrom\s*(['"])([^'"]+)\1|\bimport\s*(['"])([^'"]+)\3|\b(?:import|require)\s*\(\s*(['"])([^'"]+)\5\s*\)/g

/** The module specifiers a source text imports or re-exports. */
const specifiersOf = (source: string): string[] =>
  [...withoutComments(source).matchAll(SPECIFIER)].map((m) => (m[2] ?? m[4] ?? m[6])!)

const isAllowed = (specifier: string): boolean =>
  specifier.startsWith('./') || specifier.startsWith('../') || specifier.startsWith('fp-ts/') || specifier === 'io-ts'

/** Specifiers of `source` that core must not import. */
const forbiddenIn = (source: string): string[] => specifiersOf(source).filter((s) => !isAllowed(s))

/** The `.ts` files under `dir`, but none under `skipped`. */
const sourceFiles = (dir: string, skipped: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return path === skipped ? [] : sourceFiles(path, skipped)
    return entry.isFile() && entry.name.endsWith('.ts') ? [path] : []
  })

const relativeToSrc = (file: string): string => relative(srcDir, file).split(sep).join('/')

describe('core purity', () => {
  describe('the import detector', () => {
    it('flags a framework import and a node built-in', () => {
      expect(forbiddenIn("import Koa from 'koa'")).to.deep.equal(['koa'])
      expect(forbiddenIn("import { readFile } from 'node:fs'")).to.deep.equal(['node:fs'])
    })

    it('flags every import form: default, named, namespace, type-only, re-export, side effect, dynamic, require, multi-line', () => {
      const sample = [
        "import Koa from 'koa'",
        "import { readFile } from 'node:fs'",
        'import * as path from "node:path"',
        "import type { Logger } from 'pino'",
        "export { sql } from 'kysely'",
        "export * from 'pg'",
        "import 'reflect-metadata'",
        "const http = await import('node:http')",
        "const crypto = require('crypto')",
        'import {',
        '  a,',
        '  b,',
        "} from 'lodash'",
        "import { isoDate } from 'io-ts-types'",
        "import * as fp from 'fp-ts'",
      ].join('\n')
      expect(forbiddenIn(sample)).to.deep.equal([
        'koa',
        'node:fs',
        'node:path',
        'pino',
        'kysely',
        'pg',
        'reflect-metadata',
        'node:http',
        'crypto',
        'lodash',
        'io-ts-types',
        'fp-ts',
      ])
    })

    it('accepts relative paths, fp-ts/... and io-ts, and ignores comments and strings that merely mention a module', () => {
      const sample = [
        "import * as E from 'fp-ts/lib/Either.js'",
        "import { pipe } from 'fp-ts/lib/function.js'",
        "import * as t from 'io-ts'",
        "import { decode } from './domain/codecs.js'",
        "export * from '../ports/clock.js'",
        "// import Koa from 'koa'",
        "/* export { sql } from 'kysely' */",
        "const url = 'https://example.com/import'",
      ].join('\n')
      expect(specifiersOf(sample)).to.deep.equal([
        'fp-ts/lib/Either.js',
        'fp-ts/lib/function.js',
        'io-ts',
        './domain/codecs.js',
        '../ports/clock.js',
      ])
      expect(forbiddenIn(sample)).to.deep.equal([])
    })
  })

  describe('packages/core/src outside src/testing', () => {
    const files = sourceFiles(srcDir, testingDir)

    it('reads the domain, the lending rules, ports and use cases and skips src/testing', () => {
      const names = files.map(relativeToSrc)
      expect(names).to.include.members(['index.ts', 'domain/foundations/codecs.ts', 'lending/loan-servicing.ts', 'ports/clock.ts', 'use-cases/api-keys/mint-api-key.ts'])
      expect(names.filter((name) => name.startsWith('testing/'))).to.deep.equal([])
    })

    it('imports nothing but its own files, fp-ts/... and io-ts', () => {
      const offending = files.flatMap((file) =>
        forbiddenIn(readFileSync(file, 'utf8')).map((specifier) => `${relativeToSrc(file)} imports ${specifier}`),
      )
      expect(offending).to.deep.equal([])
    })
  })

  // The in-memory adapters run inside an embedding service's tests (and its in-memory runs):
  // they are held to the same rule. The contract suites are mocha suites and import chai.
  describe('packages/core/src/testing outside its contract suites', () => {
    const files = sourceFiles(testingDir, contractsDir)

    it('reads the in-memory adapters and skips the contract suites', () => {
      const names = files.map(relativeToSrc)
      expect(names).to.include.members(['testing/index.ts', 'testing/in-memory-core-deps.ts', 'testing/fixed-clock.ts'])
      expect(names.filter((name) => name.startsWith('testing/contracts/'))).to.deep.equal([])
    })

    it('imports nothing but its own files, fp-ts/... and io-ts', () => {
      const offending = files.flatMap((file) =>
        forbiddenIn(readFileSync(file, 'utf8')).map((specifier) => `${relativeToSrc(file)} imports ${specifier}`),
      )
      expect(offending).to.deep.equal([])
    })
  })
})
