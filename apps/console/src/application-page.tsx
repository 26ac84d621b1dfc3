import { Box, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material'
import { Link, Show, useCreatePath, useGetOne, useRecordContext } from 'react-admin'
import { previewSplits } from './chart-data.js'
import { SplitChart } from './charts.js'
import { DecisionButton } from './decisions.js'
import { Facts, Figure, instant, PageHeading, percentOfBps, Section, text } from './layout-parts.js'
import { formatMinor } from './money.js'

/** The Truth in Lending figures of a schedule (`disclosure`), null when the API gives none. */
type Disclosure = { readonly amount_financed: number; readonly finance_charge: number; readonly total_of_payments: number; readonly annual_percentage_rate: string } | null

/** The decisions on an application waiting for one: approve (books the loan), or decline with a reason. */
const ApplicationDecisions = () => (
  <Box sx={{ display: 'flex', gap: 1 }}>
    <DecisionButton label="Approve" path={(id) => `internal/applications/${id}/approve`} done="The application is approved: its loan is booked." />
    <DecisionButton
      label="Decline"
      color="error"
      path={(id) => `internal/applications/${id}/decline`}
      done="The application is declined."
      reason={{ title: 'Decline the application', field: 'reason' }}
    />
  </Box>
)

/** The schedule the loan would have if booked today (`GET /internal/applications/{id}/schedule-preview`). */
const SchedulePreview = ({ applicationId }: { readonly applicationId: string }) => {
  const { data: preview, isPending, error } = useGetOne('schedule-previews', { id: applicationId })
  if (isPending) return <Typography variant="body2">Loading the schedule…</Typography>
  if (error !== null && error !== undefined) return <Typography variant="body2" role="alert">{error instanceof Error ? error.message : 'The schedule could not be read.'}</Typography>
  if (preview === undefined) return null
  const currency = preview['currency']
  const disclosure = (preview['disclosure'] ?? null) as Disclosure
  const installments = (preview['installments'] ?? []) as readonly Record<string, unknown>[]
  return (
    <>
      <Section title="Disclosure (Truth in Lending)">
        {disclosure === null ? (
          <Typography variant="body2">The API gives no disclosure for this schedule.</Typography>
        ) : (
          <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 4 }}>
            <Figure label="Annual percentage rate (APR)" value={`${disclosure.annual_percentage_rate} %`} />
            <Figure label="Finance charge" value={formatMinor(disclosure.finance_charge, currency)} />
            <Figure label="Amount financed" value={formatMinor(disclosure.amount_financed, currency)} />
            <Figure label="Total of payments" value={formatMinor(disclosure.total_of_payments, currency)} />
          </Box>
        )}
      </Section>
      <Section title={`Schedule if booked on ${text(preview['start_date'])}`}>
        <Facts
          items={[
            ['Principal', formatMinor(preview['principal'], currency)],
            ['Payment', formatMinor(preview['payment_amount'], currency)],
            ['Total interest', formatMinor(preview['total_interest'], currency)],
            ['Total of payments', formatMinor(preview['total_of_payments'], currency)],
            ['Origination fee', formatMinor(preview['origination_fee'], currency)],
            ['Disbursed', formatMinor(preview['disbursed_amount'], currency)],
          ]}
        />
        <Box sx={{ mt: 2 }}>
          <SplitChart splits={previewSplits(installments)} currency={currency} caption="Principal and interest of each installment" />
        </Box>
        <Table size="small" aria-label="Schedule preview">
          <TableHead>
            <TableRow>
              <TableCell>Installment</TableCell>
              <TableCell>Due</TableCell>
              <TableCell align="right">Payment</TableCell>
              <TableCell align="right">Principal</TableCell>
              <TableCell align="right">Interest</TableCell>
              <TableCell align="right">Principal after</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {installments.map((i) => (
              <TableRow key={String(i['number'])}>
                <TableCell>{text(i['number'])}</TableCell>
                <TableCell>{text(i['due_date'])}</TableCell>
                <TableCell align="right">{formatMinor(i['payment'], currency)}</TableCell>
                <TableCell align="right">{formatMinor(i['principal'], currency)}</TableCell>
                <TableCell align="right">{formatMinor(i['interest'], currency)}</TableCell>
                <TableCell align="right">{formatMinor(i['balance_after'], currency)}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </Section>
    </>
  )
}

/** The loan an approval booked, as a link to its page. */
const LoanLink = ({ loanId }: { readonly loanId: string }) => {
  const createPath = useCreatePath()
  return <Link to={createPath({ resource: 'loans', id: loanId, type: 'show' })}>{loanId}</Link>
}

const ApplicationDetail = () => {
  const record = useRecordContext()
  if (record === undefined) return null
  const currency = record['currency']
  const decision = (record['decision'] ?? null) as { decision: string; reason: string | null; decided_by: string; decided_at: string } | null
  return (
    <Box sx={{ p: 2 }}>
      <PageHeading>Loan application {String(record.id)}</PageHeading>
      <Section title="Terms" actions={record['status'] === 'SUBMITTED' ? <ApplicationDecisions /> : null}>
        <Facts
          items={[
            ['Status', text(record['status'])],
            ['Amount', formatMinor(record['amount'], currency)],
            ['Term', `${text(record['term_months'])} months`],
            ['Interest rate', percentOfBps(record['interest_rate_bps'])],
            ['Origination fee', percentOfBps(record['origination_fee_bps'])],
            ['Purpose', text(record['purpose'])],
            ['Party', text(record['party_id'])],
            ['Product', text(record['product_id'])],
            ['Submitted', instant(record['submitted_at'])],
            ['Decision', decision === null ? 'None yet' : `${decision.decision} by ${decision.decided_by}, ${instant(decision.decided_at)}`],
            ...(decision?.reason ? ([['Reason', decision.reason]] as const) : []),
            ...(typeof record['loan_id'] === 'string' ? ([['Loan', <LoanLink loanId={record['loan_id']} />]] as const) : []),
          ]}
        />
      </Section>
      <SchedulePreview applicationId={String(record.id)} />
    </Box>
  )
}

/**
 * A loan application as a credit officer reads it before deciding (`GET /internal/applications/{id}`):
 * its terms, the schedule its loan would have with the APR and finance charge of its disclosure
 * shown large, and the decision, taken here.
 */
export const ApplicationPage = () => (
  <Show title="Loan application" actions={false} component="div">
    <ApplicationDetail />
  </Show>
)
