import { createServer, type RequestListener } from 'node:http'

/** A setting the bench passes in the environment; its absence is the bench's bug, so it throws. */
export const requiredEnv = (name: string): string => {
  const value = process.env[name]
  if (value === undefined || value === '') throw new Error(`${name} is not set`)
  return value
}

/** Serves `handler` on `PORT` at 127.0.0.1 with the API's keep-alive setting; stops on SIGTERM. */
export const listenOn = (handler: RequestListener): void => {
  const server = createServer(handler)
  server.keepAliveTimeout = 5_000
  server.listen(Number(process.env['PORT']), '127.0.0.1')
  process.on('SIGTERM', () => {
    server.close(() => process.exit(0))
    server.closeAllConnections()
  })
}
