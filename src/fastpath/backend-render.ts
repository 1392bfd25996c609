/**
 * `svc prompt render` through a backend, for the fast path of bin/run.js: against a server, or on
 * the embedded app over PostgreSQL (`--database-url`). An ES module bundle of its own
 * (dist/fastpath-backend-render.js, scripts/bundle-fastpath.js): the SQLite fast path
 * (dist/fastpath-prompt-render.cjs) never loads it.
 */
import {Client} from '../client/backend.js'
import {openBackend, type Target} from '../client/resolve.js'
import {renderPrompt, runRender, type RenderOptions, type RenderOutput} from './prompt-render.js'

export async function renderThroughBackend(target: Target, options: RenderOptions, output: RenderOutput): Promise<void> {
  await runRender(output, async () => {
    const backend = await openBackend(target)
    return {description: backend.description, render: () => renderPrompt(new Client(backend), options), close: () => backend.close()}
  })
}
