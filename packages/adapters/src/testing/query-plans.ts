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

/** The relations (tables, partitions) of the nodes of `node`'s plan that `reads` picks. */
const relationsOf = (node: PlanNode, reads: (node: PlanNode) => boolean): string[] => [
  ...(reads(node) && node['Relation Name'] !== undefined ? [node['Relation Name']] : []),
  ...(node.Plans ?? []).flatMap((child) => relationsOf(child, reads)),
]

/** `statement`'s plan with its parameters. Nothing is run. */
const planOf = async (database: OpenDatabase, statement: LoggedStatement): Promise<PlanNode> => {
  const { rows } = await database.db.executeQuery<{ 'QUERY PLAN': unknown }>(CompiledQuery.raw(`explain (format json) ${statement.sql}`, [...statement.parameters]))
  const plan = rows[0]?.['QUERY PLAN']
  const [top] = (typeof plan === 'string' ? JSON.parse(plan) : plan) as [{ readonly Plan: PlanNode }]
  return top.Plan
}

/** The tables `statement`'s plan (with its parameters) reads with a sequential scan. Nothing is run. */
export const sequentialScans = async (database: OpenDatabase, statement: LoggedStatement): Promise<string[]> =>
  relationsOf(await planOf(database, statement), (node) => node['Node Type'] === 'Seq Scan')

/** The tables and partitions `statement`'s plan (with its parameters) reads at all: a partition pruned when planning is not among them. Nothing is run. */
export const relationsRead = async (database: OpenDatabase, statement: LoggedStatement): Promise<string[]> => [...new Set(relationsOf(await planOf(database, statement), () => true))]

/** The partitions of a table, for the tests that check which ones a plan reads. */
export { partitionsOf } from '../postgres/event-partitions.js'
