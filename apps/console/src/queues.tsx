import { Box } from '@mui/material'
import type { ReactNode } from 'react'
import { Datagrid, DateField, FunctionField, List, NumberField, SelectInput, TextField } from 'react-admin'
import { DecisionButton } from './decisions.js'
import { formatMinor } from './money.js'
import { CursorPages } from './pages.js'

/**
 * A queue: the records of a list route by status (`SUBMITTED` first), oldest first as the API
 * lists them, a page at a time by cursor; its columns never sort (the API does not).
 */
const Queue = (props: { readonly title: string; readonly statuses: readonly string[]; readonly children: ReactNode }) => (
  <List
    title={props.title}
    filters={[<SelectInput key="status" source="status" label="Status" choices={props.statuses.map((id) => ({ id, name: id }))} alwaysOn />]}
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

/** The decisions of a row, in one column. */
const Decisions = ({ children }: { readonly label: string; readonly children: ReactNode }) => <Box sx={{ display: 'flex', gap: 1 }}>{children}</Box>

/** Onboarding sessions awaiting review (`GET /internal/onboarding-sessions`), to approve or reject. */
export const ReviewQueue = () => (
  <Queue title="Onboarding review" statuses={['IN_PROGRESS', 'SUBMITTED', 'APPROVED', 'REJECTED']}>
    <TextField sortable={false} source="session_id" label="Session" />
    <TextField sortable={false} source="country_of_incorporation" label="Country" />
    <TextField sortable={false} source="status" label="Status" />
    <DateField sortable={false} source="submitted_at" label="Submitted" showTime />
    <Decisions label="Decision">
      <DecisionButton label="Approve" path={(id) => `internal/onboarding-sessions/${id}/approve`} done="The session is approved: its party is created." />
      <DecisionButton
        label="Reject"
        color="error"
        path={(id) => `internal/onboarding-sessions/${id}/reject`}
        done="The session is rejected."
        reason={{ title: 'Reject the onboarding session', field: 'reason' }}
      />
    </Decisions>
  </Queue>
)

/** Loan applications awaiting a credit decision (`GET /internal/applications`), to approve or decline. */
export const DecisionQueue = () => (
  <Queue title="Credit decisions" statuses={['DRAFT', 'SUBMITTED', 'APPROVED', 'DECLINED', 'WITHDRAWN']}>
    <TextField sortable={false} source="application_id" label="Application" />
    <FunctionField sortable={false} label="Amount" render={(record) => formatMinor(record['amount'], record['currency'])} />
    <NumberField sortable={false} source="term_months" label="Term (months)" />
    <TextField sortable={false} source="status" label="Status" />
    <DateField sortable={false} source="submitted_at" label="Submitted" showTime />
    <Decisions label="Decision">
      <DecisionButton label="Approve" path={(id) => `internal/applications/${id}/approve`} done="The application is approved: its loan is booked." />
      <DecisionButton
        label="Decline"
        color="error"
        path={(id) => `internal/applications/${id}/decline`}
        done="The application is declined."
        reason={{ title: 'Decline the application', field: 'reason' }}
      />
    </Decisions>
  </Queue>
)
