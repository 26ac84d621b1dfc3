import { listenOn } from './listen.js'

/** Baseline 1: the ceiling of the runtime, a bare `node:http` handler answering JSON. */
const body = JSON.stringify({ status: 'ok' })
listenOn((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) })
  res.end(body)
})
