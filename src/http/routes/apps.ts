import {Hono} from 'hono'
import type {AppEnv, Deps} from '../env.js'

/** Routes of the apps area. */
export function appsRoutes(deps: Deps) {
  void deps
  const app = new Hono<AppEnv>()
  return app
}
