import { fileURLToPath } from 'node:url'

/** The NACHA files of moov-io/ach (Apache-2.0, see its LICENSE and README.md there), with a trailing slash. */
export const MOOV_FIXTURES = fileURLToPath(new URL('./fixtures/moov-io/', import.meta.url))
