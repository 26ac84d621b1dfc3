import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { expect } from 'chai'
import { GENERATE_COMMAND, partnerApiSource } from '../scripts/partner-api-source.js'

/**
 * The committed types of the partner document (src/generated/partner-api.ts, what partners read
 * in the package) are what the document the server builds generates today: a change to the
 * document without regenerating them fails here, naming the command to run.
 */
describe('@lendgate/client: the generated types of the partner document', function () {
  this.timeout(60_000)

  it('are up to date with the document (else run the client:generate command)', async () => {
    const committed = readFileSync(fileURLToPath(new URL('../src/generated/partner-api.ts', import.meta.url)), 'utf8')
    const fresh = await partnerApiSource()
    if (committed === fresh) return
    const committedLines = committed.split('\n')
    const freshLines = fresh.split('\n')
    const first = freshLines.findIndex((line, i) => line !== committedLines[i])
    expect.fail(
      `packages/client/src/generated/partner-api.ts is stale: the partner document generates other types ` +
        `(first difference at line ${first + 1}: committed ${JSON.stringify(committedLines[first])}, generated ${JSON.stringify(freshLines[first])}). ` +
        `Run \`${GENERATE_COMMAND}\` at the repository root and commit the result.`,
    )
  })
})
