import { Admin, Resource, type DataProvider } from 'react-admin'
import { authProvider } from './auth-provider.js'
import { cursorDataProvider } from './data-provider.js'
import { LoginPage } from './login-page.js'
import { DecisionQueue, ReviewQueue } from './queues.js'

/** What the console never asks of its data provider: each record's page and action is a request of its own (`api`). */
const notListed = (method: string) => async (): Promise<never> => {
  throw new Error(`the console does not ${method} through its data provider`)
}

const dataProvider: DataProvider = {
  ...cursorDataProvider(),
  getOne: notListed('getOne'),
  getMany: notListed('getMany'),
  getManyReference: notListed('getManyReference'),
  create: notListed('create'),
  update: notListed('update'),
  updateMany: notListed('updateMany'),
  delete: notListed('delete'),
  deleteMany: notListed('deleteMany'),
}

/**
 * The operator console (issue 60, docs/console.md): react-admin over the API's internal routes,
 * signed in with a named operator's console session.
 */
export const ConsoleApp = () => (
  <Admin title="Lendgate console" authProvider={authProvider} dataProvider={dataProvider} loginPage={LoginPage} requireAuth disableTelemetry>
    <Resource name="onboarding-sessions" list={ReviewQueue} options={{ label: 'Onboarding review' }} />
    <Resource name="applications" list={DecisionQueue} options={{ label: 'Credit decisions' }} />
  </Admin>
)
