import { createHash } from 'node:crypto'
import { CompiledQuery, type Compilable, type Kysely } from 'kysely'

/** Stands for a named parameter while the query is compiled once. */
class Slot {
  constructor(readonly name: string) {}
}

/** The name a query's prepared statement gets: derived from its text, so every pool and connection agrees on it. */
export const statementNameOf = (sql: string): string => `lendgate_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`

/** A named statement as `pg` takes it, and what runs it: straight on a server's pool. */
export type PreparedStatement = { readonly name: string; readonly text: string; readonly values: unknown[] }
export type PreparedRunner = (statement: PreparedStatement) => Promise<readonly unknown[]>

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- keyed by instance only
const runners = new WeakMap<Kysely<any>, PreparedRunner>()

/**
 * Makes the queries `precompiled` on `db` run through `run` as named prepared statements
 * (`openDatabase` does this for the instance it makes on a PostgreSQL server). Any other
 * instance (the embedded database, a transaction, one connection) runs them through Kysely.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- keyed by instance only
export const runPreparedOn = (db: Kysely<any>, run: PreparedRunner): void => void runners.set(db, run)

/**
 * A hot query built and compiled by Kysely once, at start; each run only puts its parameters in
 * the compiled parameter list (building and compiling the query was about a tenth of an
 * authenticated read's CPU, docs/benchmarks.md). `build` receives a placeholder per parameter
 * name and must use each only as a value, so that it becomes one bound parameter (`$n`).
 *
 * On a PostgreSQL server (`runPreparedOn`) the query runs as a named prepared statement, straight
 * on the pool: the server parses and plans it once per connection instead of on every run, and
 * the run skips Kysely's connection handling, which has nothing to add to one statement
 * (decision 53). Its result columns must be named, not `*`, so that a column added by a later
 * migration does not change the result of a statement already prepared (decision 51).
 */
export const precompiled = <Params extends Record<string, unknown>, Row>(
  db: Kysely<any>, // eslint-disable-line @typescript-eslint/no-explicit-any -- only runs the compiled query
  build: (param: <K extends keyof Params & string>(name: K) => Params[K]) => Compilable<Row>,
): ((params: Params) => Promise<readonly Row[]>) => {
  const compiled = build((name) => new Slot(name) as never).compile()
  const parameters = compiled.parameters
  if (!parameters.some((value) => value instanceof Slot)) throw new Error('precompiled: the query has no parameter')
  const valuesOf = (params: Params): unknown[] => parameters.map((value) => (value instanceof Slot ? params[value.name] : value))
  const run = runners.get(db)
  if (run !== undefined) {
    const name = statementNameOf(compiled.sql)
    return (params) => run({ name, text: compiled.sql, values: valuesOf(params) }) as Promise<readonly Row[]>
  }
  return async (params) => (await db.executeQuery<Row>(CompiledQuery.raw(compiled.sql, valuesOf(params)))).rows
}
