import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'chai'
import { DEV_SECRETS_FILE, withDevelopmentSecrets } from '../src/development-secrets.js'
import { testConfig } from './support/test-server.js'

/** `withDevelopmentSecrets`: generated once into DATA_DIR, whole or not at all, and read back by every later process. */
describe('development secrets', () => {
  let dataDir: string
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'lendgate-dev-secrets-'))
  })
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }))

  const missing = () => testConfig({ dataDir, partnerMintSecret: undefined, internalApiToken: undefined, webhookSecretKey: undefined })

  it('generates the secrets once, owner-only, leaving nothing else behind, and gives them to the next process', () => {
    const first = withDevelopmentSecrets(missing())
    expect(first.generated).to.not.equal(undefined)
    expect(readdirSync(dataDir)).to.deep.equal([DEV_SECRETS_FILE])
    expect(statSync(join(dataDir, DEV_SECRETS_FILE)).mode & 0o777).to.equal(0o600)
    const second = withDevelopmentSecrets(missing())
    expect(second.generated).to.equal(undefined)
    expect([second.config.partnerMintSecret, second.config.internalApiToken]).to.deep.equal([first.config.partnerMintSecret, first.config.internalApiToken])
    expect(Buffer.from(second.config.webhookSecretKey!).equals(Buffer.from(first.config.webhookSecretKey!))).to.equal(true)
  })

  it('takes the secrets of a process that wrote them first, rather than its own', () => {
    const theirs = { partner_mint_secret: 'mint_theirs-0123456789abcdef', internal_api_token: 'int_theirs-0123456789abcdef', webhook_secret_key: Buffer.alloc(32, 9).toString('base64') }
    writeFileSync(join(dataDir, DEV_SECRETS_FILE), JSON.stringify(theirs), { mode: 0o600 })
    const mine = withDevelopmentSecrets(missing())
    expect(mine.generated).to.equal(undefined)
    expect(mine.config.partnerMintSecret).to.equal(theirs.partner_mint_secret)
    expect(JSON.parse(readFileSync(join(dataDir, DEV_SECRETS_FILE), 'utf8'))).to.deep.equal(theirs)
  })
})
