import { hash } from 'node:crypto'
import {
  CompiledQuery,
  ReferenceNode,
  SelectAllNode,
  type Compilable,
  type Kysely,
  type OperationNode,
  type OperationNodeSource,
  type RawBuilder,
  type ReturningNode,
  type SelectionNode,
} from 'kysely'

/** Stands for a named parameter while the query is compiled once. */
class Slot {
  constructor(readonly name: string) {}
}

/** The name a query's prepared statement gets: derived from its text, so every pool and connection agrees on it. */
export const statementNameOf = (sql: string): string => `lendgate_${hash('sha256', sql).slice(0, 24)}`

/**
 * Every statement compiled once (by `precompiled`, `precompiledOn` and `compiledByShape`), by
 * its SQL, with its statement name. On a PostgreSQL server the pool Kysely is given runs these
 * by name on whichever connection runs them, inside a transaction too (`openDatabase`): the
 * server parses and plans each once per connection, not on every run (decision 56).
 */
const preparedNames = new Map<string, string>()
/**
 * Their lengths: every other query Kysely sends is a new string, which a map lookup would hash
 * in full (about a microsecond for a long insert on this machine); a length no statement
 * compiled once has settles it first. Lengths of forgotten shapes stay; they only cost a lookup.
 */
const preparedLengths = new Set<number>()

/** The statement name under which `sql` runs, if it is a statement compiled once. */
export const preparedNameOf = (sql: string): string | undefined => (preparedLengths.has(sql.length) ? preparedNames.get(sql) : undefined)

const prepared = (sql: string): string => {
  const name = statementNameOf(sql)
  preparedNames.set(sql, name)
  preparedLengths.add(sql.length)
  return name
}

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

/** What a query's `build` is given: a placeholder for each named parameter, typed as its value. */
export type Param<Params extends Record<string, unknown>> = <K extends keyof Params & string>(name: K) => Params[K]

/** Runs SQL compiled earlier on `db` (an instance or a transaction) through Kysely, whose pool runs it by name on a server. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- runs compiled SQL only
const runCompiled = async <Row>(db: Kysely<any>, sql: string, values: unknown[]): Promise<readonly Row[]> =>
  (await db.executeQuery<Row>(CompiledQuery.raw(sql, values))).rows

/**
 * Whether the query `node` returns every column of a table (`*` or `t.*` in its own selection or
 * `returning`). Only the statement's own result matters: a `*` inside a subquery or a JSON
 * aggregate is expanded again when the server replans, under a result that keeps its shape.
 */
const returnsAll = (node: OperationNode): boolean => {
  const { selections = [], returning } = node as { readonly selections?: readonly SelectionNode[]; readonly returning?: ReturningNode }
  return [...selections, ...(returning?.selections ?? [])].some(
    ({ selection }) => SelectAllNode.is(selection) || (ReferenceNode.is(selection) && SelectAllNode.is(selection.column)),
  )
}

/**
 * Compiles `build`'s query once, with a placeholder per named parameter; `valuesOf` fills them
 * for one run. A query that returns `*` is refused: it runs as a prepared statement, whose
 * result would change, and fail, when a migration adds a column (decision 51).
 */
const compileWithSlots = <Params extends Record<string, unknown>, Row>(
  build: (param: Param<Params>) => Compilable<Row> & OperationNodeSource,
  what: string,
): { readonly sql: string; readonly valuesOf: (params: Params) => unknown[] } => {
  const query = build((name) => new Slot(name) as never)
  if (returnsAll(query.toOperationNode())) throw new Error(`${what}: name the result columns; a prepared statement must not select *`)
  const compiled = query.compile()
  const parameters = compiled.parameters
  if (!parameters.some((value) => value instanceof Slot)) throw new Error(`${what}: the query has no parameter`)
  return { sql: compiled.sql, valuesOf: (params) => parameters.map((value) => (value instanceof Slot ? params[value.name] : value)) }
}

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
  build: (param: Param<Params>) => Compilable<Row> & OperationNodeSource,
): ((params: Params) => Promise<readonly Row[]>) => {
  const { sql, valuesOf } = compileWithSlots(build, 'precompiled')
  const name = prepared(sql)
  const run = runners.get(db)
  if (run !== undefined) {
    return (params) => run({ name, text: sql, values: valuesOf(params) }) as Promise<readonly Row[]>
  }
  return (params) => runCompiled<Row>(db, sql, valuesOf(params))
}

/**
 * A query built and compiled once like `precompiled`, run on the instance or transaction given
 * to each run: for reads inside transactions (those under a loan's lock), where it runs by name
 * too (`preparedNameOf`), so its result columns must be named as well. Every instance compiles
 * the same SQL (see `compiledByShape`).
 */
export const precompiledOn = <Params extends Record<string, unknown>, Row>(
  build: (param: Param<Params>) => Compilable<Row> & OperationNodeSource,
): ((trx: Kysely<any>, params: Params) => Promise<readonly Row[]>) => { // eslint-disable-line @typescript-eslint/no-explicit-any -- runs the compiled query
  const { sql, valuesOf } = compileWithSlots(build, 'precompiledOn')
  prepared(sql)
  return (trx, params) => runCompiled<Row>(trx, sql, valuesOf(params))
}

/**
 * One part of a statement assembled from parts (a posting's writes): `values` in a fixed order,
 * and how Kysely builds the part from them. `shape` names everything the part's SQL depends on
 * besides the values (its kind, its column names, its row count): two parts of the same shape
 * build the same SQL from different values.
 */
export type StatementPart = {
  readonly shape: string
  readonly values: readonly unknown[]
  /** Builds the part with `slots` in place of `values` (a placeholder for each; `undefined` where the value is). */
  readonly build: (slots: readonly unknown[]) => OperationNodeSource
}

/**
 * Statements whose parts vary from run to run, built and compiled by Kysely once per
 * combination of part shapes (at most `maxShapes` remembered); every other run only lists its
 * values in the compiled order. Building and compiling a posting's statement was 18% of a
 * payment's CPU, spent while the loan's lock is held (docs/benchmarks.md).
 *
 * Every parameter of the compiled statement must come from a part's `values`: compiling a
 * shape throws if the SQL holds any other parameter, since a value built into a shape's SQL
 * would be replayed into every later run of that shape. An `undefined` value is part of the
 * shape (Kysely leaves such a column out of an insert). The compiled SQL is shared by every
 * Kysely instance the statements run on, which holds while they all use PostgreSQL's compiler
 * and no plugin rewrites queries (`openDatabase` adds none).
 */
export const compiledByShape = <Part extends StatementPart>(
  assemble: (parts: readonly Part[], built: readonly OperationNodeSource[]) => RawBuilder<unknown>,
  maxShapes = 200,
) => {
  const shapes = new Map<string, { readonly sql: string; readonly order: readonly number[] }>()

  const compile = (db: Kysely<any>, parts: readonly Part[]) => { // eslint-disable-line @typescript-eslint/no-explicit-any -- compiles only
    let next = 0
    const slotFor = (value: unknown): Slot | undefined => {
      const index = next
      next += 1
      return value === undefined ? undefined : new Slot(String(index))
    }
    const built = parts.map((part) => part.build(part.values.map(slotFor)))
    const compiled = assemble(parts, built).compile(db)
    const order = compiled.parameters.map((parameter) => {
      if (!(parameter instanceof Slot)) throw new Error('compiledByShape: a parameter of the statement is not one of its parts’ values')
      return Number(parameter.name)
    })
    prepared(compiled.sql)
    return { sql: compiled.sql, order }
  }

  return async (db: Kysely<any>, parts: readonly Part[]): Promise<void> => { // eslint-disable-line @typescript-eslint/no-explicit-any -- runs the compiled statement
    if (parts.length === 0) return
    let key = ''
    for (const part of parts) {
      key += `${part.shape}\n`
      if (part.values.includes(undefined)) key += `${part.values.map((value) => (value === undefined ? '-' : '+')).join('')}\n`
    }
    let compiled = shapes.get(key)
    if (compiled === undefined) {
      compiled = compile(db, parts)
      shapes.set(key, compiled)
      if (shapes.size > maxShapes) {
        const oldest = shapes.keys().next().value as string
        const evicted = shapes.get(oldest)
        shapes.delete(oldest)
        // Runs unnamed from now on (recompiling it names it again); connections that prepared it keep it.
        if (evicted !== undefined) preparedNames.delete(evicted.sql)
      }
    }
    const values = parts.flatMap((part) => part.values)
    await runCompiled(db, compiled.sql, compiled.order.map((index) => values[index]))
  }
}
