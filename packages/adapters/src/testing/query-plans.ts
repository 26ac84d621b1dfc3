import { CompiledQuery, sql } from 'kysely'
import type { OpenDatabase } from '../postgres/database.js'

/**
 * Reading query plans, for the test that no partner route scans a large table from end to end
 * (issue 40): which statements `EXPLAIN` takes, which tables count as large, and which of them a
 * statement's plan reads with a sequential scan.
 */

/** A statement as Kysely's query log gives it: its SQL and parameters. */
export type LoggedStatement = { readonly sql: string; readonly parameters: readonly unknown[] }

/** Whether `EXPLAIN` takes `statement`: a query or a change, not a transaction's or a session's command. */
export const explainable = (statement: LoggedStatement): boolean => /^\s*(select|insert|update|delete|with)\b/i.test(statement.sql)

/** The tables of the current schema with at least `minRows` rows by the planner's estimate (after `ANALYZE`). */
export const largeTables = async (database: OpenDatabase, minRows: number): Promise<string[]> => {
  const { rows } = await sql<{ relname: string }>`
    select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind = 'r' and c.reltuples >= ${minRows} order by c.relname`.execute(database.db)
  return rows.map((r) => r.relname)
}

type PlanNode = { readonly 'Node Type': string; readonly 'Relation Name'?: string; readonly Plans?: readonly PlanNode[] }

const seqScansOf = (node: PlanNode): string[] => [
  ...(node['Node Type'] === 'Seq Scan' && node['Relation Name'] !== undefined ? [node['Relation Name']] : []),
  ...(node.Plans ?? []).flatMap(seqScansOf),
]

/** The tables `statement`'s plan (with its parameters) reads with a sequential scan. Nothing is run. */
export const sequentialScans = async (database: OpenDatabase, statement: LoggedStatement): Promise<string[]> => {
  const { rows } = await database.db.executeQuery<{ 'QUERY PLAN': unknown }>(CompiledQuery.raw(`explain (format json) ${statement.sql}`, [...statement.parameters]))
  const plan = rows[0]?.['QUERY PLAN']
  const [top] = (typeof plan === 'string' ? JSON.parse(plan) : plan) as [{ readonly Plan: PlanNode }]
  return seqScansOf(top.Plan)
}
