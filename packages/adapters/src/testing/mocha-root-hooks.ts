import { closeTestDatabases } from './test-databases.js'

/** Loaded by `.mocharc.json` (`require`): releases the shared test databases after the run. */
export const mochaHooks = {
  afterAll: async (): Promise<void> => {
    await closeTestDatabases()
  },
}
