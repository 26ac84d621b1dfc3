import { spawnSync } from 'node:child_process'
import { bearer } from './api-client.js'

const PROMTOOL = process.env['PROMTOOL_PATH'] ?? '/usr/bin/promtool'

/** One sample of the Prometheus text format: a metric name, its labels and its value. */
export type Sample = { readonly name: string; readonly labels: Readonly<Record<string, string>>; readonly value: number }

export type Scrape = { readonly status: number; readonly contentType: string; readonly text: string }

/** `GET /metrics` of a process of the fleet, with the internal token. */
export const scrape = async (url: string, internalToken: string): Promise<Scrape> => {
  const reply = await fetch(`${url}/metrics`, { headers: bearer(internalToken), signal: AbortSignal.timeout(10_000) })
  return { status: reply.status, contentType: reply.headers.get('content-type') ?? '', text: await reply.text() }
}

/** `promtool check metrics` on an exposition: its exit status and everything it printed (lint problems). */
export const promtoolCheck = (text: string): { readonly status: number | null; readonly output: string } => {
  const run = spawnSync(PROMTOOL, ['check', 'metrics'], { input: text, encoding: 'utf8' })
  if (run.error !== undefined) throw run.error
  return { status: run.status, output: `${run.stdout}${run.stderr}`.trim() }
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

/** Every sample of the exposition (comments skipped). */
export const samples = (text: string): Sample[] =>
  text.split('\n').flatMap((line) => {
    const match = SAMPLE.exec(line.trim())
    if (match === null || line.startsWith('#')) return []
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(LABEL)].map((m) => [m[1], m[2]]))
    return [{ name: match[1] as string, labels, value: Number(match[3]) }]
  })

/** The samples of metric `name` whose labels include every pair of `where`. */
export const samplesOf = (text: string, name: string, where: Readonly<Record<string, string>> = {}): Sample[] =>
  samples(text).filter((s) => s.name === name && Object.entries(where).every(([k, v]) => s.labels[k] === v))

/** The sum of the samples of `name` whose labels include every pair of `where` (0 when there are none). */
export const total = (text: string, name: string, where: Readonly<Record<string, string>> = {}): number =>
  samplesOf(text, name, where).reduce((sum, s) => sum + s.value, 0)

/** The type the exposition declares for a metric family (`# TYPE name counter`), if any. */
export const declaredType = (text: string, name: string): string | undefined =>
  new RegExp(`^# TYPE ${name} (\\w+)$`, 'm').exec(text)?.[1]
