import type {Migration} from '../migrations/types.js'

/** Migrations of the flows area: ids 60..69 are reserved for it. */
export const migrations: Migration[] = []
