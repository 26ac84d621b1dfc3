import { CompiledQuery, type Compilable, type Kysely } from 'kysely'

/** Stands for a named parameter while the query is compiled once. */
class Slot {
  constructor(readonly name: string) {}
}

/**
 * A hot query built and compiled by Kysely once, at start; each run only puts its parameters in
 * the compiled parameter list (building and compiling the query was about a tenth of an
 * authenticated read's CPU, docs/benchmarks.md). `build` receives a placeholder per parameter
 * name and must use each only as a value, so that it becomes one bound parameter (`$n`).
 */
export const precompiled = <Params extends Record<string, unknown>, Row>(
  db: Kysely<any>, // eslint-disable-line @typescript-eslint/no-explicit-any -- only runs the compiled query
  build: (param: <K extends keyof Params & string>(name: K) => Params[K]) => Compilable<Row>,
): ((params: Params) => Promise<readonly Row[]>) => {
  const compiled = build((name) => new Slot(name) as never).compile()
  const parameters = compiled.parameters
  if (!parameters.some((value) => value instanceof Slot)) throw new Error('precompiled: the query has no parameter')
  return async (params) => {
    const values = parameters.map((value) => (value instanceof Slot ? params[value.name] : value))
    return (await db.executeQuery<Row>(CompiledQuery.raw(compiled.sql, values))).rows
  }
}
