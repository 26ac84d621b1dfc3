/**
 * Which world the console reads and acts on (decision 128): the live world, or the test world of
 * the partners' test keys, which an internal request names with `Lendgate-Mode: test`. The choice
 * is the operator's, per browser tab: kept in `sessionStorage`, so a new tab starts live and a
 * reload keeps what the tab chose.
 */

export type World = 'live' | 'test'

/** The header an internal request names its world with; live without it. */
export const MODE_HEADER = 'Lendgate-Mode'

/** Where the tab keeps its choice. */
export const WORLD_STORAGE_KEY = 'lendgate.console.world'

/** What the store needs of `sessionStorage`. */
export type WorldStorage = Pick<Storage, 'getItem' | 'setItem'>

/** The chosen world, and who to tell when it changes (React's `useSyncExternalStore` shape). */
export type WorldStore = {
  readonly current: () => World
  readonly set: (world: World) => void
  readonly subscribe: (listener: () => void) => () => void
  /** The headers a request carries to act on the current world: none for live (the API's default). */
  readonly headers: () => Readonly<Record<string, string>>
}

/**
 * A world store over `storage`; anything stored but `test` is live, so a cleared or tampered
 * store never lands an operator in the test world unawares. A storage that refuses (a browser's
 * privacy mode) keeps the choice for this page only.
 */
export const worldStore = (storage: WorldStorage | undefined): WorldStore => {
  const read = (): World => {
    try {
      return storage?.getItem(WORLD_STORAGE_KEY) === 'test' ? 'test' : 'live'
    } catch {
      return 'live'
    }
  }
  let world = read()
  const listeners = new Set<() => void>()
  return {
    current: () => world,
    set: (next) => {
      if (next === world) return
      world = next
      try {
        storage?.setItem(WORLD_STORAGE_KEY, next)
      } catch {
        // Kept in memory: the choice holds until the page is reloaded.
      }
      for (const listener of [...listeners]) listener()
    },
    subscribe: (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    headers: (): Readonly<Record<string, string>> => (world === 'test' ? { [MODE_HEADER]: 'test' } : {}),
  }
}

const sessionStorageOrNone = (): WorldStorage | undefined => {
  try {
    return typeof sessionStorage === 'undefined' ? undefined : sessionStorage
  } catch {
    return undefined
  }
}

/** The console's world: this tab's choice. */
export const consoleWorld: WorldStore = worldStore(sessionStorageOrNone())
