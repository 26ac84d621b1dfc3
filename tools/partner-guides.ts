/**
 * Refreshes the generated blocks of the partner guides in `docs/partners/` (the error catalogue,
 * the event types, the retry schedule, the rate limits, the magic values) from the code, with the
 * default settings: `npx -y pnpm@10.34.8 docs:partners`. A test fails while a committed guide
 * differs from what this writes.
 */
import { writeFileSync } from 'node:fs'
import { refreshedGuideFiles } from '../apps/api/src/openapi/guides.js'

for (const guide of refreshedGuideFiles()) {
  if (guide.refreshed === guide.now) continue
  writeFileSync(guide.path, guide.refreshed)
  process.stdout.write(`wrote ${guide.path}\n`)
}
