// Every server the bench measures keeps the hidden classes of Node's tick objects, as the API
// does (its tick-shape.ts): otherwise a server whose classes died in an idle spell between rounds
// would pay about 0.3 µs more a nextTick from then on, at random (docs/benchmarks.md).
import '@lendgate/api/tick-shape'
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
