import { Alert, Box, Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle, Table, TableBody, TableCell, TableHead, TableRow, TextField, Typography } from '@mui/material'
import { useId, useState } from 'react'
import { useLogoutIfAccessDenied, useNotify, useRefresh } from 'react-admin'
import { entryRows, previewRows, previewSummary, requestBody, subjectName, type ActionPreview, type OperatorRequest, type RequestSubject } from './action-preview.js'
import { api } from './api.js'

/** The server's words for a refusal (`detail`), or a plain sentence when it gave none. */
export const refusalOf = (error: unknown): string => (error instanceof Error && error.message !== '' ? error.message : 'The server refused.')

/**
 * What an action would do (`ActionPreview`): a sentence saying it, the loan's status and what it
 * owes before and after as a table (money exact, in the loan's currency), and the ledger entries it
 * would post as another. `headingLevel` keeps the outline of the page or dialog it sits in.
 */
export const PreviewTables = ({ preview, headingLevel = 'h3' }: { readonly preview: ActionPreview; readonly headingLevel?: 'h3' | 'h4' }) => {
  const entriesHeading = useId()
  const rows = previewRows(preview)
  const entries = entryRows(preview)
  return (
    <Box>
      <Typography variant="body2" sx={{ mb: 1 }}>
        {previewSummary(preview)}
      </Typography>
      <Table size="small" aria-label="Before and after">
        <TableHead>
          <TableRow>
            <TableCell>As of {preview.before.as_of === preview.after.as_of ? preview.before.as_of : `${preview.before.as_of} → ${preview.after.as_of}`}</TableCell>
            <TableCell align="right">Before</TableCell>
            <TableCell align="right">After</TableCell>
            <TableCell align="right">Change</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {rows.map((row) => (
            <TableRow key={row.label}>
              <TableCell component="th" scope="row">
                {row.label}
              </TableCell>
              <TableCell align="right">{row.before}</TableCell>
              <TableCell align="right">{row.after}</TableCell>
              <TableCell align="right">{row.change}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      <Typography component={headingLevel} variant="subtitle1" id={entriesHeading} sx={{ mt: 2 }}>
        Ledger entries it would post
      </Typography>
      {entries.length === 0 ? (
        <Typography variant="body2">None.</Typography>
      ) : (
        <Table size="small" aria-labelledby={entriesHeading}>
          <TableHead>
            <TableRow>
              <TableCell>Type</TableCell>
              <TableCell>Effective</TableCell>
              <TableCell align="right">Amount</TableCell>
              <TableCell align="right">Principal change</TableCell>
              <TableCell align="right">Interest change</TableCell>
              <TableCell align="right">Fees change</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {entries.map((e) => (
              <TableRow key={e.key}>
                <TableCell>{e.type}</TableCell>
                <TableCell>{e.effectiveDate}</TableCell>
                <TableCell align="right">{e.amount}</TableCell>
                <TableCell align="right">{e.principal}</TableCell>
                <TableCell align="right">{e.interest}</TableCell>
                <TableCell align="right">{e.fees}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
    </Box>
  )
}

/** What the dialog says of each kind of request. */
const WORDING = {
  payment_reversal: { button: 'Request reversal', title: 'Request a reversal of', asked: 'The reversal is asked for: another operator must approve it in Approvals.' },
  loan_charge_off: { button: 'Request charge-off', title: 'Request a charge-off of', asked: 'The charge-off is asked for: another operator must approve it in Approvals.' },
} as const

/**
 * Asking for a payment reversal or a charge-off (maker-checker, decision 152): a button that opens
 * a dialog asking why, then previews what the action would do now (`POST
 * /internal/operator-requests/preview`, which writes nothing), then asks for another operator's
 * approval (`POST /internal/operator-requests`). Each step waits for the server's answer (no
 * optimistic update, no undo) and a refusal is shown in the dialog in the server's words.
 */
export const RequestActionButton = ({ subject }: { readonly subject: RequestSubject }) => {
  const notify = useNotify()
  const refresh = useRefresh()
  const signOutIfEnded = useLogoutIfAccessDenied()
  const titleId = useId()
  const previewId = useId()
  const wording = WORDING[subject.kind]
  const name = subjectName(subject)
  const [open, setOpen] = useState(false)
  const [reason, setReason] = useState('')
  const [busy, setBusy] = useState(false)
  const [preview, setPreview] = useState<ActionPreview | undefined>()
  const [refusal, setRefusal] = useState<string | undefined>()
  // A 409 means the loan or payment changed meanwhile (reversed, charged off, asked for already):
  // the page reads it again once the dialog closes, so the refusal stays on screen until read.
  const [stale, setStale] = useState(false)
  /** Closes the dialog, forgetting what it held; reads the page again if the server said it changed. */
  const reset = () => {
    setOpen(false)
    setPreview(undefined)
    setRefusal(undefined)
    setReason('')
    if (stale) {
      setStale(false)
      refresh()
    }
  }
  const close = () => {
    if (!busy) reset()
  }
  /** One step of the dialog: the request, then what to do with the answer; a refusal stays in the dialog. */
  const step = async <T,>(send: () => Promise<T>, then: (answer: T) => void) => {
    setBusy(true)
    setRefusal(undefined)
    try {
      then(await send())
    } catch (error) {
      if (await signOutIfEnded(error)) return
      setRefusal(refusalOf(error))
      if ((error as { readonly status?: number }).status === 409) setStale(true)
    } finally {
      setBusy(false)
    }
  }
  const body = () => requestBody(subject, reason)
  // A preview read again replaces the last one; refused, none stands (nothing is asked on a stale one).
  const doPreview = () => {
    setPreview(undefined)
    return step(() => api<ActionPreview>('POST', 'internal/operator-requests/preview', body()), setPreview)
  }
  const ask = () =>
    step(
      () => api<OperatorRequest>('POST', 'internal/operator-requests', body()),
      () => {
        notify(wording.asked, { type: 'success' })
        reset()
      },
    )
  const noReason = reason.trim() === ''
  return (
    <>
      <Button
        size="small"
        variant="outlined"
        color="warning"
        aria-label={`${wording.button} of ${name}`}
        onClick={(event) => {
          event.stopPropagation()
          setOpen(true)
        }}
      >
        {wording.button}
      </Button>
      <Dialog open={open} onClose={close} aria-labelledby={titleId} maxWidth="md" fullWidth>
        <DialogTitle id={titleId} sx={{ overflowWrap: 'anywhere' }}>
          {wording.title} {name}
        </DialogTitle>
        <DialogContent>
          <DialogContentText variant="body2" sx={{ mb: 1 }}>
            Nothing changes until another operator approves the request. Preview what it would do first.
          </DialogContentText>
          <TextField
            label="Reason"
            required
            fullWidth
            multiline
            minRows={2}
            autoFocus
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            helperText="Kept with the request and in the audit log."
            sx={{ mt: 1, mb: 2 }}
          />
          {refusal === undefined ? null : (
            <Alert severity="error" role="alert" sx={{ mb: 2 }}>
              {refusal}
            </Alert>
          )}
          {preview === undefined ? null : (
            <Box component="section" aria-labelledby={previewId}>
              <Typography component="h3" variant="subtitle1" id={previewId} sx={{ mb: 1 }}>
                What it would do now
              </Typography>
              <PreviewTables preview={preview} headingLevel="h4" />
            </Box>
          )}
        </DialogContent>
        <DialogActions>
          <Button onClick={close} disabled={busy}>
            Cancel
          </Button>
          <Button variant={preview === undefined ? 'contained' : 'outlined'} disabled={busy || noReason} onClick={() => void doPreview()}>
            {preview === undefined ? 'Preview' : 'Preview again'}
          </Button>
          <Button variant="contained" color="warning" disabled={busy || noReason || preview === undefined} onClick={() => void ask()}>
            Ask for approval
          </Button>
        </DialogActions>
      </Dialog>
    </>
  )
}
