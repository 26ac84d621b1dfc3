import type { IdGenerator } from '../ports/id-generator.js'

/** UUID-shaped ids counting up from 1, so tests can predict them and their order. */
export const sequentialIds = (): IdGenerator => {
  let n = 0
  return {
    next: () => {
      n += 1
      return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`
    },
  }
}
