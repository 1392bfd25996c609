/**
 * The render service of a server: prompt renders in a pool of worker threads (render-pool.ts),
 * started at the first render (the pool's module too, so a server that never renders loads no
 * thread code), stopped with the other services. The embedded CLI renders in its own process
 * (`inProcess`: one local user, no neighbours to protect).
 */
import {SvcError} from '../../core/errors.js'
import type {RenderInput} from '../../core/prompts/render.js'
import type {RenderPool, RenderPoolLimits} from './render-pool.js'

export type RenderOptions = Partial<RenderPoolLimits> & {inProcess?: boolean}

export interface Renders {
  /** Renders `input` for `account` off the event loop; null where renders run in the caller's process. */
  readonly render: ((input: RenderInput, account: string) => Promise<string>) | null
  /** Refuses new renders (503), stops running ones and the threads. */
  stop(): Promise<void>
}

export function createRenders(options: RenderOptions = {}): Renders {
  if (options.inProcess) return {render: null, stop: async () => {}}
  const {inProcess: _, ...limits} = options
  let pool: Promise<RenderPool> | undefined
  let stopped = false
  return {
    async render(input, account) {
      if (stopped) throw new SvcError('internal', 503, 'the server is shutting down')
      pool ??= import('./render-pool.js').then(({createRenderPool}) => createRenderPool(limits))
      return (await pool).render(input, account)
    },
    async stop() {
      stopped = true
      if (pool) await (await pool).close()
    },
  }
}
