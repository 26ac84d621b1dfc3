import { Box, Typography } from '@mui/material'
import { Datagrid, DateField, FunctionField, List, NumberField, regex, SelectInput, Show, TextField, TextInput, useGetList, useRecordContext } from 'react-admin'
import { chargeable, reversible } from './action-preview.js'
import { RequestActionButton } from './action-request.js'
import { balancePoints, scheduleSplits } from './chart-data.js'
import { BalanceChart, SplitChart } from './charts.js'
import { bucketName, DELINQUENCY_BUCKETS, queueBucketName } from './delinquency.js'
import { Facts, instant, PageHeading, percentOfBps, RecordsTable, Section, ShowLink, text } from './layout-parts.js'
import { formatMinor } from './money.js'
import { CursorPages } from './pages.js'
import { PortfolioDelinquency } from './portfolio-delinquency.js'
import { QueueFilters, trimmed, UUID } from './queue-filters.js'

/** A money column of a loan's records, in the record's own currency. */
const Money = ({ source, label }: { readonly source: string; readonly label: string }) => (
  <FunctionField sortable={false} label={label} textAlign="right" render={(r) => formatMinor(r[source], r['currency'])} />
)

/** The API's loan statuses (`status`, the `status` filter of `GET /internal/loans`). */
const LOAN_STATUSES = [
  { id: 'ACTIVE', name: 'Active' },
  { id: 'PAID_OFF', name: 'Paid off' },
  { id: 'CHARGED_OFF', name: 'Charged off' },
] as const

/**
 * The orders of the queue other than oldest first (`sort` of `GET /internal/loans`), each sorted by
 * the server over the whole book and paged by its own cursors: a sort of the page on screen would
 * sort 25 loans, not the book.
 */
const LOAN_SORTS = [
  { id: 'oldest_unpaid_due_date', name: 'Oldest unpaid installment first' },
  { id: '-principal', name: 'Largest principal first' },
] as const

/**
 * The Loans page: the book's delinquency (a chart and a table per currency), then the queue
 * (`GET /internal/loans`): every party's loans, oldest first or in another order, by delinquency
 * bucket (All, or one bucket as of each loan's today, which holds active loans only), by status,
 * and optionally one party's; each row opens the loan's page.
 */
export const LoanQueue = () => (
  <>
    <PortfolioDelinquency />
    <List
      title="Loans"
      filters={
        <QueueFilters
          choices={[
            <SelectInput key="delinquency" source="delinquency" label="Delinquency" choices={[...DELINQUENCY_BUCKETS]} emptyText="All" alwaysOn />,
            <SelectInput key="status" source="status" label="Status" choices={[...LOAN_STATUSES]} emptyText="All" alwaysOn />,
            <SelectInput key="sort" source="sort" label="Sort by" choices={[...LOAN_SORTS]} emptyText="Oldest first" alwaysOn />,
          ]}
          typed={[<TextInput key="party_id" source="party_id" label="Party id" parse={trimmed} validate={regex(UUID, 'A party id is a UUID.')} alwaysOn />]}
        />
      }
      pagination={<CursorPages />}
      perPage={25}
      exporter={false}
      empty={false}
    >
      <Datagrid bulkActionButtons={false} rowClick={false} empty={<Typography sx={{ p: 2 }}>No loans match these filters.</Typography>}>
        <ShowLink resource="loans" source="loan_id" label="Loan" sortable={false} title="Open loan" />
        <TextField sortable={false} source="party_id" label="Party" />
        <TextField sortable={false} source="status" label="Status" />
        <Money source="principal" label="Principal" />
        <NumberField sortable={false} source="days_past_due" label="Days past due" />
        <FunctionField sortable={false} label="Bucket" render={queueBucketName} />
      </Datagrid>
    </List>
  </>
)

/** Everything of a loan's list a chart needs: its first 100 records (the API's largest page). */
const useAllOf = (resource: string, loanId: string) => useGetList(resource, { filter: { loan_id: loanId }, pagination: { page: 1, perPage: 100 } })

const ScheduleChart = ({ loanId, currency }: { readonly loanId: string; readonly currency: unknown }) => {
  const { data } = useAllOf('loan-schedule', loanId)
  return data === undefined ? null : <SplitChart splits={scheduleSplits(data)} currency={currency} caption="Principal and interest due of each installment" />
}

const BalanceHistoryChart = ({ loanId, currency }: { readonly loanId: string; readonly currency: unknown }) => {
  const { data, pageInfo } = useAllOf('loan-balances', loanId)
  if (data === undefined) return null
  return (
    <>
      <BalanceChart points={balancePoints(data)} currency={currency} />
      {pageInfo?.hasNextPage === true ? <Typography variant="body2">The chart shows the first 100 balances; the table pages through all of them.</Typography> : null}
    </>
  )
}

const LoanDetail = () => {
  const record = useRecordContext()
  if (record === undefined) return null
  const loanId = String(record.id)
  const currency = record['currency']
  const disclosure = (record['disclosure'] ?? null) as { annual_percentage_rate: string; finance_charge: number } | null
  return (
    <Box sx={{ p: 2 }}>
      <PageHeading>Loan {loanId}</PageHeading>
      <Section title="Summary" actions={chargeable(record) ? <RequestActionButton subject={{ kind: 'loan_charge_off', loan_id: loanId }} /> : null}>
        <Facts
          items={[
            ['Status', text(record['status'])],
            ['Principal', formatMinor(record['principal'], currency)],
            ['Payment', formatMinor(record['payment_amount'], currency)],
            ['Days past due', text(record['days_past_due'])],
            ['Delinquency', bucketName(record['delinquency_bucket'])],
            ['Interest rate', percentOfBps(record['interest_rate_bps'])],
            ['APR', disclosure === null ? '—' : `${disclosure.annual_percentage_rate} %`],
            ['Term', `${text(record['term_months'])} months`],
            ['Start date', text(record['start_date'])],
            ['First due date', text(record['first_due_date'])],
            ['Maturity date', text(record['maturity_date'])],
            ['Charged off on', text(record['charged_off_on'])],
            ['Party', text(record['party_id'])],
            ['Application', text(record['application_id'])],
            ['Time zone', text(record['time_zone'])],
            ['Booked', instant(record['created_at'])],
          ]}
        />
      </Section>
      <Section title="Schedule">
        <ScheduleChart loanId={loanId} currency={currency} />
        <RecordsTable resource="loan-schedule" filter={{ loan_id: loanId }} perPage={12} empty="No installments.">
          <NumberField sortable={false} source="installment_number" label="Installment" />
          <TextField sortable={false} source="due_date" label="Due" />
          <Money source="principal_due" label="Principal due" />
          <Money source="interest_due" label="Interest due" />
          <Money source="fees_due" label="Fees due" />
          <Money source="total_due" label="Total due" />
          <Money source="total_paid" label="Paid" />
          <TextField sortable={false} source="status" label="Status" />
        </RecordsTable>
      </Section>
      <Section title="Payments">
        <RecordsTable resource="loan-payments" filter={{ loan_id: loanId }} empty="No payments.">
          <TextField sortable={false} source="payment_id" label="Payment" />
          <TextField sortable={false} source="status" label="Status" />
          <Money source="amount" label="Amount" />
          <TextField sortable={false} source="effective_date" label="Effective" />
          <FunctionField sortable={false} label="Failure or return" render={(p) => text(p['failure_code'] ?? p['return_code'])} />
          <DateField sortable={false} source="created_at" label="Made" showTime />
          <FunctionField
            sortable={false}
            label="Actions"
            render={(p) => (reversible(p) ? <RequestActionButton subject={{ kind: 'payment_reversal', payment_id: String(p['payment_id']) }} /> : null)}
          />
        </RecordsTable>
      </Section>
      <Section title="Ledger">
        <RecordsTable resource="loan-transactions" filter={{ loan_id: loanId }} empty="No ledger entries.">
          <NumberField sortable={false} source="sequence" label="Sequence" />
          <TextField sortable={false} source="type" label="Type" />
          <TextField sortable={false} source="effective_date" label="Effective" />
          <Money source="amount" label="Amount" />
          <Money source="principal" label="Principal change" />
          <Money source="interest" label="Interest change" />
          <Money source="fees" label="Fees change" />
        </RecordsTable>
      </Section>
      <Section title="Balance history">
        <BalanceHistoryChart loanId={loanId} currency={currency} />
        <RecordsTable resource="loan-balances" filter={{ loan_id: loanId }} empty="No balances.">
          <TextField sortable={false} source="as_of" label="As of" />
          <Money source="principal_outstanding" label="Principal outstanding" />
          <Money source="interest_outstanding" label="Interest outstanding" />
          <Money source="fees_outstanding" label="Fees outstanding" />
          <Money source="past_due_amount" label="Past due" />
          <Money source="payoff_amount" label="Payoff" />
          <TextField sortable={false} source="next_due_date" label="Next due" emptyText="—" />
        </RecordsTable>
      </Section>
    </Box>
  )
}

/**
 * A loan (`GET /internal/loans/{id}`): its summary, then its schedule, payments, ledger and balance
 * history, each a table paged by cursor, the schedule and the balances also drawn. A charge-off of
 * the active loan, or a reversal of a payment that came in, is asked for here, and done once
 * another operator approves it (Approvals).
 */
export const LoanPage = () => (
  <Show title="Loan" actions={false} component="div">
    <LoanDetail />
  </Show>
)
