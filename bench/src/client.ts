/** A minimal JSON client for seeding: one call, one expected status, or it throws. */
export type Api = {
  readonly url: string
  readonly call: (method: string, path: string, options: { readonly headers?: Record<string, string>; readonly json?: unknown; readonly expect: number }) => Promise<any> // eslint-disable-line @typescript-eslint/no-explicit-any -- seeding reads arbitrary JSON
}

export const apiAt = (url: string): Api => ({
  url,
  call: async (method, path, { headers = {}, json, expect }) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { ...headers, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    })
    const text = await response.text()
    if (response.status !== expect) throw new Error(`${method} ${path}: expected ${expect}, got ${response.status} ${text}`)
    return text === '' ? undefined : JSON.parse(text)
  },
})

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` })
