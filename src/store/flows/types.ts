/** Repository interface of the flows area: what http needs from storage, implementation-neutral. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface FlowsRepo {}
