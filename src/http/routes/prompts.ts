import {Hono} from 'hono'
import type {AppEnv, Deps} from '../env.js'

/** Routes of the prompts area. */
export function promptsRoutes(deps: Deps) {
  void deps
  const app = new Hono<AppEnv>()
  return app
}
