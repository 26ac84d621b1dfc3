import { Button, Dialog, DialogActions, DialogContent, DialogTitle, TextField } from '@mui/material'
import { useState, type ReactNode } from 'react'
import { useLogoutIfAccessDenied, useNotify, useRecordContext, useRefresh } from 'react-admin'
import { api, type Json } from './api.js'

/**
 * A decision on the record in context: a button that asks the server and waits for its answer
 * (no optimistic update, no undo), then shows what the server said (`done`, or what `done` makes of
 * its answer), a refusal included (a role that may not, a record no longer waiting), and reloads
 * the list. With `reason`, a dialog asks for one first. `body` is sent with the decision (an
 * approval's `preview_version`); while `disabled`, there is nothing to decide on yet. `onConflict` hears of a 409 (the record changed meanwhile), for what the page
 * read beside the record (a request's live preview). `target` names what the button acts on in its
 * accessible name (a delivery's event), the record's id when absent.
 */
export const DecisionButton = (props: {
  readonly label: string
  readonly path: (id: string) => string
  readonly done: string | ((answer: Json) => string)
  readonly reason?: { readonly title: string; readonly field: string }
  readonly color?: 'primary' | 'error'
  readonly icon?: ReactNode
  readonly onConflict?: () => void
  readonly target?: string
  readonly body?: Readonly<Record<string, string>>
  readonly disabled?: boolean
}) => {
  const record = useRecordContext()
  const notify = useNotify()
  const refresh = useRefresh()
  const signOutIfEnded = useLogoutIfAccessDenied()
  const [busy, setBusy] = useState(false)
  const [asking, setAsking] = useState(false)
  const [reason, setReason] = useState('')
  if (record === undefined) return null
  const decide = async (body: Record<string, string>) => {
    setBusy(true)
    try {
      const answer = await api('POST', props.path(String(record.id)), body)
      notify(typeof props.done === 'string' ? props.done : props.done(answer ?? {}), { type: 'success' })
      setAsking(false)
      setReason('')
      refresh()
    } catch (error) {
      // A session that ended goes back to sign-in; any other refusal stays on screen until read.
      if (await signOutIfEnded(error)) return
      notify(error instanceof Error ? error.message : 'The server refused.', { type: 'error', autoHideDuration: null })
      // The record changed meanwhile (decided by someone else): show it as it is now.
      if ((error as { readonly status?: number }).status === 409) {
        refresh()
        props.onConflict?.()
      }
    } finally {
      setBusy(false)
    }
  }
  const reasonField = props.reason
  return (
    <>
      <Button
        size="small"
        variant="outlined"
        color={props.color ?? 'primary'}
        disabled={busy || props.disabled === true}
        startIcon={props.icon}
        aria-label={`${props.label} ${props.target ?? String(record.id)}`}
        onClick={(event) => {
          event.stopPropagation()
          if (reasonField === undefined) void decide({ ...props.body })
          else setAsking(true)
        }}
      >
        {props.label}
      </Button>
      {reasonField === undefined ? null : (
        <Dialog open={asking} onClose={() => setAsking(false)} aria-labelledby={`reason-${String(record.id)}`}>
          <DialogTitle id={`reason-${String(record.id)}`}>{reasonField.title}</DialogTitle>
          <DialogContent>
            <TextField label="Reason" required fullWidth multiline minRows={2} autoFocus value={reason} onChange={(e) => setReason(e.target.value)} sx={{ mt: 1 }} />
          </DialogContent>
          <DialogActions>
            <Button onClick={() => setAsking(false)}>Cancel</Button>
            <Button color={props.color ?? 'primary'} variant="contained" disabled={busy || reason.trim() === ''} onClick={() => void decide({ ...props.body, [reasonField.field]: reason })}>
              {props.label}
            </Button>
          </DialogActions>
        </Dialog>
      )}
    </>
  )
}
