import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'chai'
import { startInMemoryServer, type TestServer } from './support/test-server.js'

/**
 * How the API serves the console's build (docs/console.md): the page with a policy and a nonce of
 * its own in each answer, the build's files kept for a year, `/console` sent to `/console/`, and
 * without a build a 404 that says how to make one. The real build, in a real browser, is
 * apps/api/browser-test/console.test.ts.
 */

const PAGE = '<!doctype html><meta property="csp-nonce" nonce="LENDGATE_CSP_NONCE"><script type="module" src="./assets/app-1a2b.js" nonce="LENDGATE_CSP_NONCE"></script>'

describe('the console page', () => {
  const build = mkdtempSync(join(tmpdir(), 'lendgate-console-build-'))
  mkdirSync(join(build, 'assets'))
  writeFileSync(join(build, 'index.html'), PAGE)
  writeFileSync(join(build, 'assets', 'app-1a2b.js'), 'export {}\n')
  let built: TestServer
  let unbuilt: TestServer
  before(async () => {
    built = await startInMemoryServer(undefined, {}, { consoleDir: build })
    unbuilt = await startInMemoryServer(undefined, {}, { consoleDir: join(build, 'none') })
  })
  after(async () => {
    await built?.stop()
    await unbuilt?.stop()
    rmSync(build, { recursive: true, force: true })
  })

  it('answers the page with a nonce of its own in its policy and in its tags, never the placeholder, and never cached', async () => {
    const answers = await Promise.all([fetch(`${built.url}/console/`), fetch(`${built.url}/console/`)])
    const nonces = await Promise.all(
      answers.map(async (answer) => {
        expect(answer.status).to.equal(200)
        expect(answer.headers.get('content-type')).to.equal('text/html; charset=utf-8')
        expect(answer.headers.get('cache-control')).to.equal('no-store')
        const nonce = /style-src 'self' 'nonce-([A-Za-z0-9+/]{22}==)'/.exec(answer.headers.get('content-security-policy') ?? '')?.[1]
        expect(await answer.text()).to.equal(PAGE.replaceAll('LENDGATE_CSP_NONCE', nonce ?? 'missing'))
        return nonce
      }),
    )
    expect(nonces[0]).to.not.equal(nonces[1])
  })

  it("serves the build's files, sends /console to /console/, and answers 404 for anything else under it", async () => {
    const asset = await fetch(`${built.url}/console/assets/app-1a2b.js`)
    expect([asset.status, asset.headers.get('cache-control'), await asset.text()]).to.deep.equal([200, 'public, max-age=31536000, immutable', 'export {}\n'])
    const redirect = await fetch(`${built.url}/console`, { redirect: 'manual' })
    expect([redirect.status, redirect.headers.get('location')]).to.deep.equal([302, 'console/'])
    for (const path of ['/console/assets/other.js', '/console/../package.json', '/console/%2e%2e/%2e%2e/package.json']) {
      const missing = await fetch(`${built.url}${path}`)
      expect(missing.status, path).to.equal(404)
    }
    expect((await fetch(`${built.url}/console/`, { method: 'POST' })).status).to.equal(404)
  })

  it('says how to build the console where there is no build', async () => {
    const answer = await fetch(`${unbuilt.url}/console/`)
    expect(answer.status).to.equal(404)
    expect(await answer.json()).to.deep.equal({ error: 'not_found', detail: 'The console is not built here: run `npx -y pnpm@10.34.8 console:build`, then start the API again.' })
  })
})
