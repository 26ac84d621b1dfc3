import { Buffer } from 'node:buffer'
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { gzipSync } from 'node:zlib'
import { jsonSchemaOf, type JsonSchema } from '@lendgate/core'
import fc from 'fast-check'
import { SECURITY_HEADERS } from '../../src/http/request-lifecycle.js'
import { bodyCodecOf, operationDocOf } from '../../src/openapi/operation-docs.js'
import type { Operation } from '../../src/routes/operations.js'

/**
 * Generators of hostile HTTP requests for the fuzzing suite (issue 9), and a raw client that
 * sends them byte for byte: `fetch` would normalise `..`, refuse invalid percent-encoding and
 * re-encode headers, which is exactly what a fuzzer must be able to send.
 */

/** One request as it goes on the wire. `path` includes the query string. */
export type FuzzRequest = {
  readonly method: string
  readonly path: string
  /** Repeated names are sent as repeated header lines. Values are latin1 strings (bytes). */
  readonly headers: readonly (readonly [string, string])[]
  readonly body?: Buffer
  /** Send the body with `Transfer-Encoding: chunked` instead of `Content-Length`. */
  readonly chunked?: boolean
}

export type RawReply = {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly text: string
}

/** What the generators need to know about the running service. */
export type FuzzTarget = {
  /**
   * Ids of existing resources, by path parameter name (`sessionId`, `loanId`, …) and by body
   * field name (`product_id`, …), so that generated requests reach handlers, not only 404s.
   */
  readonly ids: Readonly<Record<string, readonly string[]>>
  /** Partner keys that authenticate (all scopes), the best fit for `op` first. */
  readonly partnerKeys: (op: Operation) => readonly [string, ...string[]]
  readonly mintSecret: string
  readonly internalToken: string
}

// ---------------------------------------------------------------------------------------------
// Strings and values

/** Path segments and query tokens that are already on-the-wire text (percent-encoding and all). */
const NASTY_SEGMENTS = [
  '..', '.', '%2e%2e', '%2E', '%00', '%E0%A4%A', '%', '%%', '%zz', '%2F', '%2f..%2f', '%C0%AF', '%FF%FE', '%ED%A0%80',
  '%u0041', '%252e%252e', ';', ';x=1', '~', '*', '@', ':', '$', '!', "'", '"', '(', ')', ',', '=', '+', '%20', '%09', '%0A',
  '%0D%0A', '#', '[]', '{}', '\\', '%5C', 'null', 'undefined', 'true', '0', '-1', 'NaN', 'Infinity', '1e308', '__proto__',
  'constructor', 'prototype', 'hasOwnProperty', 'toString', '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff', 'FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF', '..%2F..%2Fetc%2Fpasswd',
  "'%20OR%201=1--", '%3Cscript%3E', '$%7Bjndi:ldap%7D', '%F0%9F%92%A9', '%C3%A9', '%EF%BB%BF',
] as const

/** `encodeURIComponent` that also encodes lone surrogates (as the CESU-8 bytes a sloppy client sends). */
const percentEncode = (text: string): string => {
  let out = ''
  for (const char of text) {
    try {
      out += encodeURIComponent(char)
    } catch {
      const unit = char.charCodeAt(0)
      out += `%${(0xe0 | (unit >> 12)).toString(16)}%${(0x80 | ((unit >> 6) & 0x3f)).toString(16)}%${(0x80 | (unit & 0x3f)).toString(16)}`.toUpperCase()
    }
  }
  return out
}

/** Raw bytes 0x80–0xff (invalid UTF-8 on their own), as the latin1 string Node writes byte for byte. */
const highBytes = (maxLength: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.integer({ min: 0x80, max: 0xff }).map((code) => String.fromCharCode(code)), minLength: 1, maxLength })

/**
 * Bytes 0x80–0xff percent-encoded (invalid UTF-8 once decoded). Raw, in a request target, Node's
 * parser refuses them with a bodiless 400 before the app sees the request (see the report of
 * issue 9), so paths and queries carry them encoded.
 */
const encodedHighBytes = (maxLength: number): fc.Arbitrary<string> =>
  highBytes(maxLength).map((s) => [...s].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join(''))

/** Text of any script, sent as its UTF-8 bytes in a header (Node writes header strings as latin1). */
const utf8AsLatin1 = (text: string): string => Buffer.from(text, 'utf8').toString('latin1').replace(/[\x00-\x08\x0a-\x1f\x7f]/g, '?')

const anyText = (maxLength: number): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ unit: 'grapheme', maxLength }),
    fc.string({ unit: 'binary', maxLength }),
    fc.string({ unit: 'grapheme-ascii', maxLength }),
    fc.string({ unit: fc.constantFrom('\u0000', '\u202e', '\ufeff', '\u2028', '\ud800', '\udfff', 'é', 'e\u0301', '𝕏', '\u00a0', 'İ'), maxLength }),
  )

/** A path segment that is not a well-formed id. */
export const junkSegment: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_SEGMENTS) },
  { weight: 2, arbitrary: anyText(40).filter((s) => s !== '').map(percentEncode) },
  { weight: 1, arbitrary: encodedHighBytes(20) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 6_000 }).map((n) => 'a'.repeat(n)) },
  {
    weight: 2,
    arbitrary: fc
      .uuid()
      .chain((u) => fc.constantFrom(u.toUpperCase(), `${u}%00`, `${u}x`, u.slice(1), u.replace(/-/g, ''), `%7B${u}%7D`, `${u}/`, ` ${u}`.replace(' ', '%20'))),
  },
)

/** A path parameter: mostly an id that exists (so the request reaches its handler), else a fresh UUID or junk. */
const pathParam = (name: string, target: FuzzTarget): fc.Arbitrary<string> => {
  const real = target.ids[name] ?? []
  return fc.oneof(
    { weight: real.length > 0 ? 8 : 0, arbitrary: real.length > 0 ? fc.constantFrom(...real) : fc.uuid() },
    { weight: 2, arbitrary: fc.uuid() },
    { weight: 3, arbitrary: junkSegment },
  )
}

/** Numeric JSON tokens a parser or a database may choke on, written as text so they survive as sent. */
const NUMBER_TOKENS = [
  '-0', '0', '1e308', '1e309', '-1e309', '2e-324', '9007199254740993', '9007199254740991', '-9007199254740993', '4294967296',
  '-2147483649', '1.0', '1E2', '0.1e1', '100.5', '1'.padEnd(400, '0'), `-${'9'.repeat(400)}`, '0.0000000000000000000001',
] as const

const jsonString = (text: string): string => JSON.stringify(text)

/** The JSON text of a scalar of the wrong kind for almost any field. */
const nastyScalarText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...NUMBER_TOKENS),
  fc.constantFrom('null', 'true', 'false', '""', '" "', '"0"', '"1e3"', '"NaN"', '"null"', '"__proto__"', '"\\u0000"', '"\\ud800"', '"\\udfff\\ud800"', '"\\u202e"', '[]', '{}', '[null]', '{"":null}'),
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  anyText(60).map(jsonString),
  fc.integer({ min: 1_000, max: 100_000 }).map((n) => jsonString('x'.repeat(n))),
  fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
)

/**
 * Webhook URLs that are refused without a DNS look-up (literal private addresses, bad schemes,
 * credentials) or that resolve locally: the suite must never register a URL a worker would
 * really call.
 */
const WEBHOOK_URLS = [
  'https://127.0.0.1/hook', 'https://[::1]/x', 'http://hooks.invalid/x', 'https://10.0.0.1/', 'https://169.254.169.254/latest',
  'https://user:pw@192.168.0.1/', 'https://0.0.0.0/', 'https://[::ffff:127.0.0.1]/', 'https://localhost/x', 'ftp://x', 'javascript:alert(1)',
  'not a url', 'https://', 'https://%zz/', `https://127.0.0.1/${'a'.repeat(2_100)}`, 'HTTPS://127.0.0.1', 'https://[fe80::1]/',
] as const

type Schema = JsonSchema & {
  readonly type?: string
  readonly enum?: readonly string[]
  readonly pattern?: string
  readonly format?: string
  readonly minimum?: number
  readonly maximum?: number
  readonly minLength?: number
  readonly maxLength?: number
  readonly items?: Schema
  readonly minItems?: number
  readonly maxItems?: number
  readonly anyOf?: readonly Schema[]
  readonly oneOf?: readonly Schema[]
  readonly properties?: Readonly<Record<string, Schema>>
  readonly required?: readonly string[]
}

const isoDate = (d: Date): string => d.toISOString().slice(0, 10)

/** JSON text of a value the schema describes (often valid, so the request gets past validation). */
const plausibleText = (schema: Schema, field: string, target: FuzzTarget): fc.Arbitrary<string> => {
  if (field === 'webhook_url') return fc.constantFrom(...WEBHOOK_URLS).map(jsonString)
  const alternatives = schema.anyOf ?? schema.oneOf
  if (alternatives !== undefined) return fc.oneof(...alternatives.map((s) => plausibleText(s, field, target)))
  if (schema.enum !== undefined && schema.enum.length > 0) return fc.constantFrom(...schema.enum).map(jsonString)
  switch (schema.type) {
    case 'null':
      return fc.constant('null')
    case 'boolean':
      return fc.boolean().map(String)
    case 'integer':
      return fc.oneof(fc.integer({ min: schema.minimum ?? -1_000_000, max: Math.min(schema.maximum ?? 1_000_000_000, 1_000_000_000) }), fc.constantFrom(1, 12, 50_000, 1_200_000)).map(String)
    case 'array':
      return fc
        .array(plausibleText(schema.items ?? {}, field, target), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, 3) })
        .map((items) => `[${items.join(',')}]`)
    case 'object':
      return plausibleObjectText(schema, target)
    case 'string':
      return plausibleString(schema, field, target).map(jsonString)
    default:
      return nastyScalarText
  }
}

const plausibleString = (schema: Schema, field: string, target: FuzzTarget): fc.Arbitrary<string> => {
  const real = target.ids[field] ?? []
  if (schema.format === 'uuid') return real.length > 0 ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...real) }, { weight: 1, arbitrary: fc.uuid() }) : fc.uuid()
  if (schema.format === 'email') return fc.oneof(fc.emailAddress(), fc.constantFrom('jane@acme.example', 'a@b', '@', 'x'.repeat(250) + '@a.example'))
  if (schema.format === 'date') return fc.oneof(fc.date({ noInvalidDate: true }).map(isoDate), fc.constantFrom('2026-02-30', '0000-01-01', '9999-12-31', '2024-02-29'))
  if (field === 'currency') return fc.constantFrom('USD', 'EUR', 'XXX', 'ABC', 'usd', 'US')
  if (field === 'country' || field === 'country_of_incorporation') return fc.constantFrom('US', 'GB', 'ZZ', 'AA', 'us', 'XK')
  if (schema.pattern !== undefined) {
    try {
      // Dates that match the pattern without being real dates (2019-02-31, 0000-01-01) come from here too.
      return fc.stringMatching(new RegExp(schema.pattern), { size: 'small' })
    } catch {
      // A pattern fast-check cannot generate from (a look-ahead): fall through to plain text.
    }
  }
  return fc.string({ unit: 'grapheme', minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 60) })
}

/** An object with some of the schema's fields, each plausible. */
const plausibleObjectText = (schema: Schema, target: FuzzTarget): fc.Arbitrary<string> => {
  const properties = Object.entries(schema.properties ?? {})
  if (properties.length === 0) return fc.constant('{}')
  const required = new Set(schema.required ?? [])
  return fc
    .tuple(...properties.map(([name, s]) => fc.option(plausibleText(s, name, target), { freq: required.has(name) ? 12 : 3, nil: undefined })))
    .map((values) => `{${properties.flatMap(([name], i) => (values[i] === undefined ? [] : [`${jsonString(name)}:${values[i]}`])).join(',')}}`)
}

/** The schema of `op`'s body, or undefined when it takes none the table knows of. */
const bodySchemaOf = (op: Operation): Schema | undefined => {
  const codec = bodyCodecOf(op.operationId)
  return codec === undefined ? undefined : (jsonSchemaOf(codec) as Schema)
}

/** Every field name the body schema of `op` mentions (through anyOf/oneOf). */
const fieldNamesOf = (schema: Schema | undefined): readonly string[] => {
  if (schema === undefined) return []
  const nested = [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].flatMap(fieldNamesOf)
  return [...new Set([...Object.keys(schema.properties ?? {}), ...nested])]
}

const KEY_NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '', ' ', '\u0000', 'a'.repeat(1_000)] as const

/** Object text with the route's own field names (plus prototype keys) holding wrong types, and duplicates. */
const mutatedObjectText = (fields: readonly string[]): fc.Arbitrary<string> => {
  const key = fc.oneof(
    { weight: fields.length > 0 ? 6 : 0, arbitrary: fields.length > 0 ? fc.constantFrom(...fields) : fc.constant('x') },
    { weight: 2, arbitrary: fc.constantFrom(...KEY_NAMES) },
    { weight: 1, arbitrary: anyText(20) },
  )
  return fc.array(fc.tuple(key, nastyScalarText), { maxLength: 8 }).map((entries) => `{${entries.map(([k, v]) => `${jsonString(k)}:${v}`).join(',')}}`)
}

/** Documents that are hostile as a whole: prototype pollution, duplicates, nesting, non-objects, bad tokens. */
const nastyDocumentText = (fields: readonly string[]): fc.Arbitrary<string> => {
  const field = fields[0] ?? 'x'
  return fc.oneof(
    fc.constantFrom(
      '{"__proto__":{"admin":true,"status":"APPROVED"}}',
      '{"constructor":{"prototype":{"polluted":true}}}',
      `{"__proto__":null,${jsonString(field)}:1}`,
      `{${jsonString(field)}:1,${jsonString(field)}:"x",${jsonString(field)}:null}`,
      '{"a":1,"a":2}',
      'null', 'true', '0', '-0', '"a string"', '[]', '[{}]', '[1,2,3]', '{}',
      'NaN', 'Infinity', '{"a":NaN}', '{"a":Infinity}', "{'a':1}", '{a:1}', '{"a":1,}', '[1,]', '{"a":01}', '{"a":.5}', '{"a":+1}',
      '{"a":"\\x41"}', '{"a":"\\u12"}', '{"a":"\u0001"}', '\ufeff{}', '{}\u0000', '{} {}', '{}garbage', '/* c */{}', '{"a":1}\n{"b":2}',
      ' ', '\n', '\t{}\t', '', '{', '}', '[', '"', '{"', '{"a"', '{"a":', '{"a":1', '{"a":"b',
    ),
    fc
      .tuple(fc.constantFrom(64, 1_000, 10_000, 100_000), fc.constantFrom('array', 'object', 'field', 'open'))
      .map(([depth, shape]) => {
        switch (shape) {
          case 'array':
            return '['.repeat(depth) + ']'.repeat(depth)
          case 'object':
            return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)
          case 'field':
            return `{${jsonString(field)}:${'['.repeat(depth)}${']'.repeat(depth)}}`
          default:
            return '['.repeat(depth)
        }
      }),
    fc.integer({ min: 10_000, max: 60_000 }).map((n) => `[${'1,'.repeat(n)}1]`),
    fc.integer({ min: 1_000, max: 20_000 }).map((n) => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`),
  )
}

/** Bytes of a body, with a label for failure messages. */
export type FuzzBody = { readonly bytes: Buffer; readonly gzip?: boolean }

/** A body for `op`: near-valid objects, wrong types, hostile documents, truncations, bad bytes, nothing. */
export const bodyFor = (op: Operation, target: FuzzTarget): fc.Arbitrary<FuzzBody> => {
  const schema = bodySchemaOf(op)
  const fields = fieldNamesOf(schema)
  const plausible = schema === undefined ? mutatedObjectText(fields) : plausibleText(schema, '', target)
  const text = fc.oneof(
    { weight: 5, arbitrary: plausible },
    { weight: 3, arbitrary: mutatedObjectText(fields) },
    { weight: 2, arbitrary: nastyDocumentText(fields) },
    { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: plausible.chain((t) => fc.nat({ max: Math.max(0, t.length - 1) }).map((cut) => t.slice(0, cut))) },
  )
  return fc.oneof(
    { weight: 12, arbitrary: text.map((t): FuzzBody => ({ bytes: Buffer.from(t, 'utf8') })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...(fields.length > 0 ? fields : ['x'])), fc.uint8Array({ minLength: 1, maxLength: 16 }))
        .map(([f, junk]): FuzzBody => ({
          bytes: Buffer.concat([Buffer.from(`{${jsonString(f)}:"`), Buffer.from([0xff, 0xfe, 0xc0, 0xaf, 0xed, 0xa0, 0x80]), Buffer.from(junk), Buffer.from('"}')]),
        })),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes): FuzzBody => ({ bytes: Buffer.from(bytes) })) },
    { weight: 1, arbitrary: plausible.map((t): FuzzBody => ({ bytes: gzipSync(t), gzip: true })) },
  )
}

// ---------------------------------------------------------------------------------------------
// Query strings

const queryValue = (name: string, schema: Schema | undefined, target: FuzzTarget): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: schema === undefined ? 0 : 4, arbitrary: schema === undefined ? fc.constant('') : plausibleString(schema.anyOf?.[0] ?? schema, name, target).map(percentEncode) },
    { weight: 2, arbitrary: fc.constantFrom('', '0', '-1', '1', '20', '100', '101', '1e3', '1.5', '0x10', '01', '%201', '1%20', '20abc', '1e308', '9007199254740993', '9'.repeat(400), '-0', 'NaN', 'true') },
    { weight: 3, arbitrary: cursorText },
    { weight: 2, arbitrary: fc.constantFrom(...NASTY_SEGMENTS) },
    { weight: 1, arbitrary: anyText(30).map(percentEncode) },
    { weight: 1, arbitrary: encodedHighBytes(10) },
    { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 4_000 }).map((n) => 'A'.repeat(n)) },
  )

const base64Url = (text: string | Buffer): string => Buffer.from(text).toString('base64url')

/**
 * Cursors: junk, and forged ones that are well formed (base64url JSON of a timestamp and an id)
 * with extreme timestamps, ids of the wrong shape or sequence ids beyond int8.
 */
const cursorText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', '$$$', 'bm90LWEtY3Vyc29y', 'W10', 'bnVsbA', 'e30', '%3D%3D', 'A'.repeat(513), 'W1tbW1tbW1tbW10', '_-_-'),
  fc.base64String({ maxLength: 40 }).map((s) => s.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')),
  fc
    .tuple(
      fc.oneof(
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        fc.constantFrom('1970-01-01T00:00:00.000Z', '-271821-04-20T00:00:00.000Z', '+275760-09-13T00:00:00.000Z', '0000-01-01T00:00:00.000Z', '-000001-01-01T00:00:00.000Z', 'not a date', ''),
      ),
      fc.oneof(
        fc.uuid(),
        fc.constantFrom('0000000000000000001', '9999999999999999999', '9223372036854775807', '9223372036854775808', '0000000000000000000', "1' or '1'='1", ''),
        fc.integer().map(String),
      ),
    )
    .map(([at, id]) => base64Url(JSON.stringify([at, id]))),
  fc.jsonValue({ maxDepth: 2 }).map((v) => base64Url(JSON.stringify(v))),
)

const queryFor = (op: Operation, target: FuzzTarget): fc.Arbitrary<string> => {
  const docs = operationDocOf(op.operationId)
  const filters = (docs?.query === undefined ? {} : ((jsonSchemaOf(docs.query) as Schema).properties ?? {})) as Record<string, Schema>
  const known = [...Object.keys(filters), ...(docs?.list === true ? ['limit', 'cursor'] : []), 'limit', 'cursor']
  const name = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...known) },
    {
      weight: 2,
      arbitrary: fc.constantFrom('limit[]', 'cursor[]', 'a[]', 'a[b]', 'limit[0]', '__proto__', 'constructor', '__proto__[x]', '', '%', '%E0%A4%A', 'x'.repeat(300), 'toString', 'LIMIT'),
    },
    { weight: 1, arbitrary: anyText(10).map(percentEncode) },
  )
  const pair = name.chain((n) =>
    fc.oneof(
      { weight: 8, arbitrary: queryValue(n, filters[n], target).map((v) => `${n}=${v}`) },
      { weight: 1, arbitrary: fc.constant(n) },
      { weight: 1, arbitrary: fc.constant(`${n}==`) },
    ),
  )
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant('') },
    { weight: 6, arbitrary: fc.array(pair, { minLength: 1, maxLength: 6 }).map((pairs) => `?${pairs.join('&')}`) },
    { weight: 1, arbitrary: fc.constantFrom('?', '??', '?&', '?&&&', '?=', '?#', '?limit=1#frag', '?limit=1;cursor=x') },
  )
}

// ---------------------------------------------------------------------------------------------
// Headers

type Headers = readonly (readonly [string, string])[]

const junkCredential: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', ' ', 'null', 'Bearer', 'lgk_', 'lgk_live_', 'lgk_live__', 'lgk_test_0000000000000000_' + 'a'.repeat(38), 'lgk_live_' + 'A'.repeat(16) + '_' + 'b'.repeat(38)),
  fc.integer({ min: 1_000, max: 7_000 }).map((n) => `lgk_live_${'a'.repeat(n)}`),
  anyText(40).map(utf8AsLatin1),
  highBytes(30),
)

/** Keys that look like `key` but are not it: tampered checksum, cut short, other environment, case. */
const nearMisses = (key: string): readonly string[] => [
  key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A'),
  key.slice(0, -1),
  `${key}A`,
  key.startsWith('lgk_live_') ? key.replace('lgk_live_', 'lgk_test_') : key.replace('lgk_test_', 'lgk_live_'),
  key.toUpperCase(),
  key.replace(/_/g, '-'),
]

const credentialsFor = (op: Operation, target: FuzzTarget): fc.Arbitrary<Headers> => {
  const [first] = target.partnerKeys(op)
  const valid = ((): fc.Arbitrary<Headers> => {
    switch (op.auth) {
      case 'partner': {
        const keys = target.partnerKeys(op)
        const key = fc.oneof({ weight: 4, arbitrary: fc.constant(keys[0]) }, { weight: 1, arbitrary: fc.constantFrom(...keys) })
        return key.chain((k) =>
          fc.constantFrom<Headers>(
            [['Authorization', `Bearer ${k}`]],
            [['Authorization', `Bearer ${k}`]],
            [['X-Api-Key', k]],
            [['Authorization', `bearer \t${k} `]],
            [['Authorization', `Bearer ${k}`], ['X-Api-Key', 'lgk_live_junk']],
            [['Authorization', `Bearer ${target.internalToken}`], ['X-Api-Key', k]],
          ),
        )
      }
      case 'mint':
        return fc.constant<Headers>([['X-Partner-Mint-Key', target.mintSecret]])
      case 'internal':
        return fc.constant<Headers>([['Authorization', `Bearer ${target.internalToken}`]])
      // The fuzzer holds no console session: a forged one, refused 401 like any other.
      case 'session':
        return fc.constant<Headers>([['Cookie', '__Host-lendgate_operator=forged-session-token']])
      case 'none':
        return fc.constant<Headers>([])
    }
  })()
  const wrong = fc.oneof(
    fc.constant<Headers>([]),
    junkCredential.chain((junk) =>
      fc.constantFrom<Headers>([['Authorization', `Bearer ${junk}`]], [['Authorization', junk]], [['X-Api-Key', junk]], [['X-Partner-Mint-Key', junk]]),
    ),
    fc.constantFrom(...nearMisses(first), ...nearMisses(target.mintSecret), ...nearMisses(target.internalToken)).chain((miss) =>
      fc.constantFrom<Headers>([['Authorization', `Bearer ${miss}`]], [['X-Api-Key', miss]], [['X-Partner-Mint-Key', miss]]),
    ),
    fc.constantFrom<Headers>(
      [['Authorization', 'Basic dXNlcjpwYXNz']],
      [['Cookie', '__Host-lendgate_operator=forged-session-token']],
      [['Authorization', `Bearer ${first}`], ['Authorization', `Bearer ${target.internalToken}`]],
      [['X-Api-Key', target.mintSecret]],
      [['X-Partner-Mint-Key', target.internalToken]],
      [['Authorization', `Bearer ${target.mintSecret}`]],
      [['Authorization', `Bearer ${first}`]],
      [['Authorization', `Bearer ${target.internalToken}`]],
    ),
  )
  return fc.oneof({ weight: 6, arbitrary: valid }, { weight: 2, arbitrary: wrong })
}

const CONTENT_TYPES = [
  'application/json; charset=utf-8', 'application/json; charset=utf-16le', 'application/json; charset=latin1', 'application/json; charset=bogus-enc',
  'APPLICATION/JSON', 'application/json;;', 'application/json, text/plain', 'text/plain', 'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=----x', 'application/merge-patch+json', 'application/vnd.api+json', 'application/problem+json', '', 'json',
  '*/*', 'application/xml', 'application/json; charset="utf-8"', 'application/json; boundary=x', 'text/json',
] as const

const IDEMPOTENCY_KEYS = ['fuzz-replay-1', 'fuzz-replay-2', '', ' ', 'a'.repeat(255), 'a'.repeat(256), 'key with spaces', '%00', '\t', 'ключ'] as const

const optionalHeaders = (hasBody: boolean, gzip: boolean): fc.Arbitrary<Headers> =>
  fc
    .record({
      contentType: fc.oneof(
        { weight: hasBody ? 10 : 1, arbitrary: fc.constant('application/json') },
        { weight: 3, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
        { weight: hasBody ? 1 : 8, arbitrary: fc.constant(undefined) },
      ),
      idempotencyKey: fc.oneof(
        { weight: 4, arbitrary: fc.constant(undefined) },
        { weight: 2, arbitrary: fc.uuid() },
        { weight: 2, arbitrary: fc.constantFrom(...IDEMPOTENCY_KEYS) },
        { weight: 1, arbitrary: anyText(30).map(utf8AsLatin1) },
        { weight: 1, arbitrary: fc.integer({ min: 256, max: 6_000 }).map((n) => 'k'.repeat(n)) },
      ),
      requestId: fc.option(fc.oneof(fc.constantFrom('', '../../etc', 'a'.repeat(129), 'ok-id.1:2', '<script>', '%00'), anyText(20).map(utf8AsLatin1), highBytes(8))),
      accept: fc.option(fc.constantFrom('text/html', 'application/xml', '*/*', 'application/json;q=0', '', 'image/png', 'application/json')),
      contentEncoding: fc.oneof(
        { weight: gzip ? 10 : 0, arbitrary: fc.constant('gzip') },
        { weight: gzip ? 0 : 12, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'compress', 'bogus', 'gzip, gzip', 'GZIP') },
      ),
      duplicate: fc.option(fc.constantFrom<Headers>([['Content-Type', 'text/plain']], [['Idempotency-Key', 'second']], [['X-Request-Id', 'second']], [['Content-Type', 'application/json']])),
    })
    .map(({ contentType, idempotencyKey, requestId, accept, contentEncoding, duplicate }) => [
      ...(contentType === undefined ? [] : [['Content-Type', contentType] as const]),
      ...(idempotencyKey === undefined ? [] : [['Idempotency-Key', idempotencyKey] as const]),
      ...(requestId === null ? [] : [['X-Request-Id', requestId] as const]),
      ...(accept === null ? [] : [['Accept', accept] as const]),
      ...(contentEncoding === undefined ? [] : [['Content-Encoding', contentEncoding] as const]),
      ...(duplicate ?? []),
    ])

// ---------------------------------------------------------------------------------------------
// Whole requests

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE'] as const

/** The route's path with every parameter filled, under `/public/v1` sometimes, with path noise sometimes. */
const pathFor = (op: Operation, target: FuzzTarget): fc.Arbitrary<string> => {
  const segments = op.path.split('/').slice(1)
  return fc
    .tuple(
      fc.tuple(...segments.map((s) => (s.startsWith(':') ? pathParam(s.slice(1), target) : fc.constant(s)))),
      fc.boolean(),
      fc.oneof({ weight: 10, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constantFrom('/', '//', '/.', '/..', '/%2e', '/;', '%00', '/index.json') }),
    )
    .map(([filled, versioned, tail]) => {
      const path = `/${filled.join('/')}${tail}`
      return versioned && path.startsWith('/public/') ? `/public/v1${path.slice('/public'.length)}` : path
    })
}

/**
 * Node answers a request head over 16 KiB with a bodiless 431 before the app sees it; generated
 * heads stay under that (see the report of issue 9).
 */
const HEAD_LIMIT = 12_000
const headSize = (request: FuzzRequest): number => request.path.length + request.headers.reduce((n, [name, value]) => n + name.length + value.length + 4, 0)

/** A request aimed at `op`: its method mostly, its path with real or junk ids, a query, headers and a body. */
export const requestFor = (op: Operation, target: FuzzTarget): fc.Arbitrary<FuzzRequest> => {
  const takesBody = op.method !== 'GET'
  const body = fc.oneof(
    { weight: takesBody ? 10 : 1, arbitrary: bodyFor(op, target) },
    { weight: takesBody ? 1 : 6, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constant<FuzzBody>({ bytes: Buffer.alloc(0) }) },
  )
  return fc
    .record({
      method: fc.oneof({ weight: 10, arbitrary: fc.constant(op.method) }, { weight: 1, arbitrary: fc.constantFrom(...METHODS) }),
      path: pathFor(op, target),
      query: queryFor(op, target),
      credentials: credentialsFor(op, target),
      body,
      chunked: fc.oneof({ weight: 8, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    })
    .chain(({ method, path, query, credentials, body: b, chunked }) =>
      optionalHeaders(b !== undefined && b.bytes.length > 0, b?.gzip === true).map(
        (headers): FuzzRequest => ({
          method,
          path: `${path}${query}`,
          headers: [...credentials, ...headers],
          ...(b === undefined ? {} : { body: b.bytes, chunked }),
        }),
      ),
    )
    .filter((request) => headSize(request) < HEAD_LIMIT)
}

/** A path that no route has: junk segments under the known prefixes, or anywhere. */
export const strayRequest = (target: FuzzTarget, anyOp: Operation): fc.Arbitrary<FuzzRequest> =>
  fc
    .record({
      method: fc.constantFrom(...METHODS),
      prefix: fc.constantFrom('', '/public', '/public/v1', '/internal', '/health', '/public/parties', '/public/onboarding-sessions', '/docs', '/public/v2', '/PUBLIC'),
      segments: fc.array(fc.oneof(junkSegment, fc.constantFrom('loans', 'applications', 'api-keys', 'v1', 'openapi.json', 'addresses')), { maxLength: 5 }),
      query: queryFor(anyOp, target),
      credentials: credentialsFor(anyOp, target),
      body: fc.option(bodyFor(anyOp, target), { nil: undefined }),
    })
    .chain(({ method, prefix, segments, query, credentials, body }) =>
      optionalHeaders(body !== undefined && body.bytes.length > 0, body?.gzip === true).map(
        (headers): FuzzRequest => ({
          method,
          path: `${prefix}/${segments.join('/')}${query}`,
          headers: [...credentials, ...headers],
          ...(body === undefined ? {} : { body: body.bytes }),
        }),
      ),
    )
    .filter((request) => headSize(request) < HEAD_LIMIT)

// ---------------------------------------------------------------------------------------------
// Sending and judging

/** Sends `request` as is over a fresh connection; rejects if no complete answer comes within `timeoutMs`. */
export const sendRaw = (baseUrl: string, request: FuzzRequest, timeoutMs = 5_000): Promise<RawReply> =>
  new Promise((resolve, reject) => {
    const url = new URL(baseUrl)
    const headers: Record<string, string | string[]> = {}
    for (const [name, raw] of request.headers) {
      const value = /[^\t\x20-\x7e\x80-\xff]/.test(raw) ? utf8AsLatin1(raw) : raw
      const existing = headers[name]
      headers[name] = existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value]
    }
    if (request.body !== undefined) {
      if (request.chunked === true) headers['Transfer-Encoding'] = 'chunked'
      else headers['Content-Length'] = String(request.body.length)
    }
    let settled = false
    const settle = (outcome: () => void): void => {
      if (settled) return
      settled = true
      outcome()
    }
    const outgoing = httpRequest(
      { host: url.hostname, port: url.port, method: request.method, path: request.path, headers, agent: false, signal: AbortSignal.timeout(timeoutMs) },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () =>
          settle(() => resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') })),
        )
        response.on('error', (error) => settle(() => reject(error)))
      },
    )
    outgoing.on('error', (error) =>
      settle(() => reject(error.name === 'AbortError' || error.name === 'TimeoutError' ? new Error(`no answer within ${timeoutMs} ms (a hang)`) : error)),
    )
    if (request.body !== undefined && request.body.length > 0) outgoing.write(request.body)
    outgoing.end()
  })

/**
 * Headers every answer carries, as the app defines them; the content policy is left out because
 * the reference page (`/docs`, reachable by a stray path) sets its own.
 */
const EXPECTED_HEADERS = Object.entries(SECURITY_HEADERS)
  .filter(([name]) => name !== 'Content-Security-Policy')
  .map(([name, value]) => [name.toLowerCase(), value] as const)

/** Text that only a stack trace or a database error would put in a body. */
const INTERNALS = [
  /\n\s+at /,
  /    at /,
  /node_modules/,
  /\.ts:\d/,
  /\.js:\d/,
  /\binsert into\b/i,
  /\bselect .* from\b/i,
  /\bviolates\b/i,
  /syntax error at/i,
  /\bsqlstate\b/i,
  /invalid input syntax/i,
  /out of range for type/i,
  /\brelation "/i,
  /\bkysely\b/i,
  /TypeError|RangeError|ReferenceError|SyntaxError: /,
]

/** What is wrong with `reply` to `request`: empty when it is a proper answer. */
export const problemsWith = (request: FuzzRequest, reply: RawReply, secrets: readonly string[]): readonly string[] => {
  const problems: string[] = []
  if (reply.status >= 500) problems.push(`answered ${reply.status}`)
  if (reply.status < 200) problems.push(`answered ${reply.status}`)
  for (const [name, value] of EXPECTED_HEADERS) {
    if (reply.headers[name] !== value) problems.push(`header ${name} is ${String(reply.headers[name])}, not ${value}`)
  }
  const bodiless = request.method === 'HEAD' || reply.status === 204 || reply.status === 304
  if (bodiless) {
    if (reply.text !== '') problems.push('a body on an answer that has none')
  } else {
    const contentType = String(reply.headers['content-type'] ?? '')
    if (!contentType.startsWith('application/json')) problems.push(`Content-Type is ${contentType || 'missing'}`)
    let body: unknown
    try {
      body = JSON.parse(reply.text)
    } catch {
      problems.push('the body is not JSON')
    }
    if (reply.status >= 400) {
      const error = (body as { error?: unknown } | null | undefined)?.error
      if (typeof error !== 'string' || !/^[a-z][a-z0-9_]*$/.test(error)) problems.push('an error answer without a string `error` code')
    }
  }
  for (const pattern of INTERNALS) if (pattern.test(reply.text)) problems.push(`the body shows internals (${pattern})`)
  for (const secret of secrets) if (reply.text.includes(secret)) problems.push('the body contains a secret')
  return problems
}

/** `request` for a failure message: secrets replaced by their names, long parts cut. */
export const describeRequest = (request: FuzzRequest, secrets: Readonly<Record<string, string>>): string => {
  const hide = (text: string): string => Object.entries(secrets).reduce((t, [name, secret]) => t.split(secret).join(`<${name}>`), text)
  const cut = (text: string, max = 300): string => (text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text)
  const headers = request.headers.map(([n, v]) => `${n}: ${cut(hide(v), 120)}`).join(' | ')
  const body = request.body === undefined ? 'none' : `${request.body.length} bytes${request.chunked === true ? ', chunked' : ''}: ${cut(JSON.stringify(request.body.toString('latin1')))}`
  return `${request.method} ${cut(request.path)} [${headers}] body ${body}`
}
