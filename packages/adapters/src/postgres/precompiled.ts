import { createHash } from 'node:crypto'
import { CompiledQuery, type Compilable, type Kysely } from 'kysely'

/** Stands for a named parameter while the query is compiled once. */
class Slot {
  constructor(readonly name: string) {}
}

/** The SQL of every query compiled by `precompiled`, and the name of its prepared statement. */
const statementNames = new Map<string, string>()

/** The name a query's prepared statement gets: derived from its text, so every pool and connection agrees on it. */
export const statementNameOf = (sql: string): string => `lendgate_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`

/** The prepared statement's name for a query compiled once by `precompiled`; `undefined` for any other SQL. */
export const preparedStatementName = (sql: string): string | undefined => statementNames.get(sql)

/**
 * A hot query built and compiled by Kysely once, at start; each run only puts its parameters in
 * the compiled parameter list (building and compiling the query was about a tenth of an
 * authenticated read's CPU, docs/benchmarks.md). `build` receives a placeholder per parameter
 * name and must use each only as a value, so that it becomes one bound parameter (`$n`).
 *
 * On a PostgreSQL server the query also runs as a named prepared statement (`openDatabase`):
 * the server parses and plans it once per connection instead of on every run. Its result
 * columns must then be named, not `*`, so that a column added by a later migration does not
 * change the result of a statement already prepared (decision 51).
 */
export const precompiled = <Params extends Record<string, unknown>, Row>(
  db: Kysely<any>, // eslint-disable-line @typescript-eslint/no-explicit-any -- only runs the compiled query
  build: (param: <K extends keyof Params & string>(name: K) => Params[K]) => Compilable<Row>,
): ((params: Params) => Promise<readonly Row[]>) => {
  const compiled = build((name) => new Slot(name) as never).compile()
  const parameters = compiled.parameters
  if (!parameters.some((value) => value instanceof Slot)) throw new Error('precompiled: the query has no parameter')
  statementNames.set(compiled.sql, statementNameOf(compiled.sql))
  return async (params) => {
    const values = parameters.map((value) => (value instanceof Slot ? params[value.name] : value))
    return (await db.executeQuery<Row>(CompiledQuery.raw(compiled.sql, values))).rows
  }
}
