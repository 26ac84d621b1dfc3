import { Box, Button, Typography } from '@mui/material'
import { useEffect, useRef, useState } from 'react'
import { Datagrid, DateField, FunctionField, List, SelectInput, Show, TextField, useGetIdentity, useLogoutIfAccessDenied, useRecordContext } from 'react-admin'
import { approvedWords, kindName, operatorName, REQUEST_STATES, type ActionPreview } from './action-preview.js'
import { PreviewTables, refusalOf } from './action-request.js'
import { api } from './api.js'
import { DecisionButton } from './decisions.js'
import { Facts, instant, PageHeading, RecordLink, Section, ShowLink, text } from './layout-parts.js'
import { CursorPages } from './pages.js'
import { QueueFilters } from './queue-filters.js'

/** The signed-in operator's id, to mark its own requests. */
const useSignedInId = (): unknown => useGetIdentity().identity?.id

/**
 * Approvals (`GET /internal/operator-requests`): the maker-checker requests, by state (`PENDING`
 * first: those waiting for a second operator), oldest first as the API lists them; each opens its
 * page, where the checker sees what approving would do before deciding.
 */
export const ApprovalQueue = () => {
  const me = useSignedInId()
  return (
    <List
      title="Approvals"
      filters={<QueueFilters choices={[<SelectInput key="state" source="state" label="State" choices={[...REQUEST_STATES]} emptyText="All" alwaysOn />]} />}
      filterDefaultValues={{ state: 'PENDING' }}
      pagination={<CursorPages />}
      perPage={25}
      exporter={false}
      empty={false}
    >
      <Datagrid bulkActionButtons={false} rowClick={false} empty={<Typography sx={{ p: 2 }}>No requests in this state.</Typography>}>
        <ShowLink resource="operator-requests" source="kind" display={kindName} label="Kind" sortable={false} title="Open request" />
        <ShowLink resource="loans" source="loan_id" idSource="loan_id" label="Loan" sortable={false} title="Open loan" />
        <TextField sortable={false} source="payment_id" label="Payment" emptyText="—" />
        <TextField sortable={false} source="reason" label="Reason" />
        <FunctionField sortable={false} label="Requested by" render={(r) => operatorName(r['requested_by'], me)} />
        <DateField sortable={false} source="requested_at" label="Requested at" showTime />
        <TextField sortable={false} source="state" label="State" />
      </Datagrid>
    </List>
  )
}

/** What the live preview of a request holds: nothing yet, the preview, or the server's refusal. */
type Read = { readonly state: 'reading' } | { readonly state: 'read'; readonly preview: ActionPreview } | { readonly state: 'refused'; readonly detail: string }

/**
 * What approving the request would do now (`GET /internal/operator-requests/{id}/preview`),
 * planned afresh on each read, written nowhere. Read when the page opens, when asked again, and
 * when a decision found the request changed; not on the page's refresh after a decision, which
 * would ask for the preview of a request no longer pending.
 */
const LivePreview = ({ requestId, version, onRead }: { readonly requestId: string; readonly version: number; readonly onRead: (previewVersion: string | undefined) => void }) => {
  // Kept in a ref: the read depends on the request and the asking only, never on a hook's identity.
  const signOut = useLogoutIfAccessDenied()
  const signOutIfEnded = useRef(signOut)
  signOutIfEnded.current = signOut
  const [read, setRead] = useState<Read>({ state: 'reading' })
  const [again, setAgain] = useState(0)
  const tell = useRef(onRead)
  tell.current = onRead
  useEffect(() => {
    tell.current(read.state === 'read' ? read.preview.preview_version : undefined)
  }, [read])
  useEffect(() => {
    let current = true
    setRead({ state: 'reading' })
    api<ActionPreview>('GET', `internal/operator-requests/${encodeURIComponent(requestId)}/preview`).then(
      (preview) => {
        if (current) setRead({ state: 'read', preview })
      },
      async (error: unknown) => {
        if (!current || (await signOutIfEnded.current(error))) return
        setRead({ state: 'refused', detail: refusalOf(error) })
      },
    )
    return () => {
      current = false
    }
  }, [requestId, version, again])
  return (
    <Section
      title="What approving would do now"
      actions={
        <Button size="small" disabled={read.state === 'reading'} onClick={() => setAgain((n) => n + 1)}>
          Preview again
        </Button>
      }
    >
      <Box aria-live="polite" aria-busy={read.state === 'reading'}>
        {read.state === 'reading' ? <Typography variant="body2">Reading the preview…</Typography> : null}
        {read.state === 'refused' ? (
          <Typography variant="body2" role="alert">
            {read.detail}
          </Typography>
        ) : null}
        {read.state === 'read' ? <PreviewTables preview={read.preview} headingLevel="h3" /> : null}
      </Box>
    </Section>
  )
}

/**
 * The decisions on a pending request: approve (carries out what the preview on screen showed, named
 * by its `preview_version`; none before a preview is read), or reject with a reason.
 */
const RequestDecisions = ({ kind, previewVersion, onConflict }: { readonly kind: unknown; readonly previewVersion: string | undefined; readonly onConflict: () => void }) => (
  <Box sx={{ display: 'flex', gap: 1 }}>
    <DecisionButton
      label="Approve"
      path={(id) => `internal/operator-requests/${encodeURIComponent(id)}/approve`}
      done={approvedWords(kind)}
      onConflict={onConflict}
      disabled={previewVersion === undefined}
      {...(previewVersion === undefined ? {} : { body: { preview_version: previewVersion } })}
    />
    <DecisionButton
      label="Reject"
      color="error"
      path={(id) => `internal/operator-requests/${encodeURIComponent(id)}/reject`}
      done="The request is rejected: nothing was done."
      reason={{ title: 'Reject the request', field: 'reason' }}
      onConflict={onConflict}
    />
  </Box>
)

const RequestDetail = () => {
  const record = useRecordContext()
  const me = useSignedInId()
  const [version, setVersion] = useState(0)
  const [previewVersion, setPreviewVersion] = useState<string | undefined>()
  if (record === undefined) return null
  const requestId = String(record.id)
  const pending = record['state'] === 'PENDING'
  const loanId = record['loan_id']
  const paymentId = record['payment_id']
  return (
    <Box sx={{ p: 2 }}>
      <PageHeading>
        {kindName(record['kind'])} request {requestId}
      </PageHeading>
      <Section title="Request" actions={pending ? <RequestDecisions kind={record['kind']} previewVersion={previewVersion} onConflict={() => setVersion((v) => v + 1)} /> : null}>
        <Facts
          items={[
            ['State', text(record['state'])],
            ['Kind', kindName(record['kind'])],
            ['Loan', typeof loanId === 'string' ? <RecordLink resource="loans" id={loanId} title="Open loan" /> : text(loanId)],
            ['Payment', text(paymentId)],
            ['Reason', text(record['reason'])],
            ['Requested by', operatorName(record['requested_by'], me)],
            ['Requested at', instant(record['requested_at'])],
            ['Decided by', operatorName(record['decided_by'], me)],
            ['Decided at', instant(record['decided_at'])],
            ...(record['rejection_reason'] ? ([['Rejection reason', text(record['rejection_reason'])]] as const) : []),
          ]}
        />
        {pending ? (
          <Typography variant="body2" sx={{ mt: 2 }}>
            Approving carries out at once what the preview below shows; if the loan moved since, the server refuses and the preview is read again. The operator who asked cannot approve it.
          </Typography>
        ) : null}
      </Section>
      {pending ? <LivePreview requestId={requestId} version={version} onRead={setPreviewVersion} /> : null}
    </Box>
  )
}

/**
 * A maker-checker request (`GET /internal/operator-requests/{id}`): who asked for what and why, and,
 * while it is pending, what approving would do now, with the decision taken here.
 */
export const RequestPage = () => (
  <Show title="Approval request" actions={false} component="div">
    <RequestDetail />
  </Show>
)
