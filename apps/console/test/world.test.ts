import { expect } from 'chai'
import { WORLD_STORAGE_KEY, worldStore, type WorldStorage } from '../src/world.js'

/** A `sessionStorage` of one tab, in memory. */
const tabStorage = (initial: Record<string, string> = {}): WorldStorage & { readonly items: Record<string, string> } => {
  const items = { ...initial }
  return { items, getItem: (key) => items[key] ?? null, setItem: (key, value) => void (items[key] = value) }
}

describe('the console world store', () => {
  it('starts live, and sends no mode header while live', () => {
    const store = worldStore(tabStorage())
    expect([store.current(), store.headers()]).to.deep.equal(['live', {}])
  })

  it('switched to test, sends Lendgate-Mode: test, keeps the choice in the tab and tells its listeners once', () => {
    const storage = tabStorage()
    const store = worldStore(storage)
    const heard: string[] = []
    const stop = store.subscribe(() => heard.push(store.current()))
    store.set('test')
    store.set('test')
    expect([store.current(), store.headers(), storage.items[WORLD_STORAGE_KEY], heard]).to.deep.equal(['test', { 'Lendgate-Mode': 'test' }, 'test', ['test']])
    stop()
    store.set('live')
    expect([store.current(), store.headers(), heard]).to.deep.equal(['live', {}, ['test']])
    expect(worldStore(storage).current(), 'a reload of the tab').to.equal('live')
  })

  it("reads a reloaded tab's choice, and anything else stored, or a storage that refuses, as live", () => {
    expect(worldStore(tabStorage({ [WORLD_STORAGE_KEY]: 'test' })).current()).to.equal('test')
    expect(worldStore(tabStorage({ [WORLD_STORAGE_KEY]: 'TEST' })).current()).to.equal('live')
    const refusing: WorldStorage = {
      getItem: () => {
        throw new Error('SecurityError')
      },
      setItem: () => {
        throw new Error('QuotaExceededError')
      },
    }
    const store = worldStore(refusing)
    expect(store.current()).to.equal('live')
    store.set('test')
    expect(store.current(), 'kept for this page').to.equal('test')
    expect(worldStore(undefined).current()).to.equal('live')
  })
})
