// New runs appear without a reload: the screens poll (every 3 s while the tab is visible, at once
// when it becomes visible again). Polling, not server-sent events: it needs nothing from the
// server beyond the list endpoint, and it survives proxies and restarts.
export const POLL_MS = 3000

/** Calls `tick` now and every POLL_MS while the page is visible; returns the stop function. */
export function poll(tick) {
  let timer = null
  const run = () => {
    clearTimeout(timer)
    if (document.visibilityState === 'visible') tick()
    timer = setTimeout(run, POLL_MS)
  }
  const onVisible = () => document.visibilityState === 'visible' && run()
  document.addEventListener('visibilitychange', onVisible)
  run()
  return () => {
    clearTimeout(timer)
    document.removeEventListener('visibilitychange', onVisible)
  }
}
