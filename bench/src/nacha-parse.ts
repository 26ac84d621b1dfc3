/**
 * `pnpm bench:nacha [--runs <n>] [--file <path>]`: issue 59, the NACHA parser on moov-io's file of
 * 200 batches and 100,000 CCD entries with an addenda 05 each (200,410 records, 19 MB; gunzipped
 * once, outside the measure).
 *
 * - **The parser**: `parseNachaFile` on the whole text, `--runs` times (default 10) after two
 *   warm-up parses: every field of every record checked, every control total recomputed, the
 *   model built.
 * - **The baseline, in the same run**: what any reader of the file must at least do: split the
 *   text into lines and add up the amount field (positions 30–39) of every entry detail record.
 *
 * CPU time (`process.cpuUsage`, user + system, of the whole process: the garbage collector's
 * threads included) per parse, entries per second of CPU, and the ratio parser / baseline. Nothing
 * about time fails the run; a wrong answer does (exit 1): each parse must accept the file with
 * 200 batches, 100,000 entries and 100,000 addenda, its entry hash and totals those of its file
 * control, and the baseline's sum must equal the file's total debit plus total credit.
 */
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { gunzipSync } from 'node:zlib'
import { fileURLToPath } from 'node:url'
import { parseNachaFile } from '@lendgate/nacha'

const { values: flags } = parseArgs({
  options: {
    runs: { type: 'string', default: '10' },
    file: { type: 'string', default: fileURLToPath(new URL('../../packages/nacha/test/fixtures/moov-io/CCD+addenda05-200-batches-100000-entries.ach.gz', import.meta.url)) },
  },
})
const RUNS = Math.max(1, Number(flags.runs) || 10)
const EXPECTED = { batches: 200, entries: 100_000, addenda: 100_000, entryHash: 3_801_000_000, totalDebit: 123_400_000, totalCredit: 0 }

const text = gunzipSync(readFileSync(flags.file)).toString('latin1')
const failures: string[] = []

/** Parses once and checks the answer against what the file is known to hold. */
const parseOnce = (): void => {
  const r = parseNachaFile(text)
  if (!r.ok) {
    failures.push(`refused: ${JSON.stringify(r.error)}`)
    return
  }
  const { batches, control } = r.file
  let entries = 0
  let addenda = 0
  for (const b of batches) {
    entries += b.entries.length
    for (const e of b.entries) addenda += e.addenda.length
  }
  const got = { batches: batches.length, entries, addenda, entryHash: control.entryHash, totalDebit: control.totalDebit, totalCredit: control.totalCredit }
  if (JSON.stringify(got) !== JSON.stringify(EXPECTED)) failures.push(`parsed ${JSON.stringify(got)}, expected ${JSON.stringify(EXPECTED)}`)
}

/** The baseline: lines, and the sum of the entries' amounts. */
const baselineOnce = (): void => {
  const lines = text.split('\n')
  let sum = 0
  let entries = 0
  for (const line of lines) {
    if (line.charCodeAt(0) === 0x36) {
      sum += Number(line.slice(29, 39))
      entries++
    }
  }
  if (sum !== EXPECTED.totalDebit + EXPECTED.totalCredit || entries !== EXPECTED.entries) failures.push(`baseline summed ${sum} over ${entries} entries`)
}

/** CPU milliseconds per call of `run`, over RUNS calls after two warm-up calls. */
const cpuMsPer = (run: () => void): number => {
  run()
  run()
  const start = process.cpuUsage()
  for (let i = 0; i < RUNS; i++) run()
  const used = process.cpuUsage(start)
  return (used.user + used.system) / 1000 / RUNS
}

const baselineMs = cpuMsPer(baselineOnce)
const parserMs = cpuMsPer(parseOnce)
const rate = (ms: number): string => `${Math.round(EXPECTED.entries / (ms / 1000)).toLocaleString('en-US')} entries/s`

console.log(`NACHA parse of ${EXPECTED.entries.toLocaleString('en-US')} entries (${(text.length / 1e6).toFixed(1)} MB, ${text.split('\n').length - 1} lines), ${RUNS} runs each, node ${process.version}`)
console.log(`  parseNachaFile   ${parserMs.toFixed(1).padStart(8)} ms CPU per parse   ${rate(parserMs)}`)
console.log(`  baseline (split + sum amounts) ${baselineMs.toFixed(1).padStart(8)} ms CPU   ${rate(baselineMs)}`)
console.log(`  ratio parser / baseline: ${(parserMs / baselineMs).toFixed(1)}×`)
if (failures.length > 0) {
  console.error(`WRONG ANSWER (${failures.length}):\n${[...new Set(failures)].join('\n')}`)
  process.exit(1)
}
