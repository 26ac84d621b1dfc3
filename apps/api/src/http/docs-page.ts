import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { Middleware } from 'koa'
import type { AppState } from './context.js'

/**
 * `GET /docs`: the OpenAPI reference rendered by Swagger UI, served from the `swagger-ui-dist`
 * package (no CDN: the page works offline). Not part of the API: no key, no route table entry.
 */

const distDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Lendgate API reference</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="reference"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/reference.js"></script>
</body>
</html>
`

const INIT = `window.ui = SwaggerUIBundle({ url: '/public/openapi.json', dom_id: '#reference', deepLinking: true, docExpansion: 'list' })\n`

type Asset = { readonly type: string; readonly body: string | Buffer }

/** Read once, at start. */
const ASSETS: Readonly<Record<string, Asset>> = {
  '/docs': { type: 'text/html; charset=utf-8', body: PAGE },
  '/docs/reference.js': { type: 'text/javascript; charset=utf-8', body: INIT },
  '/docs/swagger-ui.css': { type: 'text/css; charset=utf-8', body: readFileSync(join(distDir, 'swagger-ui.css')) },
  '/docs/swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(join(distDir, 'swagger-ui-bundle.js')) },
}

export const docsPage: Middleware<AppState> = (ctx, next) => {
  const path = ctx.path
  const asset = path.startsWith('/docs') && (ctx.method === 'GET' || ctx.method === 'HEAD') ? ASSETS[path === '/docs/' ? '/docs' : path] : undefined
  if (asset === undefined) return next()
  ctx.status = 200
  ctx.type = asset.type
  // The page only reads the public document; scripts come from this origin alone.
  ctx.set('Content-Security-Policy', "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'")
  if (path !== '/docs' && path !== '/docs/') ctx.set('Cache-Control', 'public, max-age=3600')
  ctx.body = asset.body
}
