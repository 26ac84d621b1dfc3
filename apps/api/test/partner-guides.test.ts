import { expect } from 'chai'
import { documentedSettings } from '../src/config.js'
import { GUIDES, refreshedGuideFiles } from '../src/openapi/guides.js'
import { request } from './support/client.js'
import { startInMemoryServer, type TestServer } from './support/test-server.js'

/**
 * The partner guides (issue 58, decision 134): `docs/partners/*.md`, served in the partner
 * document's `info.description`, their generated blocks current, and no partner text that speaks
 * to operators: no setting a server reads from its environment, no path into this repository.
 */

/** Every setting name the server reads, longest first (so `DATABASE_URL` is not found inside `DATABASE_READ_URL`). */
const SETTING_NAMES = documentedSettings()
  .map((setting) => setting.name)
  .sort((a, b) => b.length - a.length)

/** A path into the repository: a folder of its root and a file, or a Markdown or TypeScript file name. */
const REPOSITORY_PATH = /\b(?:apps|packages|docs|examples|bench|tools|deploy)\/[\w./-]*\.(?:md|ts|js|json|sh)\b|\b[\w-]+\.(?:md|ts)\b/g

/** Every operator setting and repository path in `text`, each with a little of what surrounds it. */
const operatorTextIn = (text: string): readonly string[] => {
  const around = (index: number, length: number): string => text.slice(Math.max(0, index - 60), index + length + 60).replace(/\s+/g, ' ')
  const settings = SETTING_NAMES.flatMap((name) => [...text.matchAll(new RegExp(`\\b${name}\\b`, 'g'))].map((m) => `${name}: …${around(m.index, name.length)}…`))
  const paths = [...text.matchAll(REPOSITORY_PATH)].map((m) => `${m[0]}: …${around(m.index, m[0].length)}…`)
  return [...settings, ...paths]
}

describe('the partner guides (issue 58)', () => {
  let server: TestServer
  let served: { info: { description: string; version: string } }
  let servedText: string
  before(async () => {
    server = await startInMemoryServer()
    const reply = await request(server.url, '/public/v1/openapi.json')
    servedText = reply.text
    served = reply.body as typeof served
  })
  after(() => server?.stop())

  it('are current: every generated block is what the code makes (run `npx -y pnpm@10.34.8 docs:partners`)', () => {
    for (const guide of refreshedGuideFiles()) expect(guide.now, `${guide.path} is stale: run npx -y pnpm@10.34.8 docs:partners`).to.equal(guide.refreshed)
  })

  it('each open with one title, and every one is in the served reference, in order', () => {
    const guides = refreshedGuideFiles()
    expect(guides.map((guide) => guide.name)).to.deep.equal([...GUIDES])
    let from = 0
    for (const guide of guides) {
      expect(guide.now.match(/^# .+$/gm), guide.name).to.have.length(1)
      const title = /^# .+$/m.exec(guide.now)![0]
      const at = served.info.description.indexOf(title, from)
      expect(at, `${title} in info.description after the guide before it`).to.be.greaterThan(from - 1)
      from = at + title.length
    }
    // The generated blocks are in too: the error catalogue's rows, for one.
    expect(served.info.description).to.include('| `idempotency_key_reused` |')
  })

  it("give the document's version: the changelog's newest entry", () => {
    const changelog = refreshedGuideFiles().find((guide) => guide.name === 'CHANGELOG')!.now
    const newest = /^## (\d+\.\d+\.\d+) — (\d{4}-\d{2}-\d{2})$/m.exec(changelog)
    expect(newest, 'a "## 1.2.3 — YYYY-MM-DD" entry').to.not.equal(null)
    expect(served.info.version).to.equal(newest![1])
  })

  it('and the whole partner document name no operator setting and no repository path', () => {
    expect(operatorTextIn(servedText)).to.deep.equal([])
    for (const guide of refreshedGuideFiles()) expect(operatorTextIn(guide.now), guide.path).to.deep.equal([])
  })

  it("call only the document's operations in their examples: every `curl` to `$base/…` is a method and path of it", () => {
    const paths = (served as unknown as { paths: Record<string, Record<string, unknown>> }).paths
    /** `/parties/{partyId}/loans` → a pattern any value of each parameter matches. */
    const routes = Object.entries(paths).flatMap(([template, item]) =>
      Object.keys(item).map((method) => ({ method: method.toUpperCase(), pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`) })),
    )
    const calls = refreshedGuideFiles().flatMap((guide) =>
      [...guide.now.matchAll(/curl ([^\n"]*)"\$base(\/[^"?\s]*)/g)].map((m) => ({ guide: guide.name, method: /-X (\w+)/.exec(m[1]!)?.[1] ?? 'GET', path: m[2]! })),
    )
    expect(calls.length, 'curl examples in the guides').to.be.greaterThan(15)
    const unknown = calls.filter((call) => !routes.some((route) => route.method === call.method && route.pattern.test(call.path)))
    expect(unknown.map((call) => `${call.guide}: ${call.method} ${call.path}`)).to.deep.equal([])
  })

  it('the scan finds what it looks for (it is not vacuous)', () => {
    expect(operatorTextIn('set VERIFICATION_DELIVERY_URL first; see docs/servicing.md "Interest"')).to.have.length(2)
    expect(operatorTextIn('a storage_ref such as docs/acme/agreement.pdf, and PUBLIC_BASE_URLS')).to.deep.equal([])
  })
})
