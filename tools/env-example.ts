/**
 * Writes `.env.example` at the repository's root from the configuration schema
 * (`environmentExample`): `npx -y pnpm@10.34.8 env:example`. A test fails while the committed
 * file differs from what this writes.
 */
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { environmentExample } from '../apps/api/src/config-docs.js'

const path = fileURLToPath(new URL('../.env.example', import.meta.url))
writeFileSync(path, environmentExample())
process.stdout.write(`wrote ${path}\n`)
