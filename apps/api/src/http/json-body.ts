import bourne from '@hapi/bourne'
import * as E from 'fp-ts/lib/Either.js'
import type { InvalidRequest } from '@lendgate/core'

/** How deeply a request body may nest arrays and objects; no route's input goes past four. */
export const MAX_JSON_DEPTH = 32

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const MINUS = 0x2d

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39
/** A character of a JSON number after its first: digits, `.`, `e`, `E`, `+`, `-`. */
const continuesNumber = (c: number): boolean => isDigit(c) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === MINUS
const isIntegerLiteral = (token: string): boolean => /^-?\d+$/.test(token)

/** The index of the quote that closes the string opening at `open` (the text's length if none does). */
const endOfString = (text: string, open: number): number => {
  for (let i = open + 1; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === BACKSLASH) i++
    else if (c === QUOTE) return i
  }
  return text.length
}

/** What a body's text holds that JSON.parse would accept and the API does not. */
type Excess = { readonly _tag: 'TooDeep' } | { readonly _tag: 'NotAnInteger'; readonly literal: string; readonly start: number }

/**
 * One pass over a JSON text outside its strings, stopping at the first nesting level past
 * `MAX_JSON_DEPTH` and otherwise noting the first number that is not an integer literal. It
 * runs before parsing, so a body of half a million nested arrays costs this scan to the 33rd
 * bracket, not a parse; the depth is checked to the end before anything is parsed at all.
 */
const excessIn = (text: string): Excess | undefined => {
  let depth = 0
  let notAnInteger: Excess | undefined
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) i = endOfString(text, i)
    else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > MAX_JSON_DEPTH) return { _tag: 'TooDeep' }
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) depth--
    else if (c === MINUS || isDigit(c)) {
      const start = i
      while (i + 1 < text.length && continuesNumber(text.charCodeAt(i + 1))) i++
      const literal = text.slice(start, i + 1)
      if (notAnInteger === undefined && !isIntegerLiteral(literal)) notAnInteger = { _tag: 'NotAnInteger', literal, start }
    }
  }
  return notAnInteger
}

const invalid = (detail: string, param?: string): InvalidRequest => (param === undefined ? { _tag: 'InvalidRequest', detail } : { _tag: 'InvalidRequest', detail, param })

const NOT_JSON = 'The request body is not valid JSON (an object or array is expected).'

/** A JSON string no accepted body holds (string fields refuse NUL), put where a number was to find its field. */
const MARKER = '\u0000not an integer literal'

/** The path (`payments.0.amount`) to the first `MARKER` in a parsed body. */
const pathToMarker = (value: unknown, path: readonly string[] = []): readonly string[] | undefined => {
  if (value === MARKER) return path
  if (typeof value !== 'object' || value === null) return undefined
  for (const [key, child] of Object.entries(value)) {
    const found = pathToMarker(child, [...path, key])
    if (found !== undefined) return found
  }
  return undefined
}

const parse = (text: string): unknown => bourne.parse(text, { protoAction: 'error' })

/** The field that holds a number written as `literal` at `start`, when the rest of the body parses. */
const fieldOf = (text: string, literal: string, start: number): string | undefined => {
  try {
    const path = pathToMarker(parse(`${text.slice(0, start)}${JSON.stringify(MARKER)}${text.slice(start + literal.length)}`))
    return path === undefined || path.length === 0 ? undefined : path.join('.')
  } catch {
    return undefined
  }
}

/** The 400 for a number that is not an integer literal, naming its field when it can be found. */
const notAnInteger = (text: string, literal: string, start: number): InvalidRequest => {
  const field = fieldOf(text, literal, start)
  const rule = `must be an integer literal, amounts in minor units (no fraction or exponent): found ${literal.slice(0, 40)}`
  return field === undefined ? invalid(`Numbers in a request body ${rule}.`) : invalid(`${field} ${rule}.`, field)
}

/**
 * A JSON request body from its text (decoded and decompressed by the body parser): an object or
 * an array (an empty text is `{}`), nested at most `MAX_JSON_DEPTH` levels, with every number an
 * integer literal (every number the API takes is an integer, amounts in minor units: `1.0`,
 * `1e2` and `100.0000000000000001` would parse as integers, so they are refused as written,
 * naming the field),
 * and no `__proto__` key (bourne). Anything else is a 400 `invalid_request` saying which rule
 * it broke.
 */
export const parseJsonBody = (text: string): E.Either<InvalidRequest, unknown> => {
  if (text.trim() === '') return E.right({})
  const excess = excessIn(text)
  if (excess?._tag === 'TooDeep') return E.left(invalid(`The request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.`))
  if (excess?._tag === 'NotAnInteger') return E.left(notAnInteger(text, excess.literal, excess.start))
  try {
    const parsed: unknown = parse(text)
    return typeof parsed === 'object' && parsed !== null ? E.right(parsed) : E.left(invalid(NOT_JSON))
  } catch {
    return E.left(invalid(NOT_JSON))
  }
}
