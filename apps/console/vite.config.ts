import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

/**
 * The console's build (docs/console.md): relative URLs (`base: './'`), so the page works under
 * `/console/` and behind a gateway's path prefix; every script and style tag, and the meta tag
 * the page's run-time styles read their nonce from, carry `LENDGATE_CSP_NONCE`, which the API
 * replaces with a fresh nonce in each answer (apps/api/src/http/console.ts).
 */
export default defineConfig({
  base: './',
  plugins: [react()],
  html: { cspNonce: 'LENDGATE_CSP_NONCE' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The polyfill would be an inline script; every browser the console supports preloads modules itself.
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 4096,
  },
})
