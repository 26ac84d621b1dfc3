import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import { invalidRequest, type InvalidRequest } from './errors.js'
import { utcDate } from './instant.js'


/** A JSON Schema (draft 2020-12, OpenAPI 3.1's dialect). */
export type JsonSchema = { readonly [keyword: string]: unknown }

const schemas = new WeakMap<t.Mixed, JsonSchema>()

/** Records `codec`'s JSON Schema for the OpenAPI document: the codec that validates is the one described. */
export const withSchema = <C extends t.Mixed>(codec: C, schema: JsonSchema): C => {
  schemas.set(codec, schema)
  return codec
}

/** The JSON Schema of one of core's codecs; throws for a codec core did not describe. */
export const jsonSchemaOf = (codec: t.Mixed): JsonSchema => {
  const schema = schemas.get(codec)
  if (schema === undefined) throw new Error(`codec ${codec.name} has no JSON Schema: describe it with withSchema`)
  return schema
}

const fail = <A>(name: string, message: string): t.Type<A, A, unknown> =>
  new t.Type<A, A, unknown>(name, (_u): _u is A => false, (u, c) => t.failure(u, c, message), t.identity)

/** NUL or an unpaired surrogate: no PostgreSQL text column stores it, so it is the request's fault (400). */
const UNSTORABLE = /\u0000|\p{Cs}/u
/** Whether PostgreSQL's text (and UTF-8) can hold `text`: no NUL, no unpaired UTF-16 surrogate. */
export const isStorable = (text: string): boolean => !UNSTORABLE.test(text)
export const UNSTORABLE_MESSAGE = 'must not contain NUL characters or unpaired UTF-16 surrogates'

/** A string matching `pattern`; `message` describes the expected form. */
export const stringMatching = (name: string, pattern: RegExp, message: string): t.Type<string, string, unknown> =>
  withSchema(new t.Type<string, string, unknown>(
    name,
    (u): u is string => typeof u === 'string' && !UNSTORABLE.test(u) && pattern.test(u),
    (u, c) => {
      if (typeof u !== 'string') return t.failure(u, c, message)
      if (UNSTORABLE.test(u)) return t.failure(u, c, UNSTORABLE_MESSAGE)
      return pattern.test(u) ? t.success(u) : t.failure(u, c, message)
    },
    t.identity,
  ), { type: 'string', pattern: pattern.source, description: message })

/** A string of `min`..`max` characters after trimming; the decoded value is trimmed. */
export const boundedString = (name: string, min: number, max: number): t.Type<string, string, unknown> =>
  withSchema(new t.Type<string, string, unknown>(
    name,
    (u): u is string => typeof u === 'string' && !UNSTORABLE.test(u) && u.trim().length >= min && u.trim().length <= max,
    (u, c) => {
      if (typeof u !== 'string') return t.failure(u, c, 'must be a string')
      if (UNSTORABLE.test(u)) return t.failure(u, c, UNSTORABLE_MESSAGE)
      const v = u.trim()
      return v.length >= min && v.length <= max
        ? t.success(v)
        : t.failure(u, c, `must be between ${min} and ${max} characters`)
    },
    t.identity,
  ), { type: 'string', minLength: min, maxLength: max, description: 'leading and trailing spaces are trimmed' })

/** One of a fixed set of string literals, with a message listing them. */
export const oneOf = <const V extends readonly [string, ...string[]]>(name: string, values: V): t.Type<V[number], V[number], unknown> =>
  withSchema(new t.Type<V[number], V[number], unknown>(
    name,
    (u): u is V[number] => typeof u === 'string' && (values as readonly string[]).includes(u),
    (u, c) =>
      typeof u === 'string' && (values as readonly string[]).includes(u)
        ? t.success(u as V[number])
        : t.failure(u, c, `must be one of: ${values.join(', ')}`),
    t.identity,
  ), { type: 'string', enum: [...values] })

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Whether `value` is a UUID in canonical 8-4-4-4-12 form (any case). */
export const isUuid = (value: string): boolean => UUID_PATTERN.test(value)

/** A UUID in canonical 8-4-4-4-12 form; decoded to lower case. */
export const Uuid = withSchema(new t.Type<string, string, unknown>(
  'Uuid',
  (u): u is string => typeof u === 'string' && UUID_PATTERN.test(u),
  (u, c) => (typeof u === 'string' && UUID_PATTERN.test(u) ? t.success(u.toLowerCase()) : t.failure(u, c, 'must be a UUID')),
  t.identity,
), { type: 'string', format: 'uuid' })

/** An array of `item` with `min`..`max` elements. */
export const arrayOf = <A>(item: t.Type<A, A, unknown>, min: number, max: number): t.Type<A[], A[], unknown> => {
  const base = t.array(item)
  return withSchema(new t.Type<A[], A[], unknown>(
    `Array<${item.name}>`,
    (u): u is A[] => base.is(u) && u.length >= min && u.length <= max,
    (u, c) => {
      if (!Array.isArray(u)) return t.failure(u, c, 'must be an array')
      if (u.length < min || u.length > max) return t.failure(u, c, `must have between ${min} and ${max} items`)
      return base.validate(u, c)
    },
    t.identity,
  ), { type: 'array', items: jsonSchemaOf(item), minItems: min, maxItems: max })
}

type Props = Record<string, t.Mixed>
type Optional<P extends Props> = { readonly [K in keyof P]?: t.TypeOf<P[K]> }
type Required<P extends Props> = { readonly [K in keyof P]: t.TypeOf<P[K]> }

const fieldFailure = (input: object, c: t.Context, key: string, message: string): t.Validation<never> => {
  const actual = (input as Record<string, unknown>)[key]
  return t.failure(actual, [...c, { key, type: fail(key, ''), actual }], message)
}

/** `required` refuses missing and `null`; `optional` takes both as absent; in a merge patch `settable` refuses `null`, `clearable` takes it as "clear". */
type Presence = 'required' | 'optional' | 'settable' | 'clearable'
type Field = { readonly key: string; readonly codec: t.Mixed; readonly presence: Presence }

const fieldsOf = (props: Props, presence: Presence): Field[] => Object.entries(props).map(([key, codec]) => ({ key, codec, presence }))

/** A JSON object of `fields` and no other field, checked in order; with `nonEmpty`, `{}` is refused. */
const objectCodec = <A>(name: string, fields: readonly Field[], nonEmpty: boolean, schema: JsonSchema): t.Type<A, A, unknown> => {
  const known = new Set(fields.map((field) => field.key))
  return withSchema(new t.Type<A, A, unknown>(
    name,
    (u): u is A => false,
    (u, c) => {
      if (typeof u !== 'object' || u === null || Array.isArray(u)) return t.failure(u, c, 'the request body must be a JSON object')
      const input = u as Record<string, unknown>
      const unknownKey = Object.keys(input).find((k) => !known.has(k))
      if (unknownKey !== undefined) return fieldFailure(input, c, unknownKey, 'is not a known field')
      if (nonEmpty && Object.keys(input).length === 0) return t.failure(u, c, EMPTY_PATCH_DETAIL)
      const out: Record<string, unknown> = {}
      for (const { key, codec, presence } of fields) {
        const value = input[key]
        if (value === undefined || value === null) {
          if (presence === 'required') return fieldFailure(input, c, key, 'is required')
          if (value === null && presence === 'settable') return fieldFailure(input, c, key, 'cannot be cleared: send a value, or leave the field out to keep it')
          if (value === null && presence === 'clearable') out[key] = null
          continue
        }
        const r = codec.validate(value, [...c, { key, type: codec, actual: value }])
        if (E.isLeft(r)) return r
        out[key] = r.right
      }
      return t.success(out as A)
    },
    t.identity,
  ), schema)
}

const orNull = (schema: JsonSchema, nullMeans: string): JsonSchema => ({ anyOf: [schema, { type: 'null', description: nullMeans }] })

const propertiesOf = (props: Props, describe: (schema: JsonSchema) => JsonSchema = (schema) => schema) =>
  Object.fromEntries(Object.entries(props).map(([key, codec]) => [key, describe(jsonSchemaOf(codec))]))

/** A JSON object of `required` and `optional` fields and no other; `null` counts as absent for optional fields. */
export const strictObject = <R extends Props, O extends Props>(
  name: string,
  required: R,
  optional: O,
): t.Type<Required<R> & Optional<O>, Required<R> & Optional<O>, unknown> =>
  objectCodec(name, [...fieldsOf(required, 'required'), ...fieldsOf(optional, 'optional')], false, {
    type: 'object',
    properties: { ...propertiesOf(required), ...propertiesOf(optional, (schema) => orNull(schema, 'the same as leaving the field out')) },
    required: Object.keys(required),
    additionalProperties: false,
  })

/** The body of a command with no fields besides its ids: `{}`, or no body. */
export const EmptyInput = strictObject('EmptyInput', {}, {})

type Clearable<P extends Props> = { readonly [K in keyof P]?: t.TypeOf<P[K]> | null }

const EMPTY_PATCH_DETAIL = 'Send at least one field to update.'

/**
 * A JSON Merge Patch (RFC 7396) of a flat record: at least one field of `settable` or `clearable`,
 * no other. `null` clears a `clearable` field and is refused on a `settable` one. Apply with `merged`.
 */
export const mergePatch = <S extends Props, C extends Props>(
  name: string,
  settable: S,
  clearable: C,
): t.Type<Optional<S> & Clearable<C>, Optional<S> & Clearable<C>, unknown> =>
  objectCodec(name, [...fieldsOf(settable, 'settable'), ...fieldsOf(clearable, 'clearable')], true, {
    type: 'object',
    description: 'A JSON Merge Patch (RFC 7396): a field left out keeps its value; null clears a field that may be empty. At least one field.',
    properties: { ...propertiesOf(settable), ...propertiesOf(clearable, (schema) => orNull(schema, 'clears the field')) },
    minProperties: 1,
    additionalProperties: false,
  })

/** A field after a merge patch: `sent` when the patch carried it (`null` included), else `current`. */
export const merged = <V>(sent: V | undefined, current: V): V => (sent === undefined ? current : sent)

const pathOf = (error: t.ValidationError): string | undefined => {
  const keys = error.context.map((entry) => entry.key).filter((key) => key !== '')
  return keys.length === 0 ? undefined : keys.join('.')
}

/** Decodes `input`, reporting the first failure as one `InvalidRequest` naming the field's dotted path. */
export const decode =
  <A>(codec: t.Decoder<unknown, A>) =>
  (input: unknown): E.Either<InvalidRequest, A> =>
    pipe(
      codec.decode(input),
      E.mapLeft((errors) => {
        const first = errors[0]
        if (first === undefined) return invalidRequest('The request is invalid.')
        const param = pathOf(first)
        const message = first.message ?? `must be a valid ${first.context[first.context.length - 1]?.type.name ?? 'value'}`
        return param === undefined ? invalidRequest(capitalise(message)) : invalidRequest(`${param} ${message}`, param)
      }),
    )

const capitalise = (s: string): string => (s.length === 0 ? s : s[0]!.toUpperCase() + s.slice(1))

/** A JSON integer (a number, never a string) from `min` to `max`. */
export const integerIn = (name: string, min: number, max: number): t.Type<number, number, unknown> =>
  withSchema(new t.Type<number, number, unknown>(
    name,
    (u): u is number => typeof u === 'number' && Number.isSafeInteger(u) && u >= min && u <= max,
    (u, c) => {
      if (typeof u !== 'number' || !Number.isInteger(u)) return t.failure(u, c, 'must be an integer')
      return Number.isSafeInteger(u) && u >= min && u <= max ? t.success(u) : t.failure(u, c, `must be an integer from ${min} to ${max}`)
    },
    t.identity,
  ), { type: 'integer', minimum: min, maximum: max })

export const Bool = withSchema(new t.Type<boolean, boolean, unknown>(
  'Boolean',
  (u): u is boolean => typeof u === 'boolean',
  (u, c) => (typeof u === 'boolean' ? t.success(u) : t.failure(u, c, 'must be true or false')),
  t.identity,
), { type: 'boolean' })

const INSTANT_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/

/** An instant in RFC 3339 UTC (`2026-12-01T09:30:00Z`, milliseconds optional), from year 1 to 9999, decoded to a `Date`. */
export const Instant = withSchema(new t.Type<Date, Date, unknown>(
  'Instant',
  (u): u is Date => u instanceof Date,
  (u, c) => {
    const at = typeof u === 'string' && INSTANT_PATTERN.test(u) && !u.startsWith('0000') ? new Date(u) : undefined
    // A date that rolled over (February 30th) is not the one written.
    return at !== undefined && !Number.isNaN(at.getTime()) && utcDate(at) === (u as string).slice(0, 10) ? t.success(at) : t.failure(u, c, 'must be an instant in UTC, as 2026-12-01T09:30:00Z')
  },
  t.identity,
), { type: 'string', format: 'date-time' })

/** A real date `YYYY-MM-DD` from 0001-01-01 to 9999-12-31 (PostgreSQL's `date` has no year 0). */
export const CalendarDate = withSchema(new t.Type<string, string, unknown>(
  'CalendarDate',
  (u): u is string => typeof u === 'string' && isCalendarDate(u),
  (u, c) => (typeof u === 'string' && isCalendarDate(u) ? t.success(u) : t.failure(u, c, 'must be a real date in the form YYYY-MM-DD')),
  t.identity,
), { type: 'string', format: 'date' })

const isCalendarDate = (s: string): boolean => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s) || s.startsWith('0000')) return false
  const parsed = new Date(`${s}T00:00:00.000Z`)
  return !Number.isNaN(parsed.getTime()) && utcDate(parsed) === s
}
