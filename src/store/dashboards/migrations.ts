import type {Migration} from '../migrations/types.js'

/** Migrations of the dashboards area: ids 30..39 are reserved for it. */
export const migrations: Migration[] = []
