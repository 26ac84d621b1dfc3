import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A stand-in for the SMS/email delivery service: records each POSTed JSON body. */
export const startCodeReceiver = async () => {
  const received: Record<string, unknown>[] = []
  let status = 202
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString()))
    req.on('end', () => {
      if (status < 300) received.push(JSON.parse(body) as Record<string, unknown>)
      res.statusCode = status
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/codes`,
    received,
    answerWith: (s: number) => {
      status = s
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

