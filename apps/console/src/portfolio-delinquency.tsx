import { Box, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material'
import { Link, useCreatePath, useGetOne } from 'react-admin'
import { refusalOf } from './action-request.js'
import { delinquencyByCurrency, delinquencyRows, type CurrencyDelinquency } from './chart-data.js'
import { BucketChart } from './charts.js'
import { BOOK } from './data-provider.js'
import { instant, Section } from './layout-parts.js'

/**
 * A bucket's name as a link to the Loans queue showing that bucket's loans: the queue's filter
 * becomes the bucket alone (no status, no party), so it lists the loans the bucket counts.
 */
const BucketLink = ({ bucket, name }: { readonly bucket: string; readonly name: string }) => {
  const createPath = useCreatePath()
  const search = new URLSearchParams({ filter: JSON.stringify({ delinquency: bucket }) })
  return (
    <Link to={{ pathname: createPath({ resource: 'loans', type: 'list' }), search: `?${search.toString()}` }} aria-label={`Show loans: ${name}`}>
      {name}
    </Link>
  )
}

/** One currency's buckets as a table: what the chart draws, with the principal outstanding and past due of each. */
const BucketTable = ({ book }: { readonly book: CurrencyDelinquency }) => (
  <Table size="small" aria-label={`Active loans by delinquency, ${book.currency}`} sx={{ '& th, & td': { whiteSpace: 'nowrap' } }}>
    <TableHead>
      <TableRow>
        <TableCell>Delinquency</TableCell>
        <TableCell align="right">Loans</TableCell>
        <TableCell align="right">Principal outstanding</TableCell>
        <TableCell align="right">Past due</TableCell>
      </TableRow>
    </TableHead>
    <TableBody>
      {delinquencyRows(book).map((row) => (
        <TableRow key={row.bucket}>
          <TableCell component="th" scope="row">
            <BucketLink bucket={row.bucket} name={row.name} />
          </TableCell>
          <TableCell align="right">{row.loans}</TableCell>
          <TableCell align="right">{row.principalOutstanding}</TableCell>
          <TableCell align="right">{row.pastDue}</TableCell>
        </TableRow>
      ))}
    </TableBody>
  </Table>
)

/**
 * The book's delinquency above the Loans queue (`GET /internal/portfolio/delinquency`, of the world
 * the console is on): for each currency, a bar chart of its active loans per bucket and, beside it,
 * the same buckets as a table with their principal outstanding and past due, each bucket's name
 * opening the queue on its loans. Only active loans are counted, each as of its own today (in the
 * test world, its party's test clock); a book with none says so in a sentence.
 */
export const PortfolioDelinquency = () => {
  const { data, error, isPending } = useGetOne('portfolio-delinquency', { id: BOOK })
  const books = delinquencyByCurrency(Array.isArray(data?.['currencies']) ? (data['currencies'] as Record<string, unknown>[]) : [])
  return (
    <Section title="Active loans by delinquency">
      {isPending ? (
        <Typography variant="body2">Reading the book…</Typography>
      ) : error ? (
        <Typography variant="body2">The book's delinquency could not be read: {refusalOf(error)}</Typography>
      ) : (
        <>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
            Buckets as of {instant(data['as_of'])}, each loan judged on its own today{data['livemode'] === false ? ", on its party's test clock when it is on one" : ''}; principal
            outstanding and past due as of each loan's latest posting (the daily servicing job's, or a payment's since).
          </Typography>
          {books.length === 0 ? <Typography variant="body2">No active loans: paid-off and charged-off loans are in no bucket.</Typography> : null}
          {books.map((book) => (
            <Box key={book.currency} sx={{ display: 'grid', gridTemplateColumns: { xs: 'minmax(0, 1fr)', lg: 'minmax(0, 1fr) auto' }, gap: 2, alignItems: 'start', mb: 2 }}>
              <BucketChart book={book} caption={`Active loans per delinquency bucket, ${book.currency}`} />
              <BucketTable book={book} />
            </Box>
          ))}
        </>
      )}
    </Section>
  )
}
