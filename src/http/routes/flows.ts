import {Hono} from 'hono'
import type {AppEnv, Deps} from '../env.js'

/** Routes of the flows area. */
export function flowsRoutes(deps: Deps) {
  void deps
  const app = new Hono<AppEnv>()
  return app
}
