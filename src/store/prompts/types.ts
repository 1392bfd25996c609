/** Repository interface of the prompts area: what http needs from storage, implementation-neutral. */
import type {ListFilters, PromptData, PromptRecord, Viewer} from '../../core/prompts/types.js'

export type {ListFilters, PromptData, PromptRecord, Viewer}

export interface PromptsRepo {
  /** Stored prompts the viewer can see (account, own user, own teams and department), filtered and ordered. */
  list(viewer: Viewer, filters: ListFilters): Promise<PromptRecord[]>
  /** One prompt the viewer can see, else null (foreign, hidden or unknown alike). */
  get(viewer: Viewer, id: string): Promise<PromptRecord | null>
  /** Stored prompts of any of `codes` the viewer can see (input of the cascade). */
  byCodes(viewer: Viewer, codes: string[]): Promise<PromptRecord[]>
  /** Inserts (a fresh random `token` is assigned). 422 `{code: [...]}` when (account, scope, scope_id, code) is taken. */
  create(accountId: number, createdById: number, data: PromptData): Promise<PromptRecord>
  /**
   * Replaces the writable fields. 422 as create on a taken code; null when the id is not in the account.
   * `check` sees the stored prompt inside the write, before it changes, and may throw (If-Match).
   */
  update(accountId: number, id: string, data: PromptData, check?: (current: PromptRecord) => void): Promise<PromptRecord | null>
  /** True when a row was removed; `check` as in update. */
  delete(accountId: number, id: string, check?: (current: PromptRecord) => void): Promise<boolean>
}
