import { createServer, type RequestListener } from 'node:http'

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
