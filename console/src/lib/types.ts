// The API's types for the console's JSDoc annotations: `/** @type {Out<'getFlowProcess'> | null} */`.
// Types only (erased at build): they come from the typed client, like every call.
import type {CallOutput, OperationId} from '../../../src/sdk.ts'

export type {AppView, DashboardView, DbView, FlowProcessDetailView, FlowProcessView, MeView, PromptView, RecordView, ResourceView, CronView, UserView, WidgetsView} from '../../../src/sdk.ts'
/** What operation K answers. */
export type Out<K extends OperationId> = CallOutput<K>
/** One item of what a list operation K answers. */
export type Item<K extends OperationId> = CallOutput<K> extends readonly (infer T)[] ? T : never
