import { inMemoryCoreDeps } from '@lendgate/core/testing'
import { codeInbox } from './code-inbox.js'
import { runJourney } from './journey.js'
import { runAndReport } from './report.js'

/**
 * The journey on the core's in-memory dependencies, with the service's own code inbox as the
 * verification-code sender. Ids, keys and the clock are the deterministic fakes, so the output
 * is the same on every run.
 */
const inbox = codeInbox()
process.exitCode = await runAndReport(runJourney({ ...inMemoryCoreDeps(), sender: inbox }, inbox))
