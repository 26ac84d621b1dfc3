import { readFileSync, writeFileSync } from 'node:fs'
import type { Measured } from './load.js'
import type { WebhookBurst, WebhookIdle } from './webhook-case.js'

export type Row = { readonly name: string; readonly measured: Measured; readonly baseline?: string }

/** `reference`: what the reference server (a bare Koa route with only the API's duties) measured on the same scale. */
export type Target = { readonly target: string; readonly measured: string; readonly reference?: string; readonly goal: string; readonly met: boolean }

export type Report = {
  readonly date: string
  readonly machine: string
  readonly settings: string
  readonly rows: readonly Row[]
  readonly webhooks: { readonly idle: WebhookIdle; readonly burst: WebhookBurst }
  readonly peakRssBytes: number
  /** The API's resident set right before the GET load (after seeding through it). */
  readonly rssBeforeBytes: number
  readonly targets: readonly Target[]
}

const ms = (n: number) => (Number.isNaN(n) ? '–' : n.toFixed(2))
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0)
const ratio = (n: number) => `${(n * 100).toFixed(0)}%`

export const rowNamed = (rows: readonly Row[], name: string): Measured => {
  const row = rows.find((r) => r.name === name)
  if (row === undefined) throw new Error(`no benchmark row ${name}`)
  return row.measured
}

/** The report as Markdown: the load table (each row against its baseline), webhooks, memory, targets. */
export const markdown = (report: Report): string => {
  const lines = [
    `Run on ${report.date}. Machine: ${report.machine}.`,
    '',
    `Settings: ${report.settings}.`,
    '',
    '| case | req/s | p50 ms | p99 ms | baseline | req/s vs baseline | p99 vs baseline |',
    '|---|---:|---:|---:|---|---:|---:|',
  ]
  for (const { name, measured, baseline } of report.rows) {
    const base = baseline === undefined ? undefined : rowNamed(report.rows, baseline)
    lines.push(
      `| ${name} | ${measured.rps.toFixed(0)} | ${ms(measured.p50)} | ${ms(measured.p99)} | ${baseline ?? ''} | ` +
        `${base === undefined ? '' : ratio(measured.rps / base.rps)} | ${base === undefined ? '' : `${(measured.p99 / base.p99).toFixed(2)}×`} |`,
    )
  }
  const { idle, burst } = report.webhooks
  lines.push(
    '',
    '| webhooks | approvals | delivered | lost | duplicates | p50 ms | p99 ms | total |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    `| one at a time, worker idle | ${idle.approvals} | ${idle.approvals - idle.lost} | ${idle.lost} | | ${ms(idle.p50)} | ${ms(idle.p99)} | |`,
    `| burst, 10 operators | ${burst.approvals} | ${burst.delivered} | ${burst.lost} | ${burst.duplicates} | ${ms(burst.p50)} | ${ms(burst.p99)} | ${burst.seconds.toFixed(1)} s (${(burst.delivered / burst.seconds).toFixed(0)}/s) |`,
    '',
    `Peak resident memory of the API process during the authenticated GET load: ${mb(report.peakRssBytes)} MB ` +
      `(${mb(report.rssBeforeBytes)} MB right before it, after the seeding the same process served).`,
    '',
    '| target | measured | reference (duties only, through Koa) | goal | met |',
    '|---|---|---|---|---|',
    ...report.targets.map((t) => `| ${t.target} | ${t.measured} | ${t.reference ?? ''} | ${t.goal} | ${t.met ? 'yes' : '**no**'} |`),
  )
  return lines.join('\n')
}

/**
 * Replaces the generated part of `file` between `<!-- <section>:start -->` and `<!-- <section>:end -->`,
 * keeping what people wrote around it.
 */
export const writeInto = (file: string, generated: string, section = 'bench'): void => {
  const [startMark, endMark] = [`<!-- ${section}:start -->`, `<!-- ${section}:end -->`]
  const text = readFileSync(file, 'utf8')
  const start = text.indexOf(startMark)
  const end = text.indexOf(endMark)
  if (start < 0 || end < start) throw new Error(`${file} has no ${startMark} … ${endMark} section`)
  writeFileSync(file, `${text.slice(0, start + startMark.length)}\n${generated}\n${text.slice(end)}`)
}
