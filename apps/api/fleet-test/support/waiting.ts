export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))

/** Polls `condition` every `everyMs` until it holds (true) or `ms` have passed (false). */
export const waitUntil = async (condition: () => boolean, ms: number, everyMs = 50): Promise<boolean> => {
  const deadline = Date.now() + ms
  while (!condition()) {
    if (Date.now() > deadline) return false
    await sleep(everyMs)
  }
  return true
}

/** Runs `task` for each item, at most `concurrency` at a time; rejects with the first failure once all have settled. */
export const forEachConcurrently = async <A>(items: readonly A[], concurrency: number, task: (item: A) => Promise<void>): Promise<void> => {
  const queue = [...items]
  const failures: unknown[] = []
  const worker = async (): Promise<void> => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) {
      try {
        await task(item)
      } catch (error) {
        failures.push(error)
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  if (failures.length > 0) throw failures[0]
}
