import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { partnerApiSource } from './partner-api-source.js'

/** Writes src/generated/partner-api.ts, the types of the partner document (`pnpm client:generate`). */
const target = fileURLToPath(new URL('../src/generated/partner-api.ts', import.meta.url))
writeFileSync(target, await partnerApiSource())
console.log(`wrote ${target}`)
