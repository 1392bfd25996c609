import type {Migration} from '../migrations/types.js'

/** Migrations of the prompts area: ids 20..29 are reserved for it. */
export const migrations: Migration[] = []
