import { openApiDocument } from '../openapi/document.js'
import type { Routes } from './route.js'

/** The OpenAPI document, built once, served without a key (issue 7). */
export const referenceRoutes = (): Routes => {
  const document = openApiDocument()
  return {
    getOpenApiDocument: {
      handle: async (ctx) => {
        ctx.status = 200
        ctx.body = document
      },
    },
  }
}
