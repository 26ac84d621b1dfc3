/**
 * Run by tick-shape.test.ts in a process of its own, with `--allow-natives-syntax --expose-gc`:
 * queues many ticks, idles through full collections with no tick object alive (as a server does
 * between bursts), queues ticks again, and prints V8's feedback of `process.nextTick`. With the
 * argument `hold`, the API's tick-shape module is loaded first, as the API's entry points load it.
 */
const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) throw new Error('run with --expose-gc')
// V8's own syntax, parsed at run time (the flag is the process's): TypeScript cannot read it.
const debugPrint = new Function('f', '%DebugPrint(f)') as (f: unknown) => void

if (process.argv[2] === 'hold') await import('../../src/tick-shape.js')
const burst = () => {
  for (let i = 0; i < 10_000; i++) process.nextTick(() => undefined)
}
const pause = () => new Promise((resolve) => setTimeout(resolve, 5))

burst()
await pause()
// V8 keeps a hidden class alive for two full collections after its last use; an idle spell
// of a server runs more than that.
for (let i = 0; i < 8; i++) {
  gc()
  await pause()
}
burst()
await pause()
debugPrint(process.nextTick)
