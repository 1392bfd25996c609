/** The changes of a record a db trigger can run on (docs/flows.md "Flows on db changes"). */
export const DB_CHANGE_OPS = ['create', 'update', 'delete'] as const
export type DbChangeOp = (typeof DB_CHANGE_OPS)[number]
