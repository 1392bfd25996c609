import type {Migration} from '../migrations/types.js'

/** Migrations of the dbs area: ids 50..59 are reserved for it. */
export const migrations: Migration[] = []
