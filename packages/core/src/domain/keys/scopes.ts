import * as t from 'io-ts'
import { arrayOf, jsonSchemaOf, withSchema } from '../foundations/codecs.js'

/** Spec §5.4. */
export const KNOWN_SCOPES = ['partner:api', 'keys:manage'] as const
/** What a use case or route can require. */
export type KnownScope = (typeof KNOWN_SCOPES)[number]

/** When the mint names none (spec §5.6). */
export const DEFAULT_SCOPES: readonly string[] = ['partner:api', 'keys:manage']

const NAMESPACES = new Set(KNOWN_SCOPES.map((scope) => scope.split(':')[0]))

/** A known scope, `*`, or `<namespace>:*` of a known namespace; anything else is refused at mint. */
export const isValidScope = (scope: string): boolean =>
  scope === '*' ||
  (KNOWN_SCOPES as readonly string[]).includes(scope) ||
  (scope.endsWith(':*') && NAMESPACES.has(scope.slice(0, -2)))

/** `*` grants all, `a:*` every `a:…` (spec §5.5). */
export const grants = (held: readonly string[], required: KnownScope): boolean =>
  held.some((scope) => scope === '*' || scope === required || (scope.endsWith(':*') && required.startsWith(scope.slice(0, -1))))

const Scope = withSchema(new t.Type<string, string, unknown>(
  'Scope',
  (u): u is string => typeof u === 'string' && isValidScope(u),
  (u, c) =>
    typeof u === 'string' && isValidScope(u)
      ? t.success(u)
      : t.failure(u, c, `is not a known scope (known: ${KNOWN_SCOPES.join(', ')}, *, or <namespace>:*)`),
  t.identity,
), { type: 'string', description: `a known scope (${KNOWN_SCOPES.join(', ')}), * or <namespace>:*` })

/** One to twenty; duplicates removed, order kept. */
export const Scopes = withSchema(new t.Type<readonly string[], readonly string[], unknown>(
  'Scopes',
  (u): u is readonly string[] => Array.isArray(u) && u.every((s) => Scope.is(s)),
  (u, c) => {
    const decoded = arrayOf(Scope, 1, 20).validate(u, c)
    return decoded._tag === 'Left' ? decoded : t.success([...new Set(decoded.right)])
  },
  t.identity,
), { type: 'array', items: jsonSchemaOf(Scope), minItems: 1, maxItems: 20, description: 'duplicates are removed' })
