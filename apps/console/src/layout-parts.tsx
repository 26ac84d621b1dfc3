import { Box, Paper, Typography } from '@mui/material'
import { useId, type ReactNode } from 'react'
import { Datagrid, Link, ListBase, useCreatePath, useRecordContext } from 'react-admin'
import { CursorPages } from './pages.js'

/** A value of the API as text: `—` for null or missing. */
export const text = (value: unknown): string => (value === null || value === undefined || value === '' ? '—' : String(value))

/** An instant (ISO 8601) as the operator's browser shows dates and times; a missing one as `—`. */
export const instant = (value: unknown): string => (typeof value === 'string' && value !== '' ? new Date(value).toLocaleString() : text(value))

/** A rate in basis points as a percentage, exactly (1250 → 12.50 %). */
export const percentOfBps = (bps: unknown): string =>
  typeof bps === 'number' && Number.isSafeInteger(bps) && bps >= 0 ? `${Math.trunc(bps / 100)}.${String(bps % 100).padStart(2, '0')} %` : text(bps)

/** A record's page heading (the one `h1`), with what the record is and its id. */
export const PageHeading = ({ children }: { readonly children: ReactNode }) => (
  <Typography component="h1" variant="h5" sx={{ mb: 2, overflowWrap: 'anywhere' }}>
    {children}
  </Typography>
)

/** A section of a record's page under its own `h2`, which names it for assistive technology. */
export const Section = (props: { readonly title: string; readonly children: ReactNode; readonly actions?: ReactNode }) => {
  const id = useId()
  return (
    <Paper component="section" aria-labelledby={id} variant="outlined" sx={{ p: 2, mb: 2 }}>
      <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: 2, mb: 1 }}>
        <Typography component="h2" variant="h6" id={id}>
          {props.title}
        </Typography>
        {props.actions}
      </Box>
      {props.children}
    </Paper>
  )
}

/** Labelled values as a definition list, in columns that fit a 1280-pixel screen. */
export const Facts = ({ items }: { readonly items: readonly (readonly [string, ReactNode])[] }) => (
  <Box component="dl" sx={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(230px, 1fr))', gap: 1.5, m: 0 }}>
    {items.map(([label, value]) => (
      <Box key={label}>
        <Typography component="dt" variant="caption" color="text.secondary">
          {label}
        </Typography>
        <Typography component="dd" variant="body2" sx={{ m: 0, overflowWrap: 'anywhere' }}>
          {value}
        </Typography>
      </Box>
    ))}
  </Box>
)

/** A figure shown large, with its label: what an operator must not miss (an APR, a finance charge). */
export const Figure = ({ label, value }: { readonly label: string; readonly value: string }) => (
  <Box sx={{ minWidth: 200 }}>
    <Typography variant="body2" color="text.secondary" component="p">
      {label}
    </Typography>
    <Typography variant="h4" component="p" sx={{ fontWeight: 600 }}>
      {value}
    </Typography>
  </Box>
)

/**
 * The id of the record in context as a link to its page (`resource`'s show page): a column of a
 * queue, reached by keyboard as any link is. `label` and `sortable` are read by the Datagrid's header.
 * With `idSource`, the link is to the record that field names (a request's loan); with `display`,
 * its text is that rather than the field as it is; with `nameSource`, its accessible name says that
 * field rather than the id (a record whose id is composite: a delivery's event).
 */
export const ShowLink = (props: {
  readonly resource: string
  readonly source: string
  readonly label: string
  readonly sortable?: boolean
  readonly title: string
  readonly idSource?: string
  readonly display?: (value: unknown) => string
  readonly nameSource?: string
}) => {
  const record = useRecordContext()
  const createPath = useCreatePath()
  if (record === undefined) return null
  const target = props.idSource === undefined ? record.id : record[props.idSource]
  if (target === null || target === undefined || target === '') return <>—</>
  const id = String(target)
  const shown = (props.display ?? text)(record[props.source])
  const name = `${props.title} ${props.nameSource === undefined ? id : text(record[props.nameSource])}`
  // The accessible name holds the visible text, so that a voice user can say what they see.
  return (
    <Link to={createPath({ resource: props.resource, id, type: 'show' })} aria-label={name.includes(shown) ? name : `${shown}: ${name}`} onClick={(event: React.MouseEvent) => event.stopPropagation()}>
      {shown}
    </Link>
  )
}

/** A link to a record's page by its id (a request's loan), read by keyboard as any link is. */
export const RecordLink = ({ resource, id, title }: { readonly resource: string; readonly id: string; readonly title: string }) => {
  const createPath = useCreatePath()
  return (
    <Link to={createPath({ resource, id, type: 'show' })} aria-label={`${title} ${id}`}>
      {id}
    </Link>
  )
}

/**
 * A list of a record's page (a session's documents, a loan's schedule), read a page at a time by
 * cursor like the queues, kept out of the page's address: several live on one page.
 */
export const RecordsTable = (props: { readonly resource: string; readonly filter: Readonly<Record<string, unknown>>; readonly perPage?: number; readonly empty: string; readonly children: ReactNode }) => (
  <ListBase resource={props.resource} filter={props.filter} perPage={props.perPage ?? 10} disableSyncWithLocation storeKey={false}>
    <Datagrid bulkActionButtons={false} rowClick={false} size="small" empty={<Typography variant="body2">{props.empty}</Typography>}>
      {props.children}
    </Datagrid>
    <CursorPages />
  </ListBase>
)
