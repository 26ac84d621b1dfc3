// Builds the console (apps/console/dist) when it is missing or older than its sources or the
// lockfile, so that `pnpm start` serves the console of the checkout it runs (docs/console.md).
// The build goes to a folder of its own and replaces dist/ only once complete, so an API reading
// dist/ never sees half a build. A build that fails is reported, the stale build is removed, and
// the API starts without the console: /console/ then says how to build it.
import { existsSync, lstatSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('.', import.meta.url))
const dist = join(root, 'dist')
const built = join(dist, 'index.html')

/** The newest modification time of `path`, a file or a folder's files; links are not followed. */
const newest = (path) => {
  const stats = lstatSync(path)
  if (!stats.isDirectory()) return stats.mtimeMs
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))))
}

const sources = ['index.html', 'vite.config.ts', 'package.json', 'src', '../../pnpm-lock.yaml'].map((name) => join(root, name))

/** Whether the build is missing or older than what it is built from; anything unreadable says build. */
const stale = () => {
  try {
    return !existsSync(built) || Math.max(...sources.map(newest)) > lstatSync(built).mtimeMs
  } catch {
    return true
  }
}

if (stale()) {
  const next = join(root, `dist.${process.pid}`)
  try {
    const { build } = await import('vite')
    await build({ root, logLevel: 'warn', build: { outDir: next, emptyOutDir: true } })
    rmSync(dist, { recursive: true, force: true })
    renameSync(next, dist)
    process.stderr.write('The console is built: /console/\n')
  } catch (error) {
    rmSync(next, { recursive: true, force: true })
    rmSync(built, { force: true })
    process.stderr.write(`The console could not be built, so /console/ is not served: ${error instanceof Error ? error.message : String(error)}\n`)
  }
}
