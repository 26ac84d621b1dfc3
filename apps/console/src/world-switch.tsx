import { Alert, Chip, FormControlLabel, Switch } from '@mui/material'
import { useSyncExternalStore, type ReactNode } from 'react'
import { AppBar, Layout, LoadingIndicator, useGetIdentity, UserMenu } from 'react-admin'
import { consoleWorld, type World } from './world.js'

/** The world this tab reads and acts on; a change re-renders whoever reads it. */
export const useWorld = (): World => useSyncExternalStore(consoleWorld.subscribe, consoleWorld.current)

/** "Test data", on or off: the switch between the live world and the test world of test keys. */
const WorldSwitch = () => {
  const world = useWorld()
  return (
    <FormControlLabel
      sx={{ mr: 1 }}
      label="Test data"
      control={<Switch color="default" checked={world === 'test'} onChange={(event) => consoleWorld.set(event.target.checked ? 'test' : 'live')} slotProps={{ input: { role: 'switch' } }} />}
    />
  )
}

/**
 * The signed-in operator's menu (sign out): its button is named by what it shows, the operator's
 * e-mail and role, so a voice user can say what they see.
 */
const OperatorMenu = () => {
  const { identity } = useGetIdentity()
  return <UserMenu label={identity?.fullName === undefined ? 'Profile' : `${identity.fullName}: account menu`} />
}

/**
 * The app bar: the page's title, the world switch and, while the test world is on, a bar of
 * another colour with a mark that says so, so live and test are never taken for one another.
 */
const ConsoleAppBar = () => {
  const world = useWorld()
  return (
    <AppBar
      alwaysOn
      userMenu={<OperatorMenu />}
      color={world === 'test' ? 'warning' : 'primary'}
      toolbar={
        <>
          {world === 'test' ? <Chip label="TEST DATA" color="default" sx={{ fontWeight: 700, mr: 1, bgcolor: 'common.black', color: 'common.white' }} /> : null}
          <WorldSwitch />
          <LoadingIndicator />
        </>
      }
    />
  )
}

/** react-admin's layout with the console's app bar and, in the test world, a banner over every page. */
export const ConsoleLayout = ({ children }: { readonly children: ReactNode }) => {
  const world = useWorld()
  return (
    <Layout appBar={ConsoleAppBar}>
      {world === 'test' ? (
        <Alert severity="warning" variant="filled" role="status" sx={{ mb: 1 }}>
          Test data: you are reading and acting on the test world (records of partners' test keys), not the live book.
        </Alert>
      ) : null}
      {children}
    </Layout>
  )
}
