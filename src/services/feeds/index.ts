/**
 * Live feeds as a service (docs/realtime.md): the hub (one journal reader per instance, hub.ts),
 * the open connections per key (counter.ts: the quotas of private and public feeds), and the
 * stream settings the routes use. Made by createServices; stopped before the store closes, and
 * first of all (open streams end, so that a server's close does not wait on them).
 */
import type {Store} from '../../store/types.js'
import {ConnectionCounter} from './counter.js'
import {createFeedHub, type FeedHub, type FeedHubOptions} from './hub.js'

export {ConnectionCounter} from './counter.js'
export type {FeedHub, Subscriber, Subscription} from './hub.js'

export interface FeedsOptions extends FeedHubOptions {
  /** Between two heartbeats of a stream, ms (default 15,000). */
  heartbeatMs?: number
  /** How often a stream checks again that its caller may still read it (token revoked, user removed, db deleted), ms (default 15,000). */
  recheckMs?: number
}

export interface Feeds {
  readonly hub: FeedHub
  /** Open feed connections per key: `account:ID`, `server`, and the public feeds' own keys (`visitor:…`). */
  readonly connections: ConnectionCounter
  readonly heartbeatMs: number
  readonly recheckMs: number
  start(): void
  stop(): Promise<void>
}

export function createFeeds(store: Store, options: FeedsOptions = {}): Feeds {
  const hub = createFeedHub(store, options)
  return {
    hub,
    connections: new ConnectionCounter(),
    heartbeatMs: options.heartbeatMs ?? 15_000,
    recheckMs: options.recheckMs ?? 15_000,
    start: () => hub.start(),
    stop: () => hub.stop(),
  }
}
