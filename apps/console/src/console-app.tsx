import { useMemo } from 'react'
import { Admin, Resource, type DataProvider } from 'react-admin'
import { ApplicationPage } from './application-page.js'
import { ApprovalQueue, RequestPage } from './approvals.js'
import { authProvider } from './auth-provider.js'
import { cursorDataProvider } from './data-provider.js'
import { LoanPage, LoanQueue } from './loans.js'
import { LoginPage } from './login-page.js'
import { DecisionQueue, ReviewQueue } from './queues.js'
import { SessionPage } from './session-page.js'
import { consoleTheme } from './theme.js'
import { DeliveryPage, DeliveryQueue } from './webhook-deliveries.js'
import { ConsoleLayout, useWorld } from './world-switch.js'

/** What the console never asks of its data provider: each action is a request of its own (`api`). */
const notAsked = (method: string) => async (): Promise<never> => {
  throw new Error(`the console does not ${method} through its data provider`)
}

/** A data provider for one world: reads by cursor and by id, no writes. */
const worldDataProvider = (): DataProvider => ({
  ...cursorDataProvider(),
  getMany: notAsked('getMany'),
  getManyReference: notAsked('getManyReference'),
  create: notAsked('create'),
  update: notAsked('update'),
  updateMany: notAsked('updateMany'),
  delete: notAsked('delete'),
  deleteMany: notAsked('deleteMany'),
})

/**
 * The operator console (issue 60, docs/console.md): react-admin over the API's internal routes,
 * signed in with a named operator's console session. Switching the world ("Test data") mounts the
 * app afresh with a data provider of its own: nothing read in one world stays on screen or in a
 * cache in the other, and every page reads again (the address, a hash route, is kept).
 */
export const ConsoleApp = () => {
  const world = useWorld()
  const dataProvider = useMemo(() => worldDataProvider(), [world])
  return (
    <Admin
      key={world}
      title="Lendgate console"
      authProvider={authProvider}
      dataProvider={dataProvider}
      loginPage={LoginPage}
      layout={ConsoleLayout}
      theme={consoleTheme}
      requireAuth
      disableTelemetry
    >
      <Resource name="onboarding-sessions" list={ReviewQueue} show={SessionPage} options={{ label: 'Onboarding review' }} />
      <Resource name="applications" list={DecisionQueue} show={ApplicationPage} options={{ label: 'Credit decisions' }} />
      <Resource name="loans" list={LoanQueue} show={LoanPage} options={{ label: 'Loans' }} />
      <Resource name="operator-requests" list={ApprovalQueue} show={RequestPage} options={{ label: 'Approvals' }} />
      <Resource name="webhook-deliveries" list={DeliveryQueue} show={DeliveryPage} options={{ label: 'Webhook deliveries' }} />
    </Admin>
  )
}
