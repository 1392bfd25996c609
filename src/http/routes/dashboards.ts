import {Hono} from 'hono'
import type {AppEnv, Deps} from '../env.js'

/** Routes of the dashboards area. */
export function dashboardsRoutes(deps: Deps) {
  void deps
  const app = new Hono<AppEnv>()
  return app
}
