import type { ReactNode } from 'react'
import { Datagrid, DateField, FunctionField, List, NumberField, SelectInput, TextField } from 'react-admin'
import { ShowLink } from './layout-parts.js'
import { formatMinor } from './money.js'
import { CursorPages } from './pages.js'
import { QueueFilters } from './queue-filters.js'

/**
 * A queue: the records of a list route by status (`SUBMITTED` first), oldest first as the API
 * lists them, a page at a time by cursor; its columns never sort (the API does not). Each record is
 * decided on its own page, where the reviewer sees all of it first.
 */
const Queue = (props: { readonly title: string; readonly statuses: readonly string[]; readonly children: ReactNode }) => (
  <List
    title={props.title}
    filters={<QueueFilters choices={[<SelectInput key="status" source="status" label="Status" choices={props.statuses.map((id) => ({ id, name: id }))} alwaysOn />]} />}
    filterDefaultValues={{ status: 'SUBMITTED' }}
    pagination={<CursorPages />}
    perPage={25}
    exporter={false}
  >
    <Datagrid bulkActionButtons={false} rowClick={false}>
      {props.children}
    </Datagrid>
  </List>
)

/** Onboarding sessions awaiting review (`GET /internal/onboarding-sessions`); each opens its page, to approve or reject there. */
export const ReviewQueue = () => (
  <Queue title="Onboarding review" statuses={['IN_PROGRESS', 'SUBMITTED', 'APPROVED', 'REJECTED']}>
    <ShowLink resource="onboarding-sessions" source="session_id" label="Session" sortable={false} title="Open session" />
    <TextField sortable={false} source="country_of_incorporation" label="Country" />
    <TextField sortable={false} source="status" label="Status" />
    <DateField sortable={false} source="submitted_at" label="Submitted" showTime />
  </Queue>
)

/** Loan applications awaiting a credit decision (`GET /internal/applications`); each opens its page, to approve or decline there. */
export const DecisionQueue = () => (
  <Queue title="Credit decisions" statuses={['DRAFT', 'SUBMITTED', 'APPROVED', 'DECLINED', 'WITHDRAWN']}>
    <ShowLink resource="applications" source="application_id" label="Application" sortable={false} title="Open application" />
    <FunctionField sortable={false} label="Amount" render={(record) => formatMinor(record['amount'], record['currency'])} />
    <NumberField sortable={false} source="term_months" label="Term (months)" />
    <TextField sortable={false} source="status" label="Status" />
    <DateField sortable={false} source="submitted_at" label="Submitted" showTime />
  </Queue>
)
