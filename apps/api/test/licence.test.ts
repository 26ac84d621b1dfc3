import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect } from 'chai'
import { bearer, request } from './support/client.js'
import { INTERNAL_TOKEN, startInMemoryServer, type TestServer } from './support/test-server.js'

/**
 * The licence (issue 52): Lendgate is licensed under Apache-2.0, and says so wherever a reader or
 * a tool looks: LICENSE and NOTICE at the repository's root, the `license` of every workspace
 * package, and the `info.license` of both OpenAPI documents.
 */

const REPO = fileURLToPath(new URL('../../..', import.meta.url))
const read = (path: string): string => readFileSync(join(REPO, path), 'utf8')

/** SHA-256 of https://www.apache.org/licenses/LICENSE-2.0.txt, the licence's text as the ASF publishes it. */
const APACHE_2_0_SHA256 = 'cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30'

/**
 * The package.json of each workspace package, as pnpm finds them: the root's, then each folder
 * `pnpm-workspace.yaml` lists (`dir/*`: every folder of `dir` that holds a package.json).
 */
const workspaceManifests = (): string[] => {
  const listed = /^packages:\n((?: +- .+\n)+)/m.exec(read('pnpm-workspace.yaml'))?.[1] ?? ''
  const patterns = [...listed.matchAll(/- +['"]?([^'"\n]+)['"]?/g)].map((m) => m[1]!.trim())
  const folders = patterns.flatMap((pattern) =>
    pattern.endsWith('/*')
      ? readdirSync(join(REPO, pattern.slice(0, -2)), { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => `${pattern.slice(0, -2)}/${entry.name}`)
      : [pattern],
  )
  return ['package.json', ...folders.map((folder) => `${folder}/package.json`).filter((path) => existsSync(join(REPO, path)))]
}

describe('the licence', () => {
  it('is the Apache License 2.0 in LICENSE, word for word as the ASF publishes it', () => {
    const text = read('LICENSE')
    expect(text.trim().split('\n').slice(0, 2).map((line) => line.trim())).to.deep.equal(['Apache License', 'Version 2.0, January 2004'])
    expect(createHash('sha256').update(text).digest('hex')).to.equal(APACHE_2_0_SHA256)
  })

  it('names the project and its copyright in NOTICE', () => {
    expect(read('NOTICE').split('\n').slice(0, 2)).to.deep.equal(['Lendgate', 'Copyright 2026 The Lendgate authors'])
  })

  it('is the license of every package of the workspace, the root included', () => {
    const manifests = workspaceManifests()
    expect(manifests).to.include.members(['package.json', 'packages/core/package.json', 'apps/api/package.json', 'bench/package.json'])
    const licenses = Object.fromEntries(manifests.map((path) => [path, (JSON.parse(read(path)) as { license?: unknown }).license]))
    expect(licenses).to.deep.equal(Object.fromEntries(manifests.map((path) => [path, 'Apache-2.0'])))
  })

  describe('in the OpenAPI documents', () => {
    let server: TestServer
    before(async () => {
      server = await startInMemoryServer()
    })
    after(async () => server.stop())

    it('is the info.license of the partner and the operator documents, by its name and its text\'s URL (Spectral\'s license-url; 3.1 takes an identifier or a URL, not both)', async () => {
      const partner = await request(server.url, '/public/openapi.json')
      const operator = await request(server.url, '/internal/openapi.json', { headers: bearer(INTERNAL_TOKEN) })
      expect([partner.status, operator.status]).to.deep.equal([200, 200])
      const licenseOf = (document: unknown): unknown => (document as { info: { license: unknown } }).info.license
      expect([licenseOf(partner.body), licenseOf(operator.body)]).to.deep.equal([
        { name: 'Apache 2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
        { name: 'Apache 2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
      ])
    })
  })
})
