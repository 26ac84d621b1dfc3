import { join } from 'node:path'
import { place, pointerSegments, type Finding, type Severity } from './findings.js'
import { REPO_ROOT, runTool } from './tools.js'

/** The rulesets, at the repository root: every rule of Spectral's `spectral:oas`, Redocly's `recommended-strict`. */
export const SPECTRAL_RULESET = join(REPO_ROOT, '.spectral.yaml')
export const REDOCLY_CONFIG = join(REPO_ROOT, 'redocly.yaml')

const LINT_TIMEOUT_MS = 60_000

export type LintReport = { readonly findings: readonly Finding[]; readonly exitCode: number | null; readonly ms: number }

/** A tool's output that is not the report it should be: a failure of the run, not a finding. */
const unreadable = (tool: string, run: { code: number | null; stdout: string; stderr: string }, why: string): Error =>
  new Error(`${tool} did not produce a report (${why}; exit ${run.code}):\n${run.stderr.slice(-2_000)}\n${run.stdout.slice(0, 2_000)}`)

type SpectralResult = { readonly code: string | number; readonly path: readonly (string | number)[]; readonly message: string; readonly severity: 0 | 1 | 2 | 3 }
const SPECTRAL_SEVERITY: readonly Severity[] = ['error', 'warning', 'info', 'hint']

/**
 * `spectral lint` with the ruleset file (every rule) and `--fail-severity=hint`: exit 0 only with no
 * finding at all. Exit 2 (a broken ruleset or document it cannot read) is a failure of the run.
 */
export const spectralLint = async (documentFile: string): Promise<LintReport> => {
  const run = await runTool('spectral', ['lint', documentFile, '--ruleset', SPECTRAL_RULESET, '--fail-severity=hint', '--format', 'json', '--quiet'], LINT_TIMEOUT_MS)
  if (run.code !== 0 && run.code !== 1) throw unreadable('spectral', run, 'unexpected exit status')
  let results: SpectralResult[]
  try {
    results = run.stdout.trim() === '' ? [] : (JSON.parse(run.stdout) as SpectralResult[])
  } catch {
    throw unreadable('spectral', run, 'its output is not JSON')
  }
  const findings = results.map((r) => ({ rule: String(r.code), severity: SPECTRAL_SEVERITY[r.severity] ?? 'error', where: place(r.path), message: r.message }))
  return { findings, exitCode: run.code, ms: run.ms }
}

type RedoclyProblem = { readonly ruleId: string; readonly severity: 'error' | 'warn'; readonly message: string; readonly location: readonly { readonly pointer?: string }[] }
type RedoclyReport = { readonly totals: { readonly errors: number; readonly warnings: number }; readonly problems: readonly RedoclyProblem[] }

/** `redocly lint` with the config file (`extends: [recommended-strict]`); exit 1 on any problem. Telemetry is off (TOOL_ENV). */
export const redoclyLint = async (documentFile: string): Promise<LintReport> => {
  const run = await runTool('redocly', ['lint', documentFile, '--config', REDOCLY_CONFIG, '--format', 'json', '--max-problems', '100000'], LINT_TIMEOUT_MS)
  if (run.code !== 0 && run.code !== 1) throw unreadable('redocly', run, 'unexpected exit status')
  let report: RedoclyReport
  try {
    report = JSON.parse(run.stdout) as RedoclyReport
  } catch {
    throw unreadable('redocly', run, 'its output is not JSON')
  }
  const findings = report.problems.map((p) => ({
    rule: p.ruleId,
    severity: p.severity === 'error' ? ('error' as const) : ('warning' as const),
    where: place(pointerSegments(p.location[0]?.pointer ?? '#/')),
    message: p.message,
  }))
  if (findings.length !== report.totals.errors + report.totals.warnings) throw unreadable('redocly', run, `${findings.length} problems listed, totals say ${report.totals.errors + report.totals.warnings}`)
  return { findings, exitCode: run.code, ms: run.ms }
}

/** `redocly build-docs`: the reference as one HTML page (Redoc, bundled with the CLI: nothing is downloaded), at `outFile`. */
export const redoclyBuildDocs = async (documentFile: string, outFile: string): Promise<{ readonly ms: number }> => {
  const run = await runTool('redocly', ['build-docs', documentFile, '--config', REDOCLY_CONFIG, '-o', outFile], LINT_TIMEOUT_MS)
  if (run.code !== 0) throw unreadable('redocly build-docs', run, 'it did not build')
  return { ms: run.ms }
}
