import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import * as E from 'fp-ts/lib/Either.js'
import { loadConfig, type RateLimitSettings } from '../config.js'
import { RATE_POLICY } from '../http/rate-policies.js'
import { EVENT_TYPE_ROWS } from './components.js'
import { partnerErrorCatalogue } from './errors.js'
import { magicValuesTable, sandboxBankTable } from './testing-guide.js'

/**
 * The partner guides (issue 58, decision 134): Markdown files in `docs/partners/` at the
 * repository's root, the one copy a maintainer edits, read at start into the partner document's
 * `info.description` (rendered by /docs and by Redocly) and read on GitHub as they are. What the
 * code knows better than prose (the error catalogue, the event types, the retry schedule, the rate
 * limits, the magic values) sits between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->`
 * markers: the files hold it as of the defaults (`pnpm docs:partners` refreshes them, and a test
 * fails when they are stale), and the served document makes it again from this server's settings.
 */

/** The guides' folder: this module is at `apps/api/{src,dist}/openapi/`. */
export const GUIDES_DIR = fileURLToPath(new URL('../../../../docs/partners/', import.meta.url))

/** The guides in reading order, by file name (without `.md`); the changelog last. */
export const GUIDES = ['getting-started', 'authentication', 'idempotency', 'pagination', 'errors', 'webhooks', 'rate-limits', 'testing', 'versioning', 'CHANGELOG'] as const

/** What a generated block is made from: the server's rate limits and webhook retry schedule. */
export type GuideSettings = {
  readonly rateLimits: RateLimitSettings
  readonly webhookRetrySchedule: readonly number[]
}

const row = (cells: readonly (string | number)[]): string => `| ${cells.join(' | ')} |`
const table = (header: readonly string[], rows: readonly (readonly (string | number)[])[]): string =>
  [row(header), row(header.map(() => '---')), ...rows.map(row)].join('\n')

/** `seconds` as people say it: 0 s, 5 s, 5 min, 2 h 35 min 5 s. */
const duration = (seconds: number): string => {
  const parts = [
    [Math.floor(seconds / 3600), 'h'],
    [Math.floor((seconds % 3600) / 60), 'min'],
    [seconds % 60, 's'],
  ] as const
  const said = parts.filter(([amount]) => amount > 0).map(([amount, unit]) => `${amount} ${unit}`)
  return said.length === 0 ? '0 s' : said.join(' ')
}

const webhookRetries = (schedule: readonly number[]): string =>
  `${table(
    ['Attempt', 'Sent after the previous one', 'Sent after the first'],
    schedule.map((delay, index) => [index + 1, index === 0 ? 'at once' : duration(delay), duration(schedule.slice(0, index + 1).reduce((sum, d) => sum + d, 0))]),
  )}\n\nEach delay has up to 10% jitter added. After the last attempt fails the delivery is \`failed\`.`

const rateLimitPolicies = (limits: RateLimitSettings): string =>
  `${table(
    ['Policy', 'Counts', 'Limit per window'],
    [
      [`\`${RATE_POLICY.default}\``, 'every request of one API key', limits.requests],
      [`\`${RATE_POLICY.verification}\``, 'requests that send or check a verification code, per API key, on top of `default`', limits.verificationRequests],
      [`\`${RATE_POLICY.webhookRetry}\``, 'resends, recoveries and manual retries, per event or endpoint, on top of `default`', limits.webhookRetries],
      [`\`${RATE_POLICY.mint}\``, 'failed mint attempts (a wrong or missing mint secret), per client address; a right one never counts', limits.mintRequests],
      [`\`${RATE_POLICY.keyLookups}\``, 'lookups of keys the server has not seen recently, per client address', limits.keyLookups],
      [`\`${RATE_POLICY.keyless}\``, 'requests without a credential, per client address', limits.keylessRequests],
    ],
  )}\n\nEvery window is ${limits.windowSeconds} seconds long.`

/** The generated blocks, by name. */
const generatedBlocks = (settings: GuideSettings): Readonly<Record<string, () => string>> => ({
  'error-catalogue': partnerErrorCatalogue,
  'event-types': () => table(['Type', 'Sent when'], EVENT_TYPE_ROWS.map(({ type, when }) => [`\`${type}\``, when])),
  'webhook-retries': () => webhookRetries(settings.webhookRetrySchedule),
  'rate-limit-policies': () => rateLimitPolicies(settings.rateLimits),
  'magic-values': () => magicValuesTable().trimEnd(),
  'sandbox-bank': () => sandboxBankTable().trimEnd(),
})

const BLOCK = /<!-- generated:([a-z-]+) -->[\s\S]*?<!-- \/generated:\1 -->/g

/** `markdown` with the content of each generated block made again from `settings`. */
export const withGeneratedBlocks = (markdown: string, settings: GuideSettings): string => {
  const blocks = generatedBlocks(settings)
  return markdown.replace(BLOCK, (_block, name: string) => {
    const make = blocks[name]
    if (make === undefined) throw new Error(`a partner guide has a generated block nobody makes: ${name}`)
    return `<!-- generated:${name} -->\n\n${make()}\n\n<!-- /generated:${name} -->`
  })
}

/** The text of guide `name` as its file holds it. */
export const guideFile = (name: (typeof GUIDES)[number]): string => readFileSync(`${GUIDES_DIR}${name}.md`, 'utf8')

/** What each guide file should hold: its generated blocks made from the default settings. */
export const refreshedGuideFiles = (): readonly { readonly name: (typeof GUIDES)[number]; readonly path: string; readonly now: string; readonly refreshed: string }[] => {
  const defaults = loadConfig({})
  if (E.isLeft(defaults)) throw new Error(defaults.left.join('; '))
  const settings = { rateLimits: defaults.right.rateLimits, webhookRetrySchedule: defaults.right.webhookRetrySchedule }
  return GUIDES.map((name) => {
    const now = guideFile(name)
    return { name, path: `${GUIDES_DIR}${name}.md`, now, refreshed: withGeneratedBlocks(now, settings) }
  })
}

/** Every guide, its generated blocks made from `settings`, in reading order. */
export const partnerGuides = (settings: GuideSettings): readonly string[] => GUIDES.map((name) => withGeneratedBlocks(guideFile(name), settings).trim())

/** The newest version the changelog lists (`## 1.9.0 — 2026-11-29`): the partner document's `info.version`. */
export const partnerApiVersion = (): string => {
  const newest = /^## (\d+\.\d+\.\d+) /m.exec(guideFile('CHANGELOG'))
  if (newest === null) throw new Error('the partner changelog lists no version (a "## 1.2.3 — YYYY-MM-DD" heading)')
  return newest[1]!
}
