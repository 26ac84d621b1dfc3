/**
 * What the tools report, in one shape, and a summary a person can read: grouped by rule, most
 * frequent first, each message once with the places it applies to (a tool's raw JSON is hundreds
 * of lines for one missing field).
 */

export type Severity = 'error' | 'warning' | 'info' | 'hint'

/** One problem a tool reported: the rule it broke, where (see `place`) and what it says. */
export type Finding = { readonly rule: string; readonly severity: Severity; readonly where: string; readonly message: string }

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'])

/** `~1` and `~0` of a JSON pointer segment (RFC 6901). */
const unescape = (segment: string): string => decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~')

/** The segments of a JSON pointer such as `#/paths/~1public~1applications/post`. */
export const pointerSegments = (pointer: string): string[] =>
  pointer
    .replace(/^#?\/?/, '')
    .split('/')
    .filter((segment) => segment !== '')
    .map(unescape)

/**
 * A place in a document as a reader looks for it: `POST /public/applications responses.201`
 * under `paths`, else the pointer (`#/components/schemas/Payment/oneOf`).
 */
export const place = (segments: readonly (string | number)[]): string => {
  const [root, path, method, ...rest] = segments.map(String)
  if (root === 'paths' && path !== undefined) {
    const operation = method === undefined ? path : METHODS.has(method) ? `${method.toUpperCase()} ${path}` : `${path} ${[method, ...rest].join('.')}`
    const inside = method !== undefined && METHODS.has(method) ? rest.join('.') : ''
    return inside === '' ? operation : `${operation} ${inside}`
  }
  return `#/${segments.join('/')}`
}

const count = (findings: readonly Finding[], severity: Severity): number => findings.filter((f) => f.severity === severity).length

/** "129 findings (0 errors, 129 warnings)". */
export const totals = (findings: readonly Finding[]): string => {
  const parts = (['error', 'warning', 'info', 'hint'] as const).flatMap((s) => {
    const n = count(findings, s)
    return n === 0 && (s === 'info' || s === 'hint') ? [] : [`${n} ${s}${n === 1 ? '' : 's'}`]
  })
  return `${findings.length} finding${findings.length === 1 ? '' : 's'} (${parts.join(', ')})`
}

const groupBy = <A>(items: readonly A[], key: (a: A) => string): [string, A[]][] => {
  const groups = new Map<string, A[]>()
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item])
  return [...groups].sort((a, b) => b[1].length - a[1].length)
}

/**
 * `title`, the totals, then per rule (most frequent first) each distinct message with its count
 * and the first `placesShown` places it applies to.
 */
export const summary = (title: string, findings: readonly Finding[], placesShown = 4): string => {
  const lines = [`${title}: ${totals(findings)}`]
  for (const [rule, ofRule] of groupBy(findings, (f) => `${f.rule} (${f.severity})`)) {
    lines.push(`  ${rule} ×${ofRule.length}`)
    for (const [message, ofMessage] of groupBy(ofRule, (f) => f.message)) {
      const places = ofMessage.slice(0, placesShown).map((f) => f.where)
      const more = ofMessage.length > placesShown ? `; … ${ofMessage.length - placesShown} more` : ''
      lines.push(`    ${message} ×${ofMessage.length}`, `      at ${places.join('; ')}${more}`)
    }
  }
  return lines.join('\n')
}
