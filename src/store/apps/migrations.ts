import type {Migration} from '../migrations/types.js'

/** Migrations of the apps area: ids 40..49 are reserved for it. */
export const migrations: Migration[] = []
