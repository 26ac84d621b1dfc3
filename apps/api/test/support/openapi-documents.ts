import { openApiDocuments, type DocumentOptions } from '../../src/openapi/document.js'
import { testConfig } from './test-server.js'

type Json = Record<string, unknown>

/** The partner and operator documents, and both as one document with every `$ref` resolvable. */
export type BothDocuments = {
  readonly documents: readonly Json[]
  /**
   * Both documents as one, by the paths the server serves (the partner document's relative to
   * `/public`, its unversioned server): they share no path, and a component of the same name is
   * the same schema.
   */
  readonly combined: Json
  /** `node` with every local `$ref` replaced by what it points at in `combined` (the documents have no cycles). */
  readonly resolved: (node: unknown) => unknown
}

/** Both documents, with the tests' configuration unless `options` says otherwise. */
export const bothDocuments = (options: DocumentOptions = { rateLimits: testConfig().rateLimits }): BothDocuments => {
  const { partner, operator } = openApiDocuments(options) as Record<'partner' | 'operator', Json>
  const documents = [partner, operator]
  const merged = (part: (document: Json) => unknown): Json => Object.assign({}, ...documents.map(part))
  const combined: Json = {
    paths: { ...Object.fromEntries(Object.entries(partner['paths'] as Json).map(([path, item]) => [`/public${path}`, item])), ...(operator['paths'] as Json) },
    webhooks: merged((d) => d['webhooks'] ?? {}),
    components: Object.fromEntries(['schemas', 'headers', 'parameters'].map((kind) => [kind, merged((d) => (d['components'] as Json)[kind])])),
  }
  const resolved = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(resolved)
    if (typeof node !== 'object' || node === null) return node
    const ref = (node as { $ref?: unknown }).$ref
    if (typeof ref === 'string' && ref.startsWith('#/')) {
      const target = ref
        .slice(2)
        .split('/')
        .reduce<unknown>((at, key) => (at as Json | undefined)?.[key], combined)
      if (target === undefined) throw new Error(`unresolvable $ref ${ref}`)
      return resolved(target)
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, resolved(v)]))
  }
  return { documents, combined, resolved }
}
