import { randomBytes } from 'node:crypto'
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { randomSecret } from '@lendgate/adapters'
import type { Config } from './config.js'

type Stored = { partner_mint_secret: string; internal_api_token: string; webhook_secret_key: string }

export const DEV_SECRETS_FILE = 'dev-secrets.json'

/**
 * Removes the development secrets this process generated (`withDevelopmentSecrets` said so) when
 * its start failed: what a failed start leaves must not be read by a later one started elsewhere,
 * nor by a walkthrough that would then mint with secrets no server holds.
 */
export const discardGeneratedSecrets = (dataDir: string): void => rmSync(join(dataDir, DEV_SECRETS_FILE), { force: true })

/**
 * Outside production, fills a missing mint secret, internal token or sealing key from
 * `DATA_DIR/dev-secrets.json` (mode 0600), generating the file on first start, so a newcomer
 * can mint a key at once. Returns the completed config and whether the file was just created
 * (the caller then shows the two tokens once, on the terminal, not in the log). In production
 * nothing is generated: what is missing stays missing and its routes answer
 * `server_misconfigured`.
 */
export const withDevelopmentSecrets = (config: Config): { readonly config: Config; readonly generated: Stored | undefined } => {
  if (config.production) return { config, generated: undefined }
  if (config.partnerMintSecret !== undefined && config.internalApiToken !== undefined && config.webhookSecretKey !== undefined) {
    return { config, generated: undefined }
  }
  const file = join(config.dataDir, DEV_SECRETS_FILE)
  let stored: Stored
  let generated: Stored | undefined
  if (existsSync(file)) {
    stored = JSON.parse(readFileSync(file, 'utf8')) as Stored
  } else {
    stored = {
      partner_mint_secret: `mint_${randomSecret(32)}`,
      internal_api_token: `int_${randomSecret(32)}`,
      webhook_secret_key: randomBytes(32).toString('base64'),
    }
    mkdirSync(config.dataDir, { recursive: true, mode: 0o700 })
    // Written aside, then linked into place: a process starting at the same time (a worker beside
    // the API) sees the whole file or none, and the first to link wins; the other reads its secrets.
    const aside = `${file}.${process.pid}`
    writeFileSync(aside, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 })
    try {
      linkSync(aside, file)
      generated = stored
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      stored = JSON.parse(readFileSync(file, 'utf8')) as Stored
    } finally {
      unlinkSync(aside)
    }
  }
  return {
    config: {
      ...config,
      partnerMintSecret: config.partnerMintSecret ?? stored.partner_mint_secret,
      internalApiToken: config.internalApiToken ?? stored.internal_api_token,
      webhookSecretKey: config.webhookSecretKey ?? new Uint8Array(Buffer.from(stored.webhook_secret_key, 'base64')),
    },
    generated,
  }
}
