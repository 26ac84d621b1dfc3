import { createHook } from 'node:async_hooks'

/**
 * Imported by the API's and the worker's entry points: holds one of Node's own tick objects (what
 * `process.nextTick` queues) for the life of the process, so that the hidden classes V8 gives
 * them never die.
 *
 * Node 20 builds each tick object as a literal whose first two keys are computed (two symbols).
 * V8 reaches such an object's later hidden classes only through weak transitions, and the
 * feedback of the literal's keyed definitions goes from monomorphic straight to megamorphic the
 * first time it meets a different hidden class. When the process idles through a few full
 * collections with no tick object alive, the classes are collected; the next tick object gets new
 * ones, and from then on every `nextTick` defines three of its four properties through V8's
 * runtime: about 0.3 µs more a call (0.4 against 0.12 µs in a loop), about 3 µs of each API
 * request, for the rest of the process's life. The benchmark found it as `nextTick` at 5 to 6%
 * of the API's CPU in every round after the first, and at 0.5% while one tick object was held
 * (docs/benchmarks-history.md, "Sixteenth pass"; decision 61).
 *
 * The tick object is taken from a hook enabled for one `nextTick` call and disabled at once; no
 * hook is left installed. Its callback does nothing and has run.
 */
const capture = (): object | undefined => {
  let held: object | undefined
  const hook = createHook({
    init: (_asyncId, type, _triggerAsyncId, resource) => {
      if (type === 'TickObject' && held === undefined) held = resource as object
    },
  })
  hook.enable()
  try {
    process.nextTick(() => undefined)
  } finally {
    hook.disable()
  }
  return held
}

/** The tick object held (undefined only if this Node version made none through the hook). */
export const heldTickObject: object | undefined = capture()
