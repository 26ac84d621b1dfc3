import { Box } from '@mui/material'
import { styled } from '@mui/material/styles'
import type { ReactElement } from 'react'
import { FilterFormBase, FilterLiveForm } from 'react-admin'

/** A UUID as the API checks an id filter: a typed id filter applies only once it is one. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** A typed filter's value without the spaces a paste brings. */
export const trimmed = (value: unknown): string => (typeof value === 'string' ? value.trim() : '')

/** A row of filter inputs, side by side, wrapping on a narrow screen. */
const FilterRow = styled('form')(({ theme }) => ({
  display: 'flex',
  flexWrap: 'wrap',
  alignItems: 'flex-start',
  '& .MuiFormControl-root': { marginTop: theme.spacing(1) },
}))

/**
 * A queue's filters, as a List's `filters` element; every one is always shown. A choice (a select)
 * applies as soon as it is chosen, so that a row opened right after it is the page that stays: a
 * filter applied later would take the page back to the list. A typed filter (an id) applies once
 * the typing pauses (react-admin's debounce), and only once valid: its validity is known only after
 * the change, so it cannot apply at once; a row opened just as the pause ends can still be left for
 * the list (the filter lands while the list is still on screen, as the page changes).
 *
 * react-admin renders a List's `filters` element in two places: as the form (`context="form"`) and,
 * in the list's actions, as the button that shows hidden filters (`context="button"`), which a queue
 * whose filters are always shown has no use for.
 */
export const QueueFilters = (props: { readonly choices: readonly ReactElement[]; readonly typed?: readonly ReactElement[]; readonly context?: 'form' | 'button' }) =>
  props.context === 'button' ? null : (
    <Box sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'flex-start', pb: 0.5 }}>
      <FilterLiveForm debounce={false} formComponent={FilterRow}>
        <FilterFormBase filters={[...props.choices]} />
      </FilterLiveForm>
      {props.typed === undefined ? null : (
        <FilterLiveForm formComponent={FilterRow}>
          <FilterFormBase filters={[...props.typed]} />
        </FilterLiveForm>
      )}
    </Box>
  )
