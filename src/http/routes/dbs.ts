import {Hono} from 'hono'
import type {AppEnv, Deps} from '../env.js'

/** Routes of the dbs area. */
export function dbsRoutes(deps: Deps) {
  void deps
  const app = new Hono<AppEnv>()
  return app
}
