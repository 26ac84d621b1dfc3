import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { freePort } from '@lendgate/adapters/testing'
import { expect } from 'chai'
import { MINT_SECRET } from '../test/support/test-server.js'
import { nameOf, operationsOf, requestFor } from './support/document-requests.js'
import { startExchangeRecorder } from './support/exchange-recorder.js'
import { summary, totals, type Finding } from './support/findings.js'
import { GUIDES, guideFile } from '../src/openapi/guides.js'
import { redoclyBuildDocs, redoclyLint, spectralLint } from './support/linters.js'
import { checkMockAnswer, proxyFindings } from './support/prism-checks.js'
import { runQuickstart } from './support/quickstart.js'
import { responseBodyChecker } from './support/response-schemas.js'
import { fetchServedDocuments, startServedApi, type ServedApi, type ServedDocument } from './support/served-api.js'
import { prismViolationLines, startPrism } from './support/tools.js'

/**
 * Third-party OpenAPI tools on the documents the API serves (`pnpm test:openapi-tools`, issue 39):
 * Spectral (every rule of `spectral:oas`) and Redocly (`recommended-strict`), with no finding, lint
 * the partner document (`GET /public/openapi.json`) and the operator document
 * (`GET /internal/openapi.json`, internal token); Prism mocks the partner document and must answer
 * every operation, asked with a request built from the document's own examples, with a 2xx whose
 * body matches the success schema, and its dynamic mock 20 times each with bodies drawn from the
 * schemas; Redocly's build-docs renders every partner guide; and the partner quick-start runs
 * through Prism's validating proxy (`--errors`) in front of the API with no violation. The tools are the root
 * devDependencies' bins; `.spectral.yaml` and `redocly.yaml` at the root are their rulesets.
 */

/** A line under the test's title in mocha's output: what this run measured. */
const note = (text: string): void => console.log(`      ${text}`)

const QUICKSTART_MS = 120_000

/** Fails with the readable summary of `findings` (and `more`), not a diff of two counts, when there is any. */
const expectNone = (findings: readonly Finding[], title: string, more = ''): void => {
  if (findings.length > 0) expect.fail(`${summary(title, findings)}${more}`)
}

/** How many answers Prism's dynamic mock gives each operation: random bodies, so enough to meet each branch. */
const DYNAMIC_MOCK_RUNS = 20

describe('third-party OpenAPI tools on the served documents', function () {
  let dir: string
  let receiverPort: number
  let api: ServedApi | undefined
  let documents: { readonly partner: ServedDocument; readonly operator: ServedDocument }

  before(async function () {
    this.timeout(120_000)
    dir = mkdtempSync(join(tmpdir(), 'lendgate-openapi-tools-'))
    receiverPort = await freePort()
    const started = Date.now()
    api = await startServedApi()
    documents = await fetchServedDocuments(api.url, dir)
    note(`API started from source at ${api.url} on ${api.database} in ${Date.now() - started} ms`)
  })

  after(async function () {
    this.timeout(30_000)
    await api?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  /** The document, or a failure naming why the server does not serve it. */
  const served = (which: 'partner' | 'operator'): Extract<ServedDocument, { served: true }> => {
    const document = documents[which]
    if (!document.served) expect.fail(`the ${which} document is not served: ${document.problem}`)
    return document
  }

  for (const [which, route] of [
    ['partner', '/public/openapi.json'],
    ['operator', '/internal/openapi.json'],
  ] as const) {
    describe(`the ${which} document (GET ${route})`, function () {
      this.timeout(60_000)

      it('has no finding of any severity by Spectral (every rule of spectral:oas, --fail-severity=hint)', async () => {
        const report = await spectralLint(served(which).file)
        note(`Spectral: ${totals(report.findings)} in ${report.ms} ms`)
        expectNone(report.findings, `Spectral on GET ${route}`)
        expect(report.exitCode, 'spectral exit status').to.equal(0)
      })

      it('has no finding of any severity by Redocly (recommended-strict)', async () => {
        const report = await redoclyLint(served(which).file)
        note(`Redocly: ${totals(report.findings)} in ${report.ms} ms`)
        expectNone(report.findings, `Redocly on GET ${route}`)
        expect(report.exitCode, 'redocly exit status').to.equal(0)
      })
    })
  }

  it("renders every partner guide as a section of the reference Redocly builds (build-docs)", async () => {
    const { file } = served('partner')
    const page = join(dirname(file), 'reference.html')
    const built = await redoclyBuildDocs(file, page)
    const html = readFileSync(page, 'utf8')
    const titles = GUIDES.map((name) => /^# (.+)$/m.exec(guideFile(name))![1]!)
    note(`Redocly build-docs: ${Math.round(html.length / 1024)} KiB in ${built.ms} ms`)
    expect(titles.filter((title) => !html.includes(title)), 'guide titles missing from the page').to.deep.equal([])
    expect(titles).to.have.length(GUIDES.length)
  })

  describe('Prism on the partner document', function () {
    /**
     * Every operation of the partner document asked `runs` times of a Prism mock started with
     * `flags`, each answer checked against its success schema: the findings, and the operations
     * that could be asked (a request built from the document alone).
     */
    const askMock = async (flags: readonly string[], runs: number) => {
      const { file, document } = served('partner')
      const operations = operationsOf(document)
      const started = Date.now()
      const mock = await startPrism(['mock', file, ...flags, '-h', '127.0.0.1', '-p', String(await freePort())])
      const findings: Finding[] = []
      const exercised: string[] = []
      try {
        const checkBody = responseBodyChecker(document)
        for (const op of operations) {
          const built = requestFor(document, op)
          findings.push(...built.findings)
          if (built.request === undefined) continue
          exercised.push(nameOf(op))
          for (let run = 1; run <= runs; run += 1) {
            const answer = await checkMockAnswer(mock.url, op, built.request, checkBody)
            findings.push(...(runs === 1 ? answer : answer.map((f) => ({ ...f, where: `${f.where} (run ${run})` }))))
          }
        }
      } finally {
        await mock.stop()
      }
      return { operations: operations.length, exercised: exercised.length, findings, ms: Date.now() - started }
    }

    it("gets a 2xx matching the success schema from Prism's mock for every partner operation, asked with the document's own examples", async function () {
      this.timeout(120_000)
      const mock = await askMock([], 1)
      expect(mock.operations, 'operations in the partner document').to.be.greaterThan(0)
      note(`Prism mock: ${mock.exercised} of ${mock.operations} operations asked; ${totals(mock.findings)}; ${mock.ms} ms`)
      expectNone(mock.findings, "Prism's mock on the partner document", `\n${mock.exercised} of ${mock.operations} operations could be asked`)
      expect(mock.exercised, 'operations asked, out of the operations of the document').to.equal(mock.operations)
    })

    it("gets a body valid against the success schema from Prism's dynamic mock (-d) for every partner operation, 20 times each", async function () {
      this.timeout(300_000)
      // Dynamic: each answer is generated from the schema (random values and branches), not taken from an example.
      const mock = await askMock(['-d'], DYNAMIC_MOCK_RUNS)
      note(`Prism dynamic mock: ${mock.exercised * DYNAMIC_MOCK_RUNS} answers of ${mock.operations} operations; ${totals(mock.findings)}; ${mock.ms} ms`)
      expectNone(mock.findings, "Prism's dynamic mock on the partner document")
      expect(mock.exercised, 'operations asked, out of the operations of the document').to.equal(mock.operations)
    })

    it("runs the whole partner quick-start through Prism's validating proxy (--errors) with no violation", async function () {
      this.timeout(QUICKSTART_MS + 60_000)
      const { file, document } = served('partner')
      // Prism matches request paths against the document's paths literally (relative to the
      // server): it proxies to the partner API's version 1 root, and the quick-start's base URL is
      // the proxy's root.
      const proxy = await startPrism(['proxy', file, `${api!.url}/public/v1`, '--errors', '-h', '127.0.0.1', '-p', String(await freePort())])
      const recorder = await startExchangeRecorder(proxy.url)
      let run: Awaited<ReturnType<typeof runQuickstart>>
      try {
        run = await runQuickstart(
          {
            LENDGATE_BASE_URL: recorder.url,
            PARTNER_MINT_SECRET: MINT_SECRET,
            RECEIVER_PORT: String(receiverPort),
          },
          QUICKSTART_MS,
        )
      } finally {
        await recorder.close()
        await proxy.stop()
      }
      const { exchanges } = recorder
      const statuses = exchanges.reduce<Record<string, number>>((n, e) => ({ ...n, [e.status]: (n[e.status] ?? 0) + 1 }), {})
      note(`Prism proxy: ${exchanges.length} exchanges went through it (by status ${JSON.stringify(statuses)}); the quick-start ran ${run.ms} ms`)

      const findings = proxyFindings(exchanges)
      const logged = prismViolationLines(proxy.log())
      const quickstartTail = run.output.trimEnd().split('\n').slice(-12).join('\n')
      expectNone(findings, "Prism's validating proxy, partner quick-start", `\nThe quick-start's last lines:\n${quickstartTail}`)
      expect(logged, "violations in Prism's log").to.deep.equal([])
      expect(run.code, `the quick-start's exit status; its last lines:\n${quickstartTail}`).to.equal(0)
      // The journey's steps each went through the proxy, and each was answered 2xx.
      const seen = exchanges.map((e) => `${e.method} ${e.path}`)
      for (const step of [
        /^POST \/partner\/api-keys$/,
        /^POST \/onboarding-sessions$/,
        /^POST \/onboarding-sessions\/[^/]+\/contact\/phone\/verify$/,
        /^PUT \/onboarding-sessions\/[^/]+\/webhook$/,
        /^POST \/onboarding-sessions\/[^/]+\/submit$/,
        /^POST \/test-helpers\/onboarding-sessions\/[^/]+\/approve$/,
        /^POST \/applications$/,
        /^POST \/test-helpers\/applications\/[^/]+\/approve$/,
        /^POST \/test-helpers\/clocks\/[^/]+\/advance$/,
        /^GET \/test-helpers\/clocks\/[^/]+$/,
        /^POST \/parties\/[^/]+\/loans\/[^/]+\/payments$/,
        /^GET \/parties\/[^/]+\/loans\/[^/]+\/balances\/latest$/,
      ]) {
        expect(seen.some((exchange) => step.test(exchange)), `an exchange matching ${step}`).to.equal(true)
      }
      expect(exchanges.filter((e) => e.status >= 300).map((e) => `${e.method} ${e.path} ${e.status}`), 'answers other than 2xx').to.deep.equal([])
      // Every exchange is an operation of the partner document (its method on one of its paths, relative to the server).
      const documented = Object.entries((document['paths'] ?? {}) as Record<string, Record<string, unknown>>).flatMap(([template, item]) =>
        Object.keys(item)
          .filter((method) => ['get', 'put', 'post', 'delete', 'patch'].includes(method))
          .map((method) => new RegExp(`^${method.toUpperCase()} ${template.replace(/\{[^}]+\}/g, '[^/]+')}$`)),
      )
      expect(
        exchanges.map((e) => `${e.method} ${e.path.split('?')[0]}`).filter((exchange) => !documented.some((operation) => operation.test(exchange))),
        'exchanges that are no operation of the partner document',
      ).to.deep.equal([])
    })
  })
})
