import type { AppState } from './context.js'

/**
 * Where a success body's resources are, for their `livemode`: `body`, the body itself or, when it
 * is a list envelope, each item of its `data`; `members`, each member of a body that pairs
 * resources (an approval's session and party); `none`, a body of no world (probes, documents).
 */
export type LivemodePlacement = 'body' | 'members' | 'none'

/** Whether the request acts on the live world: its `world`, else the caller key's environment, else live. */
export const livemodeOf = (state: Pick<AppState, 'world' | 'caller'>): boolean => (state.world ?? state.caller?.environment ?? 'live') === 'live'

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** `resource` with `livemode`, unless it already says its own (an API key says its environment's). */
const stamped = (livemode: boolean, resource: unknown): unknown => (isRecord(resource) && !('livemode' in resource) ? { ...resource, livemode } : resource)

/** `resources` with `livemode`: each item of a list envelope's `data`, else the object itself. */
const stampedResources = (livemode: boolean, resources: unknown): unknown =>
  isRecord(resources) && Array.isArray(resources.data) && 'next_cursor' in resources
    ? { ...resources, data: resources.data.map((item) => stamped(livemode, item)) }
    : stamped(livemode, resources)

/**
 * A success body with `livemode` on each of its resources (true for the live world, false for
 * the test world; docs/api.md "Live and test mode"), placed as `placement` says.
 */
export const withLivemode = (placement: LivemodePlacement, livemode: boolean, body: unknown): unknown => {
  switch (placement) {
    case 'body':
      return stampedResources(livemode, body)
    case 'members':
      return isRecord(body) ? Object.fromEntries(Object.entries(body).map(([name, member]) => [name, stamped(livemode, member)])) : body
    case 'none':
      return body
  }
}
