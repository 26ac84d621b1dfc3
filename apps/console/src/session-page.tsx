import { Box, Typography } from '@mui/material'
import { DateField, FunctionField, Show, TextField, useRecordContext } from 'react-admin'
import { DecisionButton } from './decisions.js'
import { Facts, instant, PageHeading, RecordsTable, Section, text } from './layout-parts.js'

/** A contact of a session as the API shows it to a reviewer (`ReviewDetail.email`, `.phone`). */
type Contact = { readonly value: string; readonly verified: boolean; readonly verified_at: string | null } | null

const contact = (value: unknown): string => {
  const c = value as Contact | undefined
  if (c === null || c === undefined) return 'None given'
  return c.verified ? `${c.value}: verified ${instant(c.verified_at)}` : `${c.value}: not verified`
}

const verified = (value: unknown): string => {
  const c = value as Contact | undefined
  return c === null || c === undefined ? '—' : c.verified ? 'Yes' : 'No'
}

/** The decisions on a session waiting for review: approve, or reject with a reason. */
const SessionDecisions = () => (
  <Box sx={{ display: 'flex', gap: 1 }}>
    <DecisionButton label="Approve" path={(id) => `internal/onboarding-sessions/${id}/approve`} done="The session is approved: its party is created." />
    <DecisionButton
      label="Reject"
      color="error"
      path={(id) => `internal/onboarding-sessions/${id}/reject`}
      done="The session is rejected."
      reason={{ title: 'Reject the onboarding session', field: 'reason' }}
    />
  </Box>
)

const SessionDetail = () => {
  const record = useRecordContext()
  if (record === undefined) return null
  const review = (record['review'] ?? null) as { decision: string; reviewed_by: string; reason: string | null; decided_at: string } | null
  // Until the page's read answers, the record may be the queue's row, without the detail's fields.
  const profile = (record['applicant_profile'] ?? null) as Record<string, unknown> | null
  const addresses = (record['addresses'] ?? []) as readonly Record<string, unknown>[]
  return (
    <Box sx={{ p: 2 }}>
      <PageHeading>Onboarding session {String(record.id)}</PageHeading>
      <Section title="Review" actions={record['status'] === 'SUBMITTED' ? <SessionDecisions /> : null}>
        <Facts
          items={[
            ['Status', text(record['status'])],
            ['Current step', text(record['current_step'])],
            ['Submitted', instant(record['submitted_at'])],
            ['Type', text(record['type'])],
            ['Country of incorporation', text(record['country_of_incorporation'])],
            ['Entry channel', text(record['entry_channel'])],
            ['Locale', text(record['locale'])],
            ['API client', text(record['client_id'])],
            ['Party', text(record['party_id'])],
            ['Decision', review === null ? 'None yet' : `${review.decision} by ${review.reviewed_by}, ${instant(review.decided_at)}`],
            ...(review?.reason ? ([['Reason', review.reason]] as const) : []),
          ]}
        />
      </Section>
      <Section title="Contacts">
        <Facts
          items={[
            ['E-mail', contact(record['email'])],
            ['E-mail verified', verified(record['email'])],
            ['Phone', contact(record['phone'])],
            ['Phone verified', verified(record['phone'])],
          ]}
        />
      </Section>
      <Section title="Applicant profile">
        {profile === null ? (
          <Typography variant="body2">No profile given.</Typography>
        ) : (
          <Facts
            items={[
              ['Legal name', text(profile['legal_name'])],
              ['Trading name', text(profile['trading_name'])],
              ['Legal form', text(profile['legal_form'])],
              ['Registration number', text(profile['registration_number'])],
              ['Incorporated', text(profile['incorporation_date'])],
              ['Industry (NAICS)', text(profile['industry_code'])],
              ['Website', text(profile['website'])],
              ['Tax id', text(profile['tax_id_masked'])],
            ]}
          />
        )}
      </Section>
      <Section title="Addresses">
        {addresses.length === 0 ? (
          <Typography variant="body2">No addresses given.</Typography>
        ) : (
          <Box component="ul" sx={{ m: 0, pl: 2 }}>
            {addresses.map((a) => (
              <Typography component="li" variant="body2" key={String(a['address_id'])}>
                <strong>{text(a['type'])}</strong>: {[a['line1'], a['line2'], a['city'], a['region'], a['postal_code'], a['country']].filter((part) => part !== null && part !== undefined && part !== '').join(', ')}
              </Typography>
            ))}
          </Box>
        )}
      </Section>
      <Section title="Documents">
        <RecordsTable resource="session-documents" filter={{ session_id: record.id }} empty="No documents.">
          <TextField sortable={false} source="type" label="Type" />
          <TextField sortable={false} source="file_name" label="File" emptyText="—" />
          <TextField sortable={false} source="content_type" label="Content type" emptyText="—" />
          <TextField sortable={false} source="description" label="Description" emptyText="—" />
          <FunctionField sortable={false} label="Stored at" render={(d) => <Box component="code" sx={{ overflowWrap: 'anywhere' }}>{text(d['storage_ref'])}</Box>} />
          <DateField sortable={false} source="created_at" label="Added" showTime />
        </RecordsTable>
      </Section>
    </Box>
  )
}

/**
 * An onboarding session as a reviewer reads it before deciding (`GET /internal/onboarding-sessions/{id}`
 * and its documents): the review record, both contacts and whether each was verified, the applicant
 * profile (tax id masked), the addresses and the documents; the decision is taken here.
 */
export const SessionPage = () => (
  <Show title="Onboarding session" actions={false} component="div">
    <SessionDetail />
  </Show>
)
