import { randomUUID } from 'node:crypto'
import type { IdGenerator } from '@lendgate/core'

export const randomIds = (): IdGenerator => ({ next: () => randomUUID() })
