// Builds the console (apps/console/dist) when it is missing or older than its sources, so that
// `pnpm start` serves the console of the checkout it runs (docs/console.md). A build that fails
// is reported and the API starts without the console: /console/ then says how to build it.
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('.', import.meta.url))
const built = join(root, 'dist', 'index.html')

/** The newest modification time of `path`, a file or a folder's files. */
const newest = (path) => {
  const stats = statSync(path)
  if (!stats.isDirectory()) return stats.mtimeMs
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))))
}

const sources = ['index.html', 'vite.config.ts', 'package.json', 'src'].map((name) => join(root, name))
const stale = !existsSync(built) || Math.max(...sources.map(newest)) > statSync(built).mtimeMs

if (stale) {
  try {
    const { build } = await import('vite')
    await build({ root, logLevel: 'warn' })
    process.stderr.write('The console is built: /console/\n')
  } catch (error) {
    process.stderr.write(`The console could not be built, so /console/ is not served: ${error instanceof Error ? error.message : String(error)}\n`)
  }
}
