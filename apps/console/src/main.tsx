import createCache from '@emotion/cache'
import { CacheProvider } from '@emotion/react'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { ConsoleApp } from './console-app.js'

/**
 * The styles MUI writes while the console runs carry the nonce the API put in this page's
 * Content-Security-Policy (Vite's `csp-nonce` meta tag, filled in per answer): no other inline
 * style runs.
 */
const nonce = document.querySelector<HTMLMetaElement>('meta[property="csp-nonce"]')?.nonce
const styles = createCache({ key: 'lg', ...(nonce === undefined || nonce === '' ? {} : { nonce }), prepend: true })

const root = document.getElementById('root')
if (root === null) throw new Error('the console page has no #root')
createRoot(root).render(
  <StrictMode>
    <CacheProvider value={styles}>
      <ConsoleApp />
    </CacheProvider>
  </StrictMode>,
)
