import { Box, Button, Typography } from '@mui/material'
import { useListContext } from 'react-admin'

/**
 * Paging through an API list by its cursors: the previous and next pages, and which page this is.
 * No count of pages or records: the API does not count them (a count of a large book costs what
 * a page must not).
 */
export const CursorPages = () => {
  const { page, setPage, hasNextPage, hasPreviousPage, isPending } = useListContext()
  return (
    <Box component="nav" aria-label="Pages" sx={{ display: 'flex', alignItems: 'center', justifyContent: 'flex-end', gap: 2, p: 1 }}>
      <Button size="small" disabled={isPending || hasPreviousPage !== true} onClick={() => setPage(page - 1)}>
        Previous
      </Button>
      <Typography variant="body2" aria-live="polite">
        Page {page}
      </Typography>
      <Button size="small" disabled={isPending || hasNextPage !== true} onClick={() => setPage(page + 1)}>
        Next
      </Button>
    </Box>
  )
}
