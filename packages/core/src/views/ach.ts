import { instantText, instantTextOrNull } from '../domain/foundations/instant.js'
import type { AchFile, AchFileStatus } from '../ports/ach-originations.js'
import type { AchOriginationRun } from '../use-cases/ach/origination.js'

/** A bank file as operators see it: what was built and where it stands, never an account number. */
export type AchFileView = {
  readonly ach_file_id: string
  readonly run_key: string
  readonly status: AchFileStatus
  readonly name: string | null
  readonly effective_entry_date: string
  readonly entry_count: number | null
  readonly debit_total: number | null
  readonly entry_hash: number | null
  readonly sha256: string | null
  readonly created_at: string
  readonly written_at: string | null
}

/** `file` as the internal API answers it. */
export const achFileView = (file: AchFile): AchFileView => ({
  ach_file_id: file.id,
  run_key: file.runKey,
  status: file.status,
  name: file.name,
  effective_entry_date: file.effectiveEntryDate,
  entry_count: file.entryCount,
  debit_total: file.debitTotal,
  entry_hash: file.entryHash,
  sha256: file.sha256,
  created_at: instantText(file.createdAt),
  written_at: instantTextOrNull(file.writtenAt),
})

/** How a run ended: made its file (`completed`), or found it made or being made by another process (`not_due`). */
export type AchRunOutcome = 'completed' | 'not_due' | 'stopped' | 'lease_lost'

const OUTCOMES = { Completed: 'completed', NotDue: 'not_due', Stopped: 'stopped', LeaseLost: 'lease_lost' } as const

/** An operator's origination run as the internal API answers it. */
export type AchOriginationRunView = { readonly run_key: string; readonly outcome: AchRunOutcome; readonly file: AchFileView | null }

/** `run` as the internal API answers it. */
export const achOriginationRunView = (run: AchOriginationRun): AchOriginationRunView => ({
  run_key: run.runKey,
  outcome: OUTCOMES[run.outcome._tag],
  file: run.file === null ? null : achFileView(run.file),
})
