import { Box, Typography } from '@mui/material'
import { BarChart } from '@mui/x-charts/BarChart'
import { LineChart } from '@mui/x-charts/LineChart'
import { useId } from 'react'
import { balanceDescription, delinquencyDescription, splitDescription, type BalancePoint, type CurrencyDelinquency, type InstallmentSplit } from './chart-data.js'
import { bucketShortName } from './delinquency.js'
import { formatMinor } from './money.js'

/**
 * A chart as a figure: its caption names it, the text under it says what it shows (its accessible
 * description), and the drawing itself is hidden from assistive technology, which reads the text
 * and the table beside it instead; so a chart takes no keyboard focus either (no tab stop inside
 * what assistive technology cannot see).
 */
const ChartFigure = (props: { readonly caption: string; readonly description: string; readonly children: React.ReactNode }) => {
  const caption = useId()
  const description = useId()
  return (
    <Box component="figure" aria-labelledby={caption} aria-describedby={description} sx={{ m: 0, mb: 2 }}>
      <Typography component="figcaption" variant="subtitle2" id={caption}>
        {props.caption}
      </Typography>
      <Box aria-hidden="true">{props.children}</Box>
      <Typography variant="body2" color="text.secondary" id={description}>
        {props.description}
      </Typography>
    </Box>
  )
}

const money = (currency: unknown) => (value: number | null) => (value === null ? '' : formatMinor(value, currency))

/** Principal and interest of each installment, stacked: how the payment splits over the term. */
export const SplitChart = ({ splits, currency, caption }: { readonly splits: readonly InstallmentSplit[]; readonly currency: unknown; readonly caption: string }) =>
  splits.length === 0 ? null : (
    <ChartFigure caption={caption} description={splitDescription(splits, currency)}>
      <BarChart
        height={260}
        skipAnimation
        disableKeyboardNavigation
        xAxis={[{ scaleType: 'band', data: splits.map((s) => String(s.number)), label: 'Installment' }]}
        yAxis={[{ valueFormatter: (v: number) => formatMinor(v, currency), width: 110 }]}
        series={[
          { data: splits.map((s) => s.principal), label: 'Principal', stack: 'payment', valueFormatter: money(currency) },
          { data: splits.map((s) => s.interest), label: 'Interest', stack: 'payment', valueFormatter: money(currency) },
        ]}
      />
    </ChartFigure>
  )

/** The balance over time: principal outstanding and the payoff amount, one point a day. */
export const BalanceChart = ({ points, currency }: { readonly points: readonly BalancePoint[]; readonly currency: unknown }) =>
  points.length === 0 ? null : (
    <ChartFigure caption="Balance over time" description={balanceDescription(points, currency)}>
      <LineChart
        height={260}
        skipAnimation
        disableKeyboardNavigation
        xAxis={[{ scaleType: 'point', data: points.map((p) => p.asOf), label: 'Date' }]}
        yAxis={[{ valueFormatter: (v: number) => formatMinor(v, currency), width: 110 }]}
        series={[
          { data: points.map((p) => p.principalOutstanding), label: 'Principal outstanding', showMark: false, valueFormatter: money(currency) },
          { data: points.map((p) => p.payoffAmount), label: 'Payoff amount', showMark: false, valueFormatter: money(currency) },
        ]}
      />
    </ChartFigure>
  )

/**
 * One currency's active loans per delinquency bucket, a bar each, current first: where the book
 * stands at a glance. Its figures, principal and past due with them, are in the table beside it.
 */
export const BucketChart = ({ book, caption }: { readonly book: CurrencyDelinquency; readonly caption: string }) => (
  <ChartFigure caption={caption} description={delinquencyDescription(book)}>
    <BarChart
      height={260}
      skipAnimation
      disableKeyboardNavigation
      hideLegend
      xAxis={[{ scaleType: 'band', data: book.buckets.map((b) => bucketShortName(b.bucket)), label: 'Days past due' }]}
      yAxis={[{ tickMinStep: 1, label: 'Active loans', width: 60 }]}
      series={[{ data: book.buckets.map((b) => b.loans), label: 'Active loans', barLabel: 'value' }]}
    />
  </ChartFigure>
)
