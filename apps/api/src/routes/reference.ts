import * as TE from 'fp-ts/lib/TaskEither.js'
import { openApiDocument } from '../openapi/document.js'
import { routes } from './route.js'

/** The OpenAPI document, built once, served without a key (issue 7). */
export const referenceRoutes = () => {
  const document = openApiDocument()
  return routes({
    getOpenApiDocument: {
      run: () => TE.right(document),
    },
  })
}
