import { Box, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material'
import { Datagrid, DateField, List, NumberField, regex, SelectInput, Show, TextField, TextInput, useRecordContext } from 'react-admin'
import { DecisionButton } from './decisions.js'
import { Facts, instant, PageHeading, Section, ShowLink, text } from './layout-parts.js'
import { CursorPages } from './pages.js'
import { QueueFilters, trimmed, UUID } from './queue-filters.js'

/** The API's delivery statuses (`status`, the `status` filter of `GET /internal/webhook-deliveries`). */
export const DELIVERY_STATUSES = [
  { id: 'pending', name: 'Pending' },
  { id: 'delivered', name: 'Delivered' },
  { id: 'failed', name: 'Failed' },
] as const

/** An event id as the API checks it: a filter applies only once it is one. */
const EVENT_ID = /^evt_[0-9a-f]{32}$/

/** One attempt to send a delivery (`WebhookDeliveryDetail.attempt_log[]`). */
type Attempt = {
  readonly attempt_number: number
  readonly url: string
  readonly started_at: string
  readonly duration_ms: number
  readonly status_code: number | null
  readonly error: string | null
}

/**
 * Webhook deliveries (`GET /internal/webhook-deliveries`): every partner endpoint's deliveries of
 * events, in the order they were queued, failed ones first by default, by status and optionally one
 * endpoint's or one event's; each row opens the delivery's page, where it can be sent again.
 */
export const DeliveryQueue = () => (
  <List
    title="Webhook deliveries"
    filters={
      <QueueFilters
        choices={[<SelectInput key="status" source="status" label="Status" choices={[...DELIVERY_STATUSES]} emptyText="All" alwaysOn />]}
        typed={[
          <TextInput key="endpoint_id" source="endpoint_id" label="Endpoint id" parse={trimmed} validate={regex(UUID, 'An endpoint id is a UUID.')} alwaysOn />,
          <TextInput key="event_id" source="event_id" label="Event id" parse={trimmed} validate={regex(EVENT_ID, 'An event id is evt_ and 32 lower-case hex digits.')} alwaysOn />,
        ]}
      />
    }
    filterDefaultValues={{ status: 'failed' }}
    pagination={<CursorPages />}
    perPage={25}
    exporter={false}
    empty={false}
  >
    <Datagrid bulkActionButtons={false} rowClick={false} empty={<Typography sx={{ p: 2 }}>No deliveries with this status.</Typography>}>
      <ShowLink resource="webhook-deliveries" source="event_id" nameSource="event_id" label="Event" sortable={false} title="Open delivery" />
      <TextField sortable={false} source="type" label="Type" />
      <TextField sortable={false} source="status" label="Status" />
      <NumberField sortable={false} source="attempts" label="Attempts" />
      <TextField sortable={false} source="last_error" label="Last error" emptyText="—" />
      <TextField sortable={false} source="url" label="URL" sx={{ overflowWrap: 'anywhere' }} />
      <DateField sortable={false} source="created_at" label="Queued" showTime />
    </Datagrid>
  </List>
)

/** A delivery's attempts as a table, oldest first as the API lists them. */
const Attempts = ({ attempts }: { readonly attempts: readonly Attempt[] }) =>
  attempts.length === 0 ? (
    <Typography variant="body2">No attempts yet.</Typography>
  ) : (
    <Table size="small" aria-label="Attempts">
      <TableHead>
        <TableRow>
          <TableCell>Attempt</TableCell>
          <TableCell>Started</TableCell>
          <TableCell align="right">Duration (ms)</TableCell>
          <TableCell>Answer</TableCell>
          <TableCell>Error</TableCell>
          <TableCell>URL</TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {attempts.map((a) => (
          <TableRow key={a.attempt_number}>
            <TableCell component="th" scope="row">
              {a.attempt_number}
            </TableCell>
            <TableCell>{instant(a.started_at)}</TableCell>
            <TableCell align="right">{text(a.duration_ms)}</TableCell>
            <TableCell>{a.status_code === null ? 'No answer' : `HTTP ${a.status_code}`}</TableCell>
            <TableCell>{text(a.error)}</TableCell>
            <TableCell sx={{ overflowWrap: 'anywhere' }}>{text(a.url)}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  )

const DeliveryDetail = () => {
  const record = useRecordContext()
  if (record === undefined) return null
  const endpointId = String(record['webhook_endpoint_id'] ?? '')
  const eventId = String(record['event_id'] ?? '')
  // Until the page's read answers, the record may be the queue's row, without the attempts.
  const attempts = record['attempt_log'] as readonly Attempt[] | undefined
  const sendAgain = (
    <DecisionButton
      label="Send again"
      target={eventId}
      path={() => `internal/webhook-endpoints/${encodeURIComponent(endpointId)}/deliveries/${encodeURIComponent(eventId)}/retry`}
      done={(answer) => `The delivery is queued to be sent now: its status is ${text(answer['status'])}.`}
    />
  )
  return (
    <Box sx={{ p: 2 }}>
      <PageHeading>Webhook delivery {eventId}</PageHeading>
      <Section title="Delivery" actions={sendAgain}>
        <Facts
          items={[
            ['Status', text(record['status'])],
            ['Event type', text(record['type'])],
            ['Event', eventId],
            ['Attempts', text(record['attempts'])],
            ['Last error', text(record['last_error'])],
            ['Next attempt', instant(record['next_attempt_at'])],
            ['Queued', instant(record['created_at'])],
            ['Endpoint', endpointId],
            ['URL', text(record['url'])],
            ['API client', text(record['api_client_id'])],
            ['Party', text(record['party_id'])],
            ['Data', record['livemode'] === false ? 'Test' : record['livemode'] === true ? 'Live' : '—'],
          ]}
        />
        <Typography variant="body2" sx={{ mt: 2 }}>
          Sending again queues the delivery to be sent now, whatever its status; the partner's endpoint may receive the event more than once.
        </Typography>
      </Section>
      <Section title="Attempts">{attempts === undefined ? <Typography variant="body2">Reading the attempts…</Typography> : <Attempts attempts={attempts} />}</Section>
    </Box>
  )
}

/**
 * A webhook delivery (`GET /internal/webhook-endpoints/{endpoint}/deliveries/{event}`): its status,
 * the partner's endpoint and what went wrong, and each attempt as a table. Sending it again (`POST
 * …/retry`) waits for the server's answer, then shows the delivery as it is now; the server refuses
 * a role without `operate_rails`, in its own words.
 */
export const DeliveryPage = () => (
  <Show title="Webhook delivery" actions={false} component="div">
    <DeliveryDetail />
  </Show>
)
