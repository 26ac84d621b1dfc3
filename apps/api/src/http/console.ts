import { randomBytes } from 'node:crypto'
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs'
import { extname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Middleware } from 'koa'
import type { AppState } from './context.js'

/**
 * `GET /console`: the operator console (issue 60, docs/console.md), the single-page app that
 * `apps/console` builds (`npx -y pnpm@10.34.8 console:build`, which `start` runs when the build is
 * missing or older than its sources), served from this origin so that its session cookie and CSRF
 * token never leave it. Not part of the API: no credential, no route table entry; what the page
 * does, it does through the `/internal` routes.
 */

/** Where the console's build is, in a checkout. */
export const CONSOLE_DIST = fileURLToPath(new URL('../../../console/dist/', import.meta.url))

/** The placeholder the build puts wherever the page's nonce goes (apps/console/vite.config.ts). */
const NONCE_PLACEHOLDER = 'LENDGATE_CSP_NONCE'

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
}

type Asset = { readonly type: string; readonly body: Buffer }

/** Every file of the build under its URL path (`/console/assets/…`), read once, at start (links not followed); none when there is no build. */
const readBuild = (dir: string): ReadonlyMap<string, Asset> => {
  const assets = new Map<string, Asset>()
  if (!existsSync(join(dir, 'index.html'))) return assets
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name)
      const stats = lstatSync(path)
      if (stats.isDirectory()) walk(path)
      else if (stats.isFile()) assets.set(`/console/${relative(dir, path).split(sep).join('/')}`, { type: TYPES[extname(name)] ?? 'application/octet-stream', body: readFileSync(path) })
    }
  }
  walk(dir)
  return assets
}

/**
 * The page's policy: scripts from this origin only; styles from this origin and, for those the
 * page writes as it runs (MUI's), only with this answer's nonce; requests to this origin only; no
 * frames, no plugins, no forms posted elsewhere, no `<base>` to move it.
 */
const policyOf = (nonce: string): string =>
  [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ')

/**
 * Serves the console's build from `dir`: `/console` redirects to `/console/` (the page's URLs are
 * relative to it, so a gateway's prefix is kept); `/console/` is the page, with a fresh nonce in
 * its policy and its tags each time; `/console/<file>` a file of the build, those under `assets/`
 * kept by browsers for a year (their names change with their content). Without a build,
 * `/console/` says how to make one.
 */
export const consolePage = (dir: string = CONSOLE_DIST): Middleware<AppState> => {
  const assets = readBuild(dir)
  const page = assets.get('/console/index.html')?.body.toString('utf8')
  return (ctx, next) => {
    const path = ctx.path
    if ((path !== '/console' && !path.startsWith('/console/')) || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next()
    if (path === '/console') {
      // Found, not moved for good: browsers keep a 301 even when the console moves.
      ctx.status = 302
      ctx.redirect('console/')
      return
    }
    if (path === '/console/' || path === '/console/index.html') {
      if (page === undefined) {
        ctx.status = 404
        ctx.body = { error: 'not_found', detail: 'The console is not built here: run `npx -y pnpm@10.34.8 console:build`, then start the API again.' }
        return
      }
      const nonce = randomBytes(16).toString('base64')
      ctx.status = 200
      ctx.type = 'text/html; charset=utf-8'
      ctx.set('Content-Security-Policy', policyOf(nonce))
      ctx.set('Cache-Control', 'no-store')
      ctx.body = page.replaceAll(NONCE_PLACEHOLDER, nonce)
      return
    }
    const asset = assets.get(path)
    if (asset === undefined) return next()
    ctx.status = 200
    ctx.type = asset.type
    ctx.set('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'")
    // A name under assets/ changes with its content: kept for a year. Anything else, an hour.
    ctx.set('Cache-Control', path.startsWith('/console/assets/') ? 'public, max-age=31536000, immutable' : 'public, max-age=3600')
    ctx.body = asset.body
  }
}
