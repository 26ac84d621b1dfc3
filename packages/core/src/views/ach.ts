import { instantText, instantTextOrNull } from '../domain/foundations/instant.js'
import type { AchInboundFileRecord, NoticeOutcome, ReturnOutcome } from '../ports/ach-inbound.js'
import type { AchFile, AchFileStatus } from '../ports/ach-originations.js'
import type { AchOriginationRun } from '../use-cases/ach/origination.js'
import type { CategoryRate, ReturnRateReport } from '../use-cases/ach/return-rates.js'

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

/** A return as an inbound file's report shows it. */
export type AchReturnView = {
  readonly record: number
  readonly original_trace: string
  readonly return_code: string
  readonly amount: number
  readonly payment_id: string | null
  readonly outcome: ReturnOutcome
  readonly late: boolean
}

/** A notice of change as an inbound file's report shows it: never its corrected data. */
export type AchNoticeView = {
  readonly record: number
  readonly original_trace: string
  readonly change_code: string
  readonly payment_method_id: string | null
  readonly outcome: NoticeOutcome
  readonly detail: string | null
}

/** An inbound file as operators see it: what became of each return and notice, and the entries that were neither. */
export type AchInboundFileView = {
  readonly inbound_file_id: string
  readonly sha256: string
  readonly status: AchInboundFileRecord['status']
  readonly received_at: string
  readonly returns: readonly AchReturnView[] | null
  readonly notices: readonly AchNoticeView[] | null
  readonly others: readonly { readonly record: number; readonly trace_number: string; readonly amount: number }[] | null
}

/** `file` as the internal API and the CLI answer it; `returns`, `notices` and `others` are null while it is being ingested. */
export const achInboundFileView = (file: AchInboundFileRecord): AchInboundFileView => ({
  inbound_file_id: file.id,
  sha256: file.sha256,
  status: file.status,
  received_at: instantText(file.receivedAt),
  returns:
    file.report?.returns.map((r) => ({ record: r.record, original_trace: r.originalTrace, return_code: r.returnCode, amount: r.amount, payment_id: r.paymentId, outcome: r.outcome, late: r.late })) ?? null,
  notices:
    file.report?.notices.map((n) => ({ record: n.record, original_trace: n.originalTrace, change_code: n.changeCode, payment_method_id: n.paymentMethodId, outcome: n.outcome, detail: n.detail })) ?? null,
  others: file.report?.others.map((o) => ({ record: o.record, trace_number: o.traceNumber, amount: o.amount })) ?? null,
})

/** One category's return rate as the internal API answers it: as the report has it. */
export type CategoryRateView = CategoryRate

/** The return rates of a window as the internal API answers them. */
export type ReturnRateReportView = {
  readonly from: string
  readonly to: string
  readonly clients: readonly {
    readonly client_id: string
    readonly debits: number
    readonly unauthorized: CategoryRateView
    readonly administrative: CategoryRateView
    readonly overall: CategoryRateView
  }[]
}

/** `report` as the internal API answers it. */
export const returnRateReportView = (report: ReturnRateReport): ReturnRateReportView => ({
  from: report.from,
  to: report.to,
  clients: report.clients.map((c) => ({ client_id: c.clientId, debits: c.debits, unauthorized: c.unauthorized, administrative: c.administrative, overall: c.overall })),
})
