import type { BackupSequence, BackupTable } from './backup-catalog.js'

/**
 * The backup file (decision 114): JSON lines. The first line is the header (an object); then,
 * for each table, a line `["table","<name>"]` followed by its rows, one JSON object a line, as
 * PostgreSQL's `row_to_json` wrote them; the last line is `["end",{"rows":{"<name>":<count>}}]`.
 * Markers are arrays and rows objects, so no row can be mistaken for a marker. A file without
 * its end line, or whose counts differ from the rows it holds, is incomplete.
 */

export const BACKUP_FORMAT = 'lendgate-backup'
export const BACKUP_VERSION = 1

export type BackupHeader = {
  readonly format: typeof BACKUP_FORMAT
  readonly version: typeof BACKUP_VERSION
  readonly created_at: string
  /** The server's `server_version`, for the reader: a restore does not need the same. */
  readonly server_version: string
  /** The migrations the database had applied, in order; a restore migrates to the last of them before loading rows. */
  readonly migrations: readonly string[]
  /** The tables that follow, in the order they follow. */
  readonly tables: readonly BackupTable[]
  readonly sequences: readonly BackupSequence[]
}

export type BackupTrailer = { readonly rows: Readonly<Record<string, number>> }

/** One line of a backup after the header. */
export type BackupLine =
  | { readonly _tag: 'Table'; readonly name: string }
  | { readonly _tag: 'Row'; readonly json: string }
  | { readonly _tag: 'End'; readonly trailer: BackupTrailer }

export const headerLine = (header: BackupHeader): string => `${JSON.stringify(header)}\n`
export const tableLine = (name: string): string => `${JSON.stringify(['table', name])}\n`
export const endLine = (trailer: BackupTrailer): string => `${JSON.stringify(['end', trailer])}\n`

const isStrings = (value: unknown): value is readonly string[] => Array.isArray(value) && value.every((v) => typeof v === 'string')

const isTable = (value: unknown): value is BackupTable => {
  const t = value as Partial<BackupTable> | null
  return typeof t === 'object' && t !== null && typeof t.name === 'string' && isStrings(t.columns) && isStrings(t.primaryKey)
}

const isSequence = (value: unknown): value is BackupSequence => {
  const s = value as Partial<BackupSequence> | null
  return typeof s === 'object' && s !== null && typeof s.name === 'string' && typeof s.value === 'string' && /^-?\d+$/.test(s.value)
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

/** The header the first line of a file holds, or what is wrong with it (the file is not a backup, or of another version of the format). */
export const parseHeader = (line: string | undefined): { readonly header: BackupHeader } | { readonly problem: string } => {
  const h = parseJson(line ?? '') as Partial<BackupHeader> | undefined
  if (typeof h !== 'object' || h === null || h.format !== BACKUP_FORMAT) return { problem: 'the file is not a Lendgate backup (its first line is not a backup header)' }
  if (h.version !== BACKUP_VERSION) return { problem: `the backup is of format version ${String(h.version)}; this build reads version ${BACKUP_VERSION}` }
  const whole =
    typeof h.created_at === 'string' &&
    typeof h.server_version === 'string' &&
    isStrings(h.migrations) &&
    Array.isArray(h.tables) &&
    h.tables.every(isTable) &&
    Array.isArray(h.sequences) &&
    h.sequences.every(isSequence)
  return whole ? { header: h as BackupHeader } : { problem: 'the backup header is damaged' }
}

/** A line after the header, or undefined when it is none of a backup's lines. */
export const parseLine = (line: string): BackupLine | undefined => {
  if (line.startsWith('{')) return { _tag: 'Row', json: line }
  const marker = parseJson(line)
  if (!Array.isArray(marker) || marker.length !== 2) return undefined
  const [kind, value] = marker as [unknown, unknown]
  if (kind === 'table' && typeof value === 'string') return { _tag: 'Table', name: value }
  const rows = (value as Partial<BackupTrailer> | null)?.rows
  if (kind === 'end' && typeof rows === 'object' && rows !== null && Object.values(rows).every((n) => Number.isSafeInteger(n))) return { _tag: 'End', trailer: { rows } }
  return undefined
}
